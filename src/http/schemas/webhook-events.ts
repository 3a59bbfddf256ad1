/**
 * The payloads of outbound webhooks (docs/webhooks.md "Events") as JSON Schemas, for the OpenAPI
 * document's `webhooks` section: one entry per event type, the body every delivery carries
 * (`{type, timestamp, data}`) with that event's `data`. test/webhooks/webhook-schemas.test.ts checks
 * the events the platform really writes against them.
 */
import { z } from 'zod';
import { WEBHOOK_EVENTS, type WebhookEventType } from '../../domain/standard-webhooks.ts';

const address = z.string().describe('0x-prefixed address');
const hash = z.string().describe('0x-prefixed 32-byte hash');
const id = z.string();
const n = z.number().int();
const nullable = <T extends z.ZodType>(t: T) => t.nullable();

const DATA: Record<WebhookEventType, { when: string; data: z.ZodObject }> = {
  'collection.deployed': {
    when: 'A collection record gets its deployment.',
    data: z.object({ collection_id: id, chain_id: n, contract_address: address, deploy_tx_hash: nullable(hash), title: z.string() }),
  },
  'token.minted': {
    when: "A token's deck records its mint (every mint path).",
    data: z.object({
      collection_id: id,
      chain_id: nullable(n),
      contract_address: nullable(address),
      token_id: n,
      deck_id: id,
      recipient: address,
      tx_hash: hash,
      metadata_uri: nullable(z.string()),
    }),
  },
  'token.purchased': {
    when: 'The platform follows a token of an on-chain Purchase (once per token).',
    data: z.object({
      collection_id: id,
      chain_id: n,
      contract_address: nullable(address),
      token_id: n,
      buyer: address,
      recipient: address,
      tx_hash: hash,
      log_index: n,
      block_number: n,
      choices: z.enum(['none', 'buyer', 'invalid', 'oversized']),
      currency: nullable(address).describe('the zero address for the native currency'),
      amount: nullable(z.string()).describe("the whole purchase's payment, smallest unit"),
      quantity: nullable(n),
      payouts: nullable(z.array(z.object({ address, amount: z.string() }))),
    }),
  },
  'artwork.completed': {
    when: "A token's artwork job completes (once per attempt).",
    data: z.object({
      job_id: id,
      collection_id: nullable(id),
      chain_id: nullable(n),
      contract_address: nullable(address),
      token_id: nullable(n),
      deck_id: nullable(id),
      output_id: nullable(id),
      status: z.literal('completed'),
      url: nullable(z.string()),
      error: z.null(),
    }),
  },
  'artwork.failed': {
    when: "A token's artwork job fails (once per attempt).",
    data: z.object({
      job_id: id,
      collection_id: nullable(id),
      chain_id: nullable(n),
      contract_address: nullable(address),
      token_id: nullable(n),
      deck_id: nullable(id),
      output_id: nullable(id),
      status: z.literal('failed'),
      url: z.null(),
      error: nullable(z.string()),
    }),
  },
  'sample.completed': {
    when: "A sample job completes; the event is the requester's.",
    data: z.object({
      job_id: id,
      collection_id: nullable(id),
      chain_id: nullable(n),
      contract_address: nullable(address),
      token_id: z.null(),
      deck_id: nullable(id),
      output_id: nullable(id),
      status: z.literal('completed'),
      url: nullable(z.string()),
      error: z.null(),
    }),
  },
  'payment.received': {
    when: 'A stablecoin payment is claimed for a mint or samples (once per transaction).',
    data: z.object({
      collection_id: nullable(id),
      chain_id: n,
      tx_hash: hash,
      token_address: address,
      payer: address,
      recipient: address,
      amount: z.string(),
      purpose: z.string(),
      sample_count: nullable(n),
    }),
  },
  'token.transferred': {
    when: 'The indexer commits a Transfer that is not a mint.',
    data: z.object({
      collection_id: nullable(id),
      chain_id: n,
      contract_address: address,
      token_id: z.string(),
      from: address,
      to: address,
      block_number: n,
      tx_hash: hash,
      log_index: n,
    }),
  },
  'collection.revealed': {
    when: "The collection's seed secret is published on chain (docs/fairness.md).",
    data: z.object({
      collection_id: id,
      chain_id: n,
      contract_address: address,
      commitment: hash,
      secret: hash,
      reveal_tx_hash: nullable(hash),
    }),
  },
  'collection.frozen': {
    when: 'The collection\'s metadata is recorded frozen on chain at its bundle (docs/permanence.md "Freezing"; once per collection).',
    data: z.object({
      collection_id: id,
      chain_id: n,
      contract_address: address,
      root_cid: z.string().describe("the bundle's root CID"),
      base_uri: z.string().describe('ipfs://<root>/metadata/'),
      contract_uri: z.string().describe('ipfs://<root>/contract.json'),
      tx_hash: nullable(hash).describe("freezeMetadata()'s transaction when the platform sent it; null when the owner did"),
    }),
  },
  'wallet.low_balance': {
    when: "The platform wallet's balance goes below its threshold (once per crossing; operator subscriptions).",
    data: z.object({ chain_id: n, address, balance_wei: z.string(), threshold_wei: z.string() }),
  },
  'transaction.stuck': {
    when: 'A platform transaction is still unmined TX_STUCK_AFTER_MS after it was queued (operator subscriptions).',
    data: z.object({
      transaction_id: id,
      chain_id: n,
      from: address,
      nonce: nullable(n),
      hash: nullable(hash),
      replaced_hashes: z.array(z.string()),
      purpose: z.string(),
      attempts: n,
      age_seconds: n,
    }),
  },
};

/** The body of a delivery of `type`, as a JSON Schema. */
export function webhookBodySchema(type: WebhookEventType): Record<string, unknown> {
  const body = z.object({
    type: z.literal(type),
    timestamp: z.string().describe('ISO 8601, when the event was written'),
    data: DATA[type].data,
  });
  const { $schema: _drop, ...schema } = z.toJSONSchema(body, { target: 'draft-2020-12' }) as Record<string, unknown>;
  return schema;
}

/** The OpenAPI 3.1 `webhooks` section: a POST to the subscriber's URL per event type. */
export function webhooksSection(): Record<string, unknown> {
  return Object.fromEntries(
    WEBHOOK_EVENTS.map((type) => [
      type,
      {
        post: {
          summary: type,
          description: `${DATA[type].when} Signed with the Standard Webhooks headers webhook-id, webhook-timestamp and webhook-signature (docs/webhooks.md).`,
          tags: ['webhooks'],
          requestBody: { required: true, content: { 'application/json': { schema: webhookBodySchema(type) } } },
          responses: { '200': { description: 'Any 2xx is a delivery; anything else is retried (docs/webhooks.md "Retries").' } },
        },
      },
    ]),
  );
}

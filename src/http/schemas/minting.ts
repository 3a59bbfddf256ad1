/** Minting request and response schemas (nft-service.md §2.5, §4.1, §4.2, §4.3; docs/minting.md), shared by both apps. */
import { z } from 'zod';
import { address, txHash, uuid } from './common.ts';

export const variables = z.record(z.string(), z.unknown());

/** What a public mint adds (docs/minting.md "Mint policy"): the payment and an allowlist proof. */
const publicMintFields = {
  tx_hash: txHash
    .optional()
    .describe('public mints: the stablecoin transfer of mint_price × quantity from the recipient to the payout address'),
  merkle_proof: z
    .array(z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'expected 0x-prefixed 32-byte hex nodes'))
    .max(64)
    .optional()
    .describe("public mints on a Merkle allowlist: the recipient's proof"),
};

export const mintAndGenerateBody = z.object({
  recipient: address,
  variables: variables.default({}),
  chainId: z.number().int().positive().optional(),
  ...publicMintFields,
});

/** One path, two spec bodies (§4.2 backend mint, §4.3 design-stage mint): both are accepted. */
export const mintBody = z
  .object({
    recipient: address.optional(),
    recipient_address: address.optional(),
    chainId: z.number().int().positive().optional(),
    outputId: uuid.optional(),
    quantity: z.number().int().min(1, 'quantity must be 1 to 100').max(100, 'quantity must be 1 to 100').default(1),
    ...publicMintFields,
  })
  .refine((b) => b.recipient || b.recipient_address, { message: 'recipient (or recipient_address) is required', path: ['recipient'] })
  .refine((b) => !b.outputId || b.quantity === 1, { message: 'outputId links one token: quantity must be 1', path: ['outputId'] });

export const regenerateBody = z.object({
  token_id: z.number().int().min(1),
  generation_overrides: variables.default({}),
});

export const deckIdParams = z.object({ deckId: uuid });
export const tokenMintParams = z.object({
  collectionId: uuid,
  tokenId: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
});

const nullableString = z.string().nullable();

export const mintAndGenerateResult = z.object({
  mint: z.object({ tokenId: z.number(), txHash: z.string(), recipient: z.string(), deckId: z.string(), metadataUri: z.string() }),
  generation: z.object({ jobId: z.string(), outputId: z.string(), deckId: z.string(), status: z.literal('generating') }),
});

export const mintResult = z.object({
  tokenId: z.number().describe('the first token minted'),
  txHash: z.string(),
  recipient: z.string(),
  deckId: z.string(),
  metadataUri: z.string(),
  tx_hash: z.string(),
  token_ids: z.array(z.number()),
  deck_ids: z.array(z.string()),
  requested_token_id: z.number().optional().describe('per-token mint: the id the path asked for'),
});

export const mintRecord = z.object({
  id: z.string(),
  token_id: z.number().nullable(),
  mint_tx_hash: nullableString,
  mint_recipient: nullableString,
  mint_status: nullableString,
  minted_at: nullableString,
});

export const mintsList = z.object({ mints: z.array(mintRecord) });

export const artworkStatus = z.enum(['none', 'generating', 'completed', 'failed']);

export const mintStatusResult = z.object({
  deck_id: z.string(),
  collection_id: z.string(),
  token_id: z.number().nullable(),
  mint_status: nullableString,
  mint_tx_hash: nullableString,
  mint_recipient: nullableString,
  minted_at: nullableString,
  metadata_uri: nullableString,
  current_owner: nullableString,
  last_transfer_at: nullableString,
  generation: z.object({
    status: artworkStatus,
    output_id: nullableString,
    job_id: nullableString,
    job_status: nullableString,
    progress: z.number().nullable(),
    image: nullableString,
    error: nullableString,
  }),
});

export const regenerateResult = z.object({
  token_id: z.number(),
  metadata_uri: z.string(),
  asset_uri: z.null().describe('null until the artwork completes (poll the metadata or mint-status)'),
  job_id: z.string(),
  output_id: z.string(),
  deck_id: z.string(),
  status: z.literal('generating'),
});

/** Deployment request and response schemas (nft-service.md §3, §4.1.5, §4.3; docs/chain-operations.md). */
import { z } from 'zod';
import { collectionView, contractParams } from './collections.ts';
import { address, txHash } from './common.ts';

/**
 * deploy-status: the platform's write of a record's deployment state. `deployed` (default) writes
 * back a deployment (checked on chain); `deploying` claims the record for a deployment the admin
 * proxy is about to send (answers `claimed_at`, which names the transaction); `draft` gives that
 * claim back.
 */
export const deployStatusBody = z
  .object({
    status: z.enum(['deployed', 'deploying', 'draft']).default('deployed'),
    contract_address: address.optional(),
    chain_id: z.number().int().positive().optional(),
    deploy_tx_hash: txHash.optional(),
    base_token_uri: z.string().min(1).max(2048).nullable().optional(),
    max_supply: z
      .number()
      .int()
      .min(1)
      .max(2 ** 31 - 1, 'must fit the record (at most 2147483647)')
      .optional()
      .describe('status deployed: the maxSupply the contract was deployed with'),
    claimed_at: z.iso.datetime({ message: 'expected the ISO time of the claim' }).optional(),
  })
  .superRefine((b, ctx) => {
    const required =
      b.status === 'deployed'
        ? (['contract_address', 'chain_id', 'deploy_tx_hash'] as const)
        : b.status === 'draft'
          ? (['claimed_at'] as const)
          : [];
    for (const field of required) {
      if (b[field] === undefined) ctx.addIssue({ code: 'custom', path: [field], message: `required when status is ${b.status}` });
    }
  });

export const deployStatusResult = z.object({
  collection: collectionView,
  contractParams,
  claimed_at: z.string().optional().describe('the claim (status deploying): its time names the deployment transaction'),
  owner_wallet: z
    .string()
    .nullable()
    .optional()
    .describe("the claim (status deploying): the creator's linked wallet, the default owner() of the contract (null: none)"),
});

/** Deploy by collection id: every field optional, defaults from the record (its contractParams). */
export const designDeployFields = z.object({
  max_supply: z
    .number()
    .int()
    .min(1)
    .max(2 ** 31 - 1, 'must fit the record (at most 2147483647)')
    .optional()
    .describe("default: the collection's editions"),
  royalty_bps: z.number().int().min(0).max(10_000).optional().describe('default 0'),
  royalty_receiver: address.optional().describe("default: the contract's owner()"),
  /** The contract's owner(); default the creator's linked wallet, else the platform wallet. */
  owner: address.optional(),
  name: z.string().trim().min(1).max(255).optional().describe('default: contractParams.name (from the title)'),
  symbol: z.string().trim().min(1).max(32).optional().describe('default: contractParams.symbol (from the title)'),
});

/** The body may be left out entirely (Fastify gives null then). */
export const designDeployBody = designDeployFields.nullish().transform((b) => b ?? {});

export const designDeployResult = z.object({
  contract_address: z.string().nullable(),
  tx_hash: z.string().nullable(),
  base_token_uri: z.string().nullable(),
  chain_id: z.number().nullable(),
  collection: collectionView,
});

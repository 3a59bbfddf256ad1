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

export const designDeployBody = z.object({
  max_supply: z
    .number()
    .int()
    .min(1)
    .max(2 ** 40 - 1),
  royalty_bps: z.number().int().min(0).max(10_000),
  royalty_receiver: address,
  /** The contract's owner(); default the creator's linked wallet, else the platform wallet. */
  owner: address.optional(),
});

export const designDeployResult = z.object({
  contract_address: z.string().nullable(),
  tx_hash: z.string().nullable(),
  base_token_uri: z.string().nullable(),
  chain_id: z.number().nullable(),
  collection: collectionView,
});

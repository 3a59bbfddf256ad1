/** Sample request and response schemas (nft-service.md §2.9, §4.1.2, §4.2; docs/minting.md "Samples"), shared by both apps. */
import { z } from 'zod';
import { address, txHash } from './common.ts';

export const samplesBody = z.object({
  count: z
    .number({ message: 'expected an integer from 1 to 10' })
    .int('expected an integer from 1 to 10')
    .min(1, 'count must be 1 to 10')
    .max(10, 'count must be 1 to 10'),
  wallet_address: address,
  chain_id: z.number().int().positive().optional(),
  variables: z.record(z.string(), z.unknown()).optional(),
  tx_hash: txHash.optional(),
});

export const walletQuery = z.object({ wallet_address: address.optional() });

export const sampleStatus = z.enum(['pending', 'completed', 'failed']);

export const startedSample = z.object({ outputId: z.string(), jobId: z.string().nullable(), status: sampleStatus, is_free: z.boolean() });

export const sample = z.object({
  outputId: z.string(),
  jobId: z.string().nullable(),
  url: z.string().nullable(),
  status: sampleStatus,
  is_free: z.boolean(),
  wallet_address: z
    .string()
    .nullable()
    .describe("the requester's wallet: shown to the collection owner, the operator and the requester; null for others"),
  created_at: z.string(),
  traits: z.array(z.unknown()),
});

export const sampleAllowance = z.object({
  free_remaining: z.number(),
  free_limit_per_collection: z.number(),
  paid_count: z.number(),
  compute_cost_per_sample: z.number().describe('stablecoin units per sample'),
  free_used_collection: z.number(),
  free_limit_per_user: z.number(),
  free_used_user: z.number(),
});

/** The backend's §4.2 sample answers: `{success: true, …fields}`, the same fields under `data` (error null) for envelope clients. */
export const successAndEnvelope = <T extends z.ZodRawShape>(shape: T) =>
  z.object({ success: z.literal(true), ...shape, data: z.object(shape), error: z.null() });

/** Sample request and response schemas (docs/api/nft.md §2.9, §4.1.2, §4.2; docs/minting.md "Samples"), shared by both apps. */
import { z } from 'zod';
import { address, txHash } from './common.ts';
import { EXAMPLE_CHAIN, EXAMPLE_ID, EXAMPLE_TIME, EXAMPLE_URL, withExample } from './examples.ts';

export const samplesBody = withExample(
  z.object({
    count: z
      .number({ message: 'expected an integer from 1 to 10' })
      .int('expected an integer from 1 to 10')
      .min(1, 'count must be 1 to 10')
      .max(10, 'count must be 1 to 10'),
    wallet_address: address,
    chain_id: z.number().int().positive().optional(),
    variables: z.record(z.string(), z.unknown()).optional(),
    tx_hash: txHash.optional(),
  }),
  { count: 2, wallet_address: EXAMPLE_CHAIN.collector, variables: { fur: 'silver' } },
);

export const walletQuery = z.object({ wallet_address: address.optional() });

export const sampleStatus = z.enum(['pending', 'completed', 'failed']);

export const startedSample = withExample(
  z.object({ outputId: z.string(), jobId: z.string().nullable(), status: sampleStatus, is_free: z.boolean() }),
  { outputId: EXAMPLE_ID.secondOutput, jobId: EXAMPLE_ID.secondJob, status: 'pending', is_free: true },
);

export const sample = withExample(
  z.object({
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
  }),
  {
    outputId: EXAMPLE_ID.secondOutput,
    jobId: EXAMPLE_ID.secondJob,
    url: EXAMPLE_URL.image.replace(EXAMPLE_ID.job, EXAMPLE_ID.secondJob),
    status: 'completed',
    is_free: true,
    wallet_address: EXAMPLE_CHAIN.collector,
    created_at: EXAMPLE_TIME.updated,
    traits: [
      { trait_type: 'Fur', value: 'Silver' },
      { trait_type: 'Accessory', value: 'Glasses' },
      { trait_type: 'Background', value: 'Aurora' },
    ],
  },
);

// Each field with its example: the answer spreads them beside `success` and again under `data`.
const count = (example: number) => withExample(z.number(), example);
export const sampleAllowance = z.object({
  free_remaining: count(1),
  free_limit_per_collection: count(10),
  paid_count: count(0),
  compute_cost_per_sample: count(1_000_000).describe('stablecoin units per sample'),
  free_used_collection: count(2),
  free_limit_per_user: count(3),
  free_used_user: count(2),
});

/** The backend's §4.2 sample answers: `{success: true, …fields}`, the same fields under `data` (error null) for envelope clients. */
export const successAndEnvelope = <T extends z.ZodRawShape>(shape: T) =>
  z.object({ success: z.literal(true), ...shape, data: z.object(shape), error: z.null() });

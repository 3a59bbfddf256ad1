/** Request and response schemas of generation and jobs (docs/api/content.md §2.4, §4.3; docs/api/nft.md §4.2.1). */
import { z } from 'zod';
import { MAX_PRIORITY, MIN_PRIORITY } from '../../queue/index.ts';
import { address, socialOrg, socialPair, txHash, uuid } from './common.ts';
import { envelope } from './envelope.ts';
import { EXAMPLE_CHAIN, EXAMPLE_ID, EXAMPLE_TIME, EXAMPLE_URL, withExample } from './examples.ts';
import { urlOrPath } from './outputs.ts';

const variables = z.record(z.string(), z.unknown());
const priority = z.number().int().min(MIN_PRIORITY).max(MAX_PRIORITY);
const workflowId = z.string().trim().min(1).max(100);

export const generateBody = withExample(
  z.object({
    variables,
    workflow_id: workflowId.optional(),
    workflow_priority: priority.optional(),
  }),
  { variables: { fur: 'silver', accessory: 'round brass glasses' }, workflow_id: 'procedural', workflow_priority: 50 },
);

const generationsFields = z.object({
  variables: variables.default({}),
  workflow_id: workflowId.optional(),
  workflow_priority: priority.optional(),
  job_type: z
    .string()
    .trim()
    .min(1)
    .max(50)
    .regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _ . - only')
    .optional(),
  social_org: socialOrg.optional(),
  social_identifier: z.string().trim().min(1).max(255).optional(),
  deck_id: uuid.optional(),
  mint_state: z
    .object({
      token_id: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
      tx_hash: txHash.optional(),
      recipient: address.optional(),
      metadata_uri: z.string().trim().min(1).max(2048).optional(),
    })
    .optional()
    .describe('the mint path only: the service key (403 for users)'),
  social_pfp: z.string().trim().max(2048).optional(),
});
const GENERATIONS_EXAMPLE = { variables: { fur: 'arctic white' }, workflow_id: 'procedural', job_type: 'collection_generation' };
/** Every field is optional (docs/api/nft.md §4.2.1): a request without a body generates from the collection's defaults. */
export const generationsBody = generationsFields
  .refine(...socialPair)
  .default({ variables: {} })
  .meta({ example: GENERATIONS_EXAMPLE });
/** POST /api/jobs: the generations body with the collection it generates from. */
export const submitJobBody = generationsFields
  .extend({ collection_id: uuid })
  .refine(...socialPair)
  .meta({ example: { collection_id: EXAMPLE_ID.collection, ...GENERATIONS_EXAMPLE, workflow_priority: 50 } });

export const completeJobBody = withExample(
  z.object({
    outputs: z.unknown().optional(),
    metadata: z.unknown().optional(),
    /** Becomes the output's URL: validated like every output URL: an http(s) URL or a storage path, never `javascript:` or `data:` (docs/security.md). */
    workflow_output: urlOrPath,
  }),
  { workflow_output: EXAMPLE_URL.image, metadata: { renderer: 'comfyui', duration_ms: 11840 } },
);
export const failedJobBody = withExample(
  z.object({ error_message: z.string().max(10_000).optional(), error_details: z.unknown().optional() }).nullish(),
  { error_message: 'ComfyUI did not answer within 300 s', error_details: { node: 'KSampler', attempt: 3 } },
);
// "." and ".." would be dot segments in the admin proxy's forwarded path (another backend route).
const jobId = withExample(
  z
    .string()
    .trim()
    .min(1)
    .max(200)
    .refine((v) => v !== '.' && v !== '..', '"." and ".." are not job ids'),
  EXAMPLE_ID.job,
);
export const jobParams = z.object({ id: jobId });
export const forensicsParams = z.object({ jobId });
/** `{jobId}` of the admin proxy's job routes. */
export const jobIdParams = forensicsParams;
export const streamQuery = z.object({ lastEventId: z.string().regex(/^\d+$/, 'expected a history id').optional() });

const jobRecord = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  status: z.string(),
  progress: z.number().nullable(),
  error_message: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  started_at: z.string().nullable(),
  completed_at: z.string().nullable(),
  job_type: z.string(),
  priority: z.number().int(),
  workflow_id: z.string().nullable(),
  workflow_output: z.string().nullable(),
  retry_count: z.number().int(),
  data: z.record(z.string(), z.unknown()),
  user_id: z.string().nullable(),
  collection_id: z.string().nullable(),
  output_id: z.string().nullable(),
});

const TRAITS = [
  { trait_type: 'Fur', value: 'Russet' },
  { trait_type: 'Accessory', value: 'Scarf' },
  { trait_type: 'Background', value: 'Aurora' },
];
/** Token 1's generation, completed. */
const JOB_EXAMPLE: z.output<typeof jobRecord> = {
  id: EXAMPLE_ID.job,
  name: 'Night Foxes',
  description: `mint_generation of collection ${EXAMPLE_ID.collection}`,
  status: 'completed',
  progress: 100,
  error_message: null,
  created_at: EXAMPLE_TIME.minted,
  updated_at: EXAMPLE_TIME.completed,
  started_at: EXAMPLE_TIME.minted,
  completed_at: EXAMPLE_TIME.completed,
  job_type: 'mint_generation',
  priority: 50,
  workflow_id: EXAMPLE_ID.workflow,
  workflow_output: EXAMPLE_URL.image,
  retry_count: 0,
  data: {
    seed: 3482353384,
    source: 'direct_api',
    collectionId: EXAMPLE_ID.collection,
    deckId: EXAMPLE_ID.deck,
    outputId: EXAMPLE_ID.output,
    variables: { fur: 'russet', accessory: 'a knitted scarf', background: 'a green aurora over snow' },
    traits: TRAITS,
    mintState: { token_id: 1, tx_hash: EXAMPLE_CHAIN.mintTx, recipient: EXAMPLE_CHAIN.collector, metadata_uri: EXAMPLE_URL.token },
  },
  user_id: EXAMPLE_ID.user,
  collection_id: EXAMPLE_ID.collection,
  output_id: EXAMPLE_ID.output,
};
export const job = jobRecord.meta({ example: JOB_EXAMPLE });

const history = z.object({
  id: z.number().int(),
  job_id: z.string(),
  status: z.string(),
  message: z.string(),
  progress: z.number().nullable(),
  data: z.unknown(),
  created_at: z.string(),
});

export const jobResponse = envelope(job);
export const generateResponse = envelope(withExample(z.object({ jobId: z.string() }), { jobId: EXAMPLE_ID.secondJob }));
export const generationsResponse = envelope(
  withExample(z.object({ jobId: z.string(), outputId: z.string(), deckId: z.string() }), {
    jobId: EXAMPLE_ID.secondJob,
    outputId: EXAMPLE_ID.secondOutput,
    deckId: EXAMPLE_ID.secondDeck,
  }),
);
/** The admin proxy's retry answer (`{success: true, …}`): the same fields, each with its example. */
export const adminRetryFields = {
  jobId: withExample(z.string(), EXAMPLE_ID.job),
  retryAttempt: withExample(z.number().int(), 1),
  message: withExample(z.string(), 'retry 1 of 3 queued'),
};
export const retryResponse = envelope(
  withExample(z.object({ jobId: z.string(), retryAttempt: z.number().int(), message: z.string() }), {
    jobId: EXAMPLE_ID.job,
    retryAttempt: 1,
    message: 'retry 1 of 3 queued',
  }),
);
const STEP_PAYLOAD = { seed: 403363684, prompt: 'portrait of a russet fox wearing a knitted scarf, a green aurora over snow behind it' };
export const forensicsResponse = envelope(
  withExample(
    jobRecord.extend({
      payload: z.looseObject({
        _flat_files: z.array(
          z.object({
            id: z.number().int(),
            url: z.string(),
            mime_type: z.string(),
            stream_asset_id: z.string().nullable(),
            stream_playback_id: z.string().nullable(),
          }),
        ),
      }),
      steps: z.array(z.looseObject({ id: z.string(), step_order: z.number().int(), status: z.string() })),
      history: z.array(history),
      retry_backups: z.array(z.looseObject({ retry_attempt: z.number().int(), backed_up_at: z.string() })),
    }),
    {
      ...JOB_EXAMPLE,
      payload: {
        ...JOB_EXAMPLE.data,
        _flat_files: [{ id: 7, url: EXAMPLE_URL.image, mime_type: 'image/png', stream_asset_id: null, stream_playback_id: null }],
      },
      steps: [
        {
          id: '15feb0cd-1533-4a15-a616-dce935a22260',
          step_order: 0,
          status: 'completed',
          step_name: 'image',
          step_type: 'basic',
          input_data: { type: 'basic', jobId: EXAMPLE_ID.job, payload: STEP_PAYLOAD },
        },
      ],
      history: [
        {
          id: 41,
          job_id: EXAMPLE_ID.job,
          status: 'pending',
          message: 'job queued',
          progress: 0,
          data: null,
          created_at: EXAMPLE_TIME.minted,
        },
        {
          id: 42,
          job_id: EXAMPLE_ID.job,
          status: 'processing',
          message: 'step 1/1 started: image',
          progress: 0,
          data: { event: 'node_started' },
          created_at: EXAMPLE_TIME.minted,
        },
        {
          id: 43,
          job_id: EXAMPLE_ID.job,
          status: 'completed',
          message: 'job completed',
          progress: 100,
          data: { event: 'complete' },
          created_at: EXAMPLE_TIME.completed,
        },
      ],
      retry_backups: [],
    },
  ),
);
export const creditsResponse = envelope(
  withExample(z.object({ user_id: z.string(), balance: z.number().int(), cost_per_generation: z.number().int() }), {
    user_id: EXAMPLE_ID.user,
    balance: 97,
    cost_per_generation: 1,
  }),
);

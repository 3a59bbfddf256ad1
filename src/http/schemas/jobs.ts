/** Request and response schemas of generation and jobs (content-service.md §2.4, §4.3; nft-service.md §4.2.1). */
import { z } from 'zod';
import { MAX_PRIORITY, MIN_PRIORITY } from '../../queue/index.ts';
import { address, socialOrg, socialPair, txHash, uuid } from './common.ts';
import { envelope } from './envelope.ts';
import { urlOrPath } from './outputs.ts';

const variables = z.record(z.string(), z.unknown());
const priority = z.number().int().min(MIN_PRIORITY).max(MAX_PRIORITY);
const workflowId = z.string().trim().min(1).max(100);

export const generateBody = z.object({
  variables,
  workflow_id: workflowId.optional(),
  workflow_priority: priority.optional(),
});

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
export const generationsBody = generationsFields.refine(...socialPair);
/** POST /api/jobs: the generations body with the collection it generates from. */
export const submitJobBody = generationsFields.extend({ collection_id: uuid }).refine(...socialPair);

export const completeJobBody = z.object({
  outputs: z.unknown().optional(),
  metadata: z.unknown().optional(),
  /** Becomes the output's URL: validated like every output URL (issue 13, item 7). */
  workflow_output: urlOrPath,
});
export const failedJobBody = z
  .object({ error_message: z.string().max(10_000).optional(), error_details: z.unknown().optional() })
  .nullish();
export const jobParams = z.object({ id: z.string().trim().min(1).max(200) });
export const forensicsParams = z.object({ jobId: z.string().trim().min(1).max(200) });
export const streamQuery = z.object({ lastEventId: z.string().regex(/^\d+$/, 'expected a history id').optional() });

export const job = z.object({
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
export const generateResponse = envelope(z.object({ jobId: z.string() }));
export const generationsResponse = envelope(z.object({ jobId: z.string(), outputId: z.string(), deckId: z.string() }));
export const retryResponse = envelope(z.object({ jobId: z.string(), retryAttempt: z.number().int(), message: z.string() }));
export const forensicsResponse = envelope(
  job.extend({
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
);
export const creditsResponse = envelope(
  z.object({ user_id: z.string(), balance: z.number().int(), cost_per_generation: z.number().int() }),
);

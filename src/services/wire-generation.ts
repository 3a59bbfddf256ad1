/**
 * The wiring of the generation service (services/generation.ts, docs/jobs.md): its ports bound to
 * src/db, the job queue and the configured credits.
 */
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { addCredits } from '../db/credits.ts';
import { getDeckWithOwners } from '../db/decks.ts';
import { insertGenerationRows } from '../db/generation-rows.ts';
import { resetForRetry } from '../db/job-events.ts';
import { findJob, historyAfter } from '../db/jobs.ts';
import { failOutput } from '../db/outputs.ts';
import { upsertSocialLink } from '../db/social-links.ts';
import type { Caller } from '../domain/policy.ts';
import { applyJobEvent } from '../generation/job-store.ts';
import { submitStep } from '../generation/steps.ts';
import type { StepPayload } from '../generation/pipeline.ts';
import type { WorkQueue } from '../queue/index.ts';
import type { Storage } from '../storage/types.ts';
import { createGenerationService, type GenerationService, type StartGenerationInput, type StartGenerationResult } from './generation.ts';
import { catalogOn } from './wire-catalog.ts';

/** What the generation service reads from the configuration: the credits and the stuck-step age. */
export type GenerationSettings = Pick<Config, 'CREDITS_PER_GENERATION' | 'CREDITS_INITIAL_GRANT' | 'JOB_STALE_STEP_MS'>;

/** What the real ports are built from; BackendDeps and the minting routes both provide it. */
export interface GenerationContext {
  db: Db;
  config: GenerationSettings;
  queue: WorkQueue<StepPayload>;
  storage?: Storage;
  /** Base of the public token documents (external_url of a minted token's metadata). */
  metadataBaseUrl?: string;
}

/** The service on the database, the configured credits and the queue. */
export function generationServiceOn(ctx: GenerationContext): GenerationService {
  const { db, config, queue } = ctx;
  const catalog = catalogOn(db);
  return createGenerationService({
    collections: { get: (id, fresh) => catalog.collection(id, fresh) },
    workflows: { find: (idOrName, fresh) => catalog.workflow(idOrName, fresh) },
    decks: { get: (id) => getDeckWithOwners(db, id) },
    credits: { refund: async (userId, amount) => void (await addCredits(db, userId, amount, config.CREDITS_INITIAL_GRANT)) },
    socialLinks: { upsert: (org, identifier) => upsertSocialLink(db, org, identifier) },
    rows: { insert: (rows) => insertGenerationRows(db, rows) },
    queue,
    jobs: {
      find: (id) => findJob(db, id),
      failSubmission: async (jobId, outputId, message) => {
        await applyJobEvent(db, jobId, { type: 'error', message, source: 'worker' });
        await failOutput(db, outputId, message).catch(() => undefined);
      },
      history: (jobId) => historyAfter(db, jobId, 0, 10_000),
      resetForRetry: (statement) => resetForRetry(db, statement),
      submitStep: (job, order, attempt) => submitStep({ db, queue }, job, order, attempt),
    },
    settings: {
      creditsPerGeneration: config.CREDITS_PER_GENERATION,
      creditsInitialGrant: config.CREDITS_INITIAL_GRANT,
      stuckAfterMs: config.JOB_STALE_STEP_MS,
      ...(ctx.metadataBaseUrl ? { metadataBaseUrl: ctx.metadataBaseUrl } : {}),
    },
  });
}

/**
 * One generation for a caller that has already authorized the request (minting, samples): the
 * caller is the operator when `isService`, else the user `userId`.
 */
export function startGeneration(ctx: GenerationContext, input: StartGenerationInput): Promise<StartGenerationResult> {
  const { userId, isService, ...request } = input;
  const caller: Caller = isService ? { kind: 'service', userId } : userId ? { kind: 'user', userId } : { kind: 'anonymous' };
  return generationServiceOn(ctx).start(caller, request);
}

/**
 * Submitting a step: its row (jobs of several steps; a one-step job is its own step, docs/jobs.md
 * "One-step jobs"), then its queue job. Both are idempotent (the row is created unless
 * it exists; the same queue id is one queue job), so a step submitted twice (a re-delivered
 * previous step, a retry racing a reconciler) runs once.
 */
import type { Db } from '../db/client.ts';
import { ensureStep } from '../db/jobs.ts';
import type { WorkQueue } from '../queue/index.ts';
import { currentTraceCarrier } from '../telemetry.ts';
import { buildStepPayload, hasStepRows, queueJobId, queueOptions, type JobForStep, type StepPayload } from './pipeline.ts';

export interface StepContext {
  db: Db;
  queue: WorkQueue<StepPayload>;
}

/** Creates the step row and queues it. */
export async function submitStep(ctx: StepContext, job: JobForStep, stepOrder: number, retryAttempt: number): Promise<void> {
  // The active span (job.process of the previous step, or the retry's) is this step's parent.
  const trace = currentTraceCarrier();
  const payload: StepPayload = { ...buildStepPayload(job, stepOrder, retryAttempt), ...(trace ? { trace } : {}) };
  const id = queueJobId(job.id, stepOrder, retryAttempt);
  if (hasStepRows(payload.totalSteps))
    await ensureStep(ctx.db, {
      jobId: job.id,
      stepName: payload.payload.nodeName,
      stepType: payload.type,
      stepOrder,
      retryAttempt,
      queueJobId: id,
      input: payload as unknown as Record<string, unknown>,
    });
  await ctx.queue.add(id, payload, queueOptions(payload));
}

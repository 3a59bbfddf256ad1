/**
 * The one place that applies generator events to a job, its steps and its history
 * (content-service.md §3 Job, §6.2). Used by the worker (in-process or `atelier worker`), by the
 * failsafe routes (POST /api/jobs/:id/complete|failed) and by the stale-step reconciler.
 *
 * Every state change is a conditional UPDATE, so a re-delivered step (a crashed worker's job
 * taken up again) or a late failsafe call never applies twice: `complete` is applied once (the
 * UPDATE matches only a job that is not completed yet) and writes exactly one `completed` history
 * entry. A history entry is written in the same transaction as the change it records, so a reader
 * that sees the job's new status also sees its history entry (the SSE stream relies on it).
 */
import { and, eq, inArray, ne, notInArray, or, isNull, lt, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { jobHistory, jobSteps, jobs } from '../db/schema.ts';
import type { JobRow } from '../db/jobs.ts';

export type JobEvent =
  | { type: 'node_started'; stepOrder: number; retryAttempt: number; totalSteps: number; stepName: string; queueJobId?: string }
  | { type: 'node_progress'; stepOrder: number; retryAttempt: number; totalSteps: number; progress: number; message?: string }
  | {
      type: 'node_completed';
      stepOrder: number;
      retryAttempt: number;
      totalSteps: number;
      stepName: string;
      output: Record<string, unknown>;
    }
  | { type: 'complete'; workflowOutput: string; outputs?: unknown; metadata?: unknown; source: 'worker' | 'failsafe' }
  | {
      type: 'error';
      message: string;
      details?: unknown;
      stepOrder?: number;
      retryAttempt?: number;
      /** Failsafe: any state → failed (also a completed job). Otherwise only open jobs fail. */
      force?: boolean;
      source: 'worker' | 'failsafe' | 'reconciler';
    };

export interface ApplyOptions {
  /** Delays between the attempts of a step-completion write (spec: 1 s, 2 s, 4 s). */
  stepWriteBackoffMs?: readonly number[];
  sleep?: (ms: number) => Promise<void>;
}

export const STEP_WRITE_BACKOFF_MS = [1000, 2000, 4000] as const;

export interface ApplyResult {
  /** False when the event changed nothing (job already finished, duplicate delivery, ...). */
  applied: boolean;
  job?: JobRow;
}

const OPEN = ['pending', 'processing'];
const sleepMs = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const round1 = (n: number) => Math.round(n * 10) / 10;

/** Overall job progress from the current step's own 0–100. */
export function overallProgress(stepOrder: number, totalSteps: number, stepPct: number): number {
  const p = ((stepOrder + Math.max(0, Math.min(100, stepPct)) / 100) / Math.max(1, totalSteps)) * 100;
  return round1(Math.min(100, p));
}

export async function applyJobEvent(db: Db, jobId: string, event: JobEvent, opts: ApplyOptions = {}): Promise<ApplyResult> {
  switch (event.type) {
    case 'node_started':
      return db.transaction(async (tx) => {
        const [job] = await tx
          .update(jobs)
          .set({ status: 'processing', started_at: sql`coalesce(${jobs.started_at}, now())`, updated_at: sql`now()` })
          .where(and(eq(jobs.id, jobId), inArray(jobs.status, OPEN), eq(jobs.retry_count, event.retryAttempt)))
          .returning();
        if (!job) return { applied: false };
        const set: Record<string, unknown> = { status: 'processing', started_at: sql`coalesce(${jobSteps.started_at}, now())`, updated_at: sql`now()` };
        if (event.queueJobId) set.queue_job_id = event.queueJobId;
        await tx.update(jobSteps).set(set).where(and(stepWhere(jobId, event.stepOrder, event.retryAttempt), inArray(jobSteps.status, OPEN)));
        await tx.insert(jobHistory).values({
          job_id: jobId,
          status: 'processing',
          message: `step ${event.stepOrder + 1}/${event.totalSteps} started: ${event.stepName}`,
          progress: job.progress,
          data: { event: 'node_started', step_order: event.stepOrder, retry_attempt: event.retryAttempt },
        });
        return { applied: true, job };
      });

    case 'node_progress': {
      const progress = overallProgress(event.stepOrder, event.totalSteps, event.progress);
      return db.transaction(async (tx) => {
        // Progress never goes backwards (a re-delivered step starts again from 0 for its own part).
        const [job] = await tx
          .update(jobs)
          .set({ progress, updated_at: sql`now()` })
          .where(
            and(
              eq(jobs.id, jobId),
              eq(jobs.status, 'processing'),
              eq(jobs.retry_count, event.retryAttempt),
              or(isNull(jobs.progress), lt(jobs.progress, progress)),
            ),
          )
          .returning();
        if (!job) return { applied: false };
        await tx
          .update(jobSteps)
          .set({ updated_at: sql`now()` })
          .where(stepWhere(jobId, event.stepOrder, event.retryAttempt));
        await tx.insert(jobHistory).values({
          job_id: jobId,
          status: 'processing',
          message: event.message ? `step ${event.stepOrder + 1}/${event.totalSteps}: ${event.message}` : `progress ${progress}%`,
          progress,
          data: { event: 'node_progress', step_order: event.stepOrder, step_progress: event.progress },
        });
        return { applied: true, job };
      });
    }

    case 'node_completed':
      return completeStepWithRetry(db, jobId, event, opts);

    case 'complete':
      return db.transaction(async (tx) => {
        const set: Record<string, unknown> = {
          status: 'completed',
          progress: 100,
          workflow_output: event.workflowOutput,
          error_message: null,
          completed_at: sql`now()`,
          updated_at: sql`now()`,
        };
        const extra: Record<string, unknown> = {};
        if (event.outputs !== undefined) extra.outputs = event.outputs;
        if (event.metadata !== undefined) extra.metadata = event.metadata;
        if (Object.keys(extra).length > 0) set.data = sql`${jobs.data} || ${JSON.stringify(extra)}::jsonb`;
        const [job] = await tx.update(jobs).set(set).where(and(eq(jobs.id, jobId), ne(jobs.status, 'completed'))).returning();
        if (!job) return { applied: false };
        await tx.insert(jobHistory).values({
          job_id: jobId,
          status: 'completed',
          message: event.source === 'failsafe' ? 'job completed (failsafe)' : 'job completed',
          progress: 100,
          data: { event: 'complete', workflow_output: event.workflowOutput },
        });
        return { applied: true, job };
      });

    case 'error':
      return db.transaction(async (tx) => {
        const cond = event.force ? ne(jobs.status, 'failed') : notInArray(jobs.status, ['completed', 'failed']);
        const [job] = await tx
          .update(jobs)
          .set({ status: 'failed', error_message: event.message.slice(0, 10_000), updated_at: sql`now()`, completed_at: null })
          .where(and(eq(jobs.id, jobId), cond))
          .returning();
        if (!job) return { applied: false };
        if (event.stepOrder !== undefined && event.retryAttempt !== undefined) {
          await tx
            .update(jobSteps)
            .set({ status: 'failed', error_message: event.message.slice(0, 10_000), updated_at: sql`now()` })
            .where(and(stepWhere(jobId, event.stepOrder, event.retryAttempt), ne(jobSteps.status, 'completed')));
        } else {
          // A failsafe or reconciler failure closes the open steps of the current attempt.
          await tx
            .update(jobSteps)
            .set({ status: 'failed', error_message: event.message.slice(0, 10_000), updated_at: sql`now()` })
            .where(and(eq(jobSteps.job_id, jobId), eq(jobSteps.retry_attempt, job.retry_count), inArray(jobSteps.status, OPEN)));
        }
        await tx.insert(jobHistory).values({
          job_id: jobId,
          status: 'failed',
          message: event.message.slice(0, 2000),
          progress: job.progress,
          data: { event: 'error', source: event.source, ...(event.details !== undefined ? { details: event.details } : {}) },
        });
        return { applied: true, job };
      });
  }
}

function stepWhere(jobId: string, stepOrder: number, retryAttempt: number) {
  return and(eq(jobSteps.job_id, jobId), eq(jobSteps.step_order, stepOrder), eq(jobSteps.retry_attempt, retryAttempt));
}

/**
 * Step completion (content-service.md §8): the write is tried up to 3 more times with 1 s, 2 s and
 * 4 s backoff when it throws, and verified after it succeeds (the step row is read back and must
 * say completed). Idempotent: a step already completed counts as done and adds no history.
 */
async function completeStepWithRetry(
  db: Db,
  jobId: string,
  event: Extract<JobEvent, { type: 'node_completed' }>,
  opts: ApplyOptions,
): Promise<ApplyResult> {
  const backoff = opts.stepWriteBackoffMs ?? STEP_WRITE_BACKOFF_MS;
  const sleep = opts.sleep ?? sleepMs;
  let lastError: unknown;
  for (let attempt = 0; attempt <= backoff.length; attempt++) {
    if (attempt > 0) await sleep(backoff[attempt - 1]!);
    try {
      const applied = await db.transaction(async (tx) => {
        const [step] = await tx
          .update(jobSteps)
          .set({ status: 'completed', output_data: event.output, completed_at: sql`now()`, updated_at: sql`now()`, error_message: null })
          .where(and(stepWhere(jobId, event.stepOrder, event.retryAttempt), ne(jobSteps.status, 'completed')))
          .returning({ id: jobSteps.id });
        if (!step) return false;
        const progress = overallProgress(event.stepOrder, event.totalSteps, 100);
        await tx
          .update(jobs)
          .set({ progress: sql`greatest(coalesce(${jobs.progress}, 0), ${progress})`, updated_at: sql`now()` })
          .where(and(eq(jobs.id, jobId), inArray(jobs.status, OPEN)));
        await tx.insert(jobHistory).values({
          job_id: jobId,
          status: 'processing',
          message: `step ${event.stepOrder + 1}/${event.totalSteps} completed: ${event.stepName}`,
          progress,
          data: { event: 'node_completed', step_order: event.stepOrder, retry_attempt: event.retryAttempt },
        });
        return true;
      });
      // Verify: read the row back.
      const [row] = await db
        .select({ status: jobSteps.status })
        .from(jobSteps)
        .where(stepWhere(jobId, event.stepOrder, event.retryAttempt));
      if (row?.status === 'completed') return { applied };
      lastError = new Error(`step ${event.stepOrder} of job ${jobId} is ${row?.status ?? 'missing'} after its completion write`);
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError instanceof Error ? lastError : new Error(String(lastError));
}

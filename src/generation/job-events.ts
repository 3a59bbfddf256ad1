/**
 * The one place that applies generator events to a job, its steps and its history
 * (content-service.md §3 Job, §6.2). Used by the worker (in-process or `atelier worker`), by the
 * failsafe routes (POST /api/jobs/:id/complete|failed) and by the stale-step reconciler.
 *
 * Every state change is a conditional UPDATE, so a re-delivered step (a crashed worker's job
 * taken up again) or a late failsafe call never applies twice: `complete` is applied once (the
 * UPDATE matches only a job that is not completed yet) and writes exactly one `completed` history
 * entry. A history entry is written in the same statement (data-modifying CTEs) or transaction as
 * the change it records, so a reader that sees the job's new status also sees its history entry
 * (the SSE stream relies on it). One statement per event keeps the worker to one round trip each.
 */
import { and, eq, inArray, ne, notInArray, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { jobHistory, jobSteps, jobs } from '../db/schema/index.ts';
import type { JobRow } from '../db/jobs.ts';

export type JobEvent =
  | {
      type: 'node_started';
      stepOrder: number;
      retryAttempt: number;
      totalSteps: number;
      stepName: string;
      queueJobId?: string;
      /** The output to move from pending to processing with the job (the first step). */
      outputId?: string;
    }
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
  /** The job after an `error` event. */
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
    case 'node_started': {
      // One statement (atomic on its own): job, step, the output (first step) and the history entry.
      const rows = await run(
        db,
        sql`with j as (
              update jobs set status = 'processing', started_at = coalesce(started_at, now()), updated_at = now()
              where id = ${jobId} and status in ('pending', 'processing') and retry_count = ${event.retryAttempt}
              returning id, progress),
            s as (
              update job_steps set status = 'processing', started_at = coalesce(started_at, now()), updated_at = now(),
                queue_job_id = coalesce(${event.queueJobId ?? null}::text, queue_job_id)
              where job_id = ${jobId} and step_order = ${event.stepOrder} and retry_attempt = ${event.retryAttempt}
                and status in ('pending', 'processing') and exists (select 1 from j)),
            o as (
              update outputs set status = 'processing', updated_at = now()
              where id = ${event.outputId ?? null}::uuid and status = 'pending' and exists (select 1 from j)),
            h as (
              insert into job_history (job_id, status, message, progress, data)
              select id, 'processing', ${`step ${event.stepOrder + 1}/${event.totalSteps} started: ${event.stepName}`}, progress,
                ${JSON.stringify({ event: 'node_started', step_order: event.stepOrder, retry_attempt: event.retryAttempt })}::jsonb
              from j)
            select count(*)::int as n from j`,
      );
      return { applied: Number(rows[0]?.n) > 0 };
    }

    case 'node_progress': {
      const progress = overallProgress(event.stepOrder, event.totalSteps, event.progress);
      // Progress never goes backwards (a re-delivered step starts again from 0 for its own part).
      const rows = await run(
        db,
        sql`with j as (
              update jobs set progress = ${progress}, updated_at = now()
              where id = ${jobId} and status = 'processing' and retry_count = ${event.retryAttempt}
                and (progress is null or progress < ${progress})
              returning id),
            s as (
              update job_steps set updated_at = now()
              where job_id = ${jobId} and step_order = ${event.stepOrder} and retry_attempt = ${event.retryAttempt}
                and exists (select 1 from j)),
            h as (
              insert into job_history (job_id, status, message, progress, data)
              select id, 'processing', ${event.message ? `step ${event.stepOrder + 1}/${event.totalSteps}: ${event.message}` : `progress ${progress}%`},
                ${progress}::real, ${JSON.stringify({ event: 'node_progress', step_order: event.stepOrder, step_progress: event.progress })}::jsonb
              from j)
            select count(*)::int as n from j`,
      );
      return { applied: Number(rows[0]?.n) > 0 };
    }

    case 'node_completed':
      return completeStepWithRetry(db, jobId, event, opts);

    case 'complete': {
      const extra: Record<string, unknown> = {};
      if (event.outputs !== undefined) extra.outputs = event.outputs;
      if (event.metadata !== undefined) extra.metadata = event.metadata;
      const data = Object.keys(extra).length > 0 ? sql`data || ${JSON.stringify(extra)}::jsonb` : sql`data`;
      // The job update matches only a job not completed yet: applied (and recorded) exactly once.
      const rows = await run(
        db,
        sql`with j as (
              update jobs set status = 'completed', progress = 100, workflow_output = ${event.workflowOutput}, error_message = null,
                completed_at = now(), updated_at = now(), data = ${data}
              where id = ${jobId} and status <> 'completed'
              returning id),
            h as (
              insert into job_history (job_id, status, message, progress, data)
              select id, 'completed', ${event.source === 'failsafe' ? 'job completed (failsafe)' : 'job completed'}, 100,
                ${JSON.stringify({ event: 'complete', workflow_output: event.workflowOutput })}::jsonb
              from j)
            select count(*)::int as n from j`,
      );
      return { applied: Number(rows[0]?.n) > 0 };
    }

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

/** Rows of a raw statement (node-postgres and PGlite both answer `{rows}`). */
async function run(db: Db, query: SQL): Promise<Array<Record<string, unknown>>> {
  const result = (await db.execute(query)) as unknown as { rows: Array<Record<string, unknown>> };
  return result.rows;
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
      // Kept in a transaction of its own: a failure to begin or commit counts as a failed write.
      const progress = overallProgress(event.stepOrder, event.totalSteps, 100);
      const applied = await db.transaction(async (tx) => {
        const rows = await run(
          tx as unknown as Db,
          sql`with s as (
                update job_steps set status = 'completed', output_data = ${JSON.stringify(event.output)}::jsonb, completed_at = now(),
                  updated_at = now(), error_message = null
                where job_id = ${jobId} and step_order = ${event.stepOrder} and retry_attempt = ${event.retryAttempt} and status <> 'completed'
                returning job_id),
              j as (
                update jobs set progress = greatest(coalesce(progress, 0), ${progress}::real), updated_at = now()
                where id = ${jobId} and status in ('pending', 'processing') and exists (select 1 from s)),
              h as (
                insert into job_history (job_id, status, message, progress, data)
                select job_id, 'processing', ${`step ${event.stepOrder + 1}/${event.totalSteps} completed: ${event.stepName}`}, ${progress}::real,
                  ${JSON.stringify({ event: 'node_completed', step_order: event.stepOrder, retry_attempt: event.retryAttempt })}::jsonb
                from s)
              select count(*)::int as n from s`,
        );
        return Number(rows[0]?.n) > 0;
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

/**
 * The single owner of job state (docs/api/content.md §3 Job, §6.2): which generator event moves a
 * job, its steps and its output from which states to which, what each history entry says, and
 * when a job may be retried. Used by the worker (in-process or `atelier worker`), the failsafe
 * routes (POST /api/jobs/:id/complete|failed), the reconciler and the retry use case.
 *
 * The rules are pure (`planJobEvent`, `planClaim`, `planLastStep`, `planRetry`, `retryRefusal`);
 * the statements they emit and the job record they read are this planner's types, in
 * src/domain/ports/job-statements.ts, which src/db/job-events.ts and src/db/step-runs.ts run.
 * `applyEvent` and `finishWithRetry` apply them through the `JobEventStore` port; its database
 * binding is src/generation/job-store.ts. Invariants: each change is conditional, so a
 * re-delivered step or a late failsafe never applies twice; `complete` is applied once and writes
 * exactly one `completed` history entry.
 */
import { conflict, type AppError } from '../domain/errors.ts';
import type {
  ClaimStatement,
  CompletionStatement,
  FailureStatement,
  JobRecord,
  LastStepResult,
  LastStepStatement,
  ProgressStatement,
  RetryStatement,
  StartStatement,
  StepCompletionStatement,
} from '../domain/ports/job-statements.ts';
import { storableText } from '../domain/text.ts';
import { oneStepRow, type AttemptHistory } from './one-step.ts';
import { hasStepRows, MAX_JOB_RETRIES, RETRY_LIMIT_MESSAGE } from './pipeline.ts';

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
      /** Which worker process started the step (host:pid), kept in the history for forensics across workers. */
      worker?: string;
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

/** Job, step and output states. */
export const OPEN: readonly string[] = ['pending', 'processing'];
export const TERMINAL: readonly string[] = ['completed', 'failed'];

const round1 = (n: number) => Math.round(n * 10) / 10;

/** Overall job progress from the current step's own 0–100. */
export function overallProgress(stepOrder: number, totalSteps: number, stepPct: number): number {
  const p = ((stepOrder + Math.max(0, Math.min(100, stepPct)) / 100) / Math.max(1, totalSteps)) * 100;
  return round1(Math.min(100, p));
}

export type JobStatement =
  | { kind: 'start'; statement: StartStatement }
  | { kind: 'progress'; statement: ProgressStatement }
  | { kind: 'step_completed'; statement: StepCompletionStatement }
  | { kind: 'complete'; statement: CompletionStatement }
  | { kind: 'fail'; statement: FailureStatement };

/** The rules: what each event changes, from which states, and its history entry. */
export function planJobEvent(jobId: string, event: JobEvent): JobStatement {
  switch (event.type) {
    case 'node_started':
      return {
        kind: 'start',
        statement: {
          jobId,
          stepOrder: event.stepOrder,
          retryAttempt: event.retryAttempt,
          queueJobId: event.queueJobId ?? null,
          outputId: event.outputId ?? null,
          jobFrom: OPEN,
          stepFrom: OPEN,
          outputFrom: 'pending',
          to: 'processing',
          history: {
            status: 'processing',
            message: `step ${event.stepOrder + 1}/${event.totalSteps} started: ${event.stepName}`,
            data: {
              event: 'node_started',
              step_order: event.stepOrder,
              retry_attempt: event.retryAttempt,
              ...(event.worker ? { worker: event.worker } : {}),
            },
          },
        },
      };
    case 'node_progress': {
      const progress = overallProgress(event.stepOrder, event.totalSteps, event.progress);
      return {
        kind: 'progress',
        statement: {
          jobId,
          stepOrder: event.stepOrder,
          retryAttempt: event.retryAttempt,
          jobIn: 'processing',
          progress,
          history: {
            status: 'processing',
            message: event.message
              ? `step ${event.stepOrder + 1}/${event.totalSteps}: ${storableText(event.message)}`
              : `progress ${progress}%`,
            data: { event: 'node_progress', step_order: event.stepOrder, step_progress: event.progress },
          },
        },
      };
    }
    case 'node_completed':
      return {
        kind: 'step_completed',
        statement: {
          jobId,
          stepOrder: event.stepOrder,
          retryAttempt: event.retryAttempt,
          to: 'completed',
          output: event.output,
          jobIn: OPEN,
          progress: overallProgress(event.stepOrder, event.totalSteps, 100),
          history: {
            status: 'processing',
            message: `step ${event.stepOrder + 1}/${event.totalSteps} completed: ${event.stepName}`,
            data: { event: 'node_completed', step_order: event.stepOrder, retry_attempt: event.retryAttempt },
          },
        },
      };
    case 'complete': {
      const data: Record<string, unknown> = {};
      if (event.outputs !== undefined) data.outputs = event.outputs;
      if (event.metadata !== undefined) data.metadata = event.metadata;
      return {
        kind: 'complete',
        statement: {
          jobId,
          to: 'completed',
          workflowOutput: event.workflowOutput,
          data,
          history: {
            status: 'completed',
            message: event.source === 'failsafe' ? 'job completed (failsafe)' : 'job completed',
            data: { event: 'complete', workflow_output: event.workflowOutput },
          },
        },
      };
    }
    case 'error':
      return {
        kind: 'fail',
        statement: {
          jobId,
          to: 'failed',
          // A failsafe fails any job (a completed one too); the others only open jobs.
          jobNotIn: event.force ? ['failed'] : TERMINAL,
          message: storableText(event.message).slice(0, 10_000),
          // The step that failed; a failsafe or reconciler failure closes the current attempt's open steps.
          step:
            event.stepOrder !== undefined && event.retryAttempt !== undefined
              ? { order: event.stepOrder, retryAttempt: event.retryAttempt, notIn: ['completed'] }
              : { openIn: OPEN },
          history: {
            status: 'failed',
            message: storableText(event.message).slice(0, 2000),
            data: { event: 'error', source: event.source, ...(event.details !== undefined ? { details: event.details } : {}) },
          },
        },
      };
  }
}

/**
 * A worker's claim of a step: node_started (job, step and the first step's output to processing,
 * with its history entry), applied only while the job is open in the step's attempt and the step
 * itself is open; the same statement reads what the step needs.
 */
export function planClaim(
  jobId: string,
  event: Extract<JobEvent, { type: 'node_started' }>,
  read: { workflowId: string | null; withJobData: boolean },
): ClaimStatement {
  const plan = planJobEvent(jobId, event);
  if (plan.kind !== 'start') throw new Error('a claim is a node_started event');
  return { start: plan.statement, workflowId: read.workflowId, withJobData: read.withJobData, oneStep: !hasStepRows(event.totalSteps) };
}

/**
 * The last step's completion and the end of the generation, as one change: the step completed,
 * the output completed while open (with its flat file), the job completed once, each only while
 * the job is open in the step's attempt (a job failed, completed or retried meanwhile is left as
 * it is). One history entry says both: "job completed", status completed (the stream ends with
 * it), its data's `node_completed` the step's completion ({step_order, retry_attempt, message}).
 */
export function planLastStep(
  jobId: string,
  event: Extract<JobEvent, { type: 'node_completed' }>,
  finish: Pick<LastStepStatement, 'outputId' | 'file' | 'thumbnailUrl' | 'outputMetadata'>,
): LastStepStatement {
  const plan = planJobEvent(jobId, event);
  if (plan.kind !== 'step_completed') throw new Error('a last step is a node_completed event');
  return {
    ...finish,
    step: plan.statement,
    jobIn: OPEN,
    oneStep: !hasStepRows(event.totalSteps),
    outputFrom: OPEN,
    outputTo: 'completed',
    jobTo: 'completed',
    history: {
      status: 'completed',
      message: 'job completed',
      // The step's completion, recorded in the job's entry instead of an entry of its own.
      data: {
        event: 'complete',
        node_completed: { step_order: event.stepOrder, retry_attempt: event.retryAttempt, message: plan.statement.history.message },
      },
    },
  };
}

/**
 * Why a job may not be retried now, or null: after MAX_JOB_RETRIES retries (409
 * MAX_RETRIES_REACHED); a completed job; an open job that is still moving (changed within
 * `stuckAfterMs`).
 */
export function retryRefusal(
  job: Pick<JobRecord, 'id' | 'status' | 'retry_count' | 'updated_at'>,
  now: Date,
  stuckAfterMs: number,
): AppError | null {
  if (job.retry_count >= MAX_JOB_RETRIES)
    return conflict(RETRY_LIMIT_MESSAGE, { code: 'MAX_RETRIES_REACHED', retry_count: job.retry_count });
  if (job.status === 'failed') return null;
  if (job.status === 'completed') return conflict(`job ${job.id} is completed: only failed or stuck jobs can be retried`);
  if (job.updated_at.getTime() < now.getTime() - stuckAfterMs) return null;
  return conflict(
    `job ${job.id} is ${job.status} and still moving: it can be retried when it fails or has not changed for ${duration(stuckAfterMs)}`,
  );
}

/** "30 s", "1 minute", "10 minutes": the stuck threshold as people read it. */
function duration(ms: number): string {
  if (ms < 120_000 && ms % 60_000 !== 0) return `${Math.round(ms / 1000)} s`;
  const minutes = Math.round(ms / 60_000);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/**
 * The retry's state change: back to pending with a new attempt; the output reopens. A one-step
 * job's attempt that had no step row gets one, made from the job as it was (and its times from
 * `history`, the job's history entries), so the steps read keeps every attempt's step
 * (docs/jobs.md "One-step jobs").
 */
export function planRetry(current: RetryStatement['current'], jobId: string, history?: AttemptHistory): RetryStatement {
  const earlier = oneStepRow({ ...current, id: jobId }, history);
  return {
    jobId,
    current,
    ...(earlier ? { recordStep: earlier } : {}),
    maxRetries: MAX_JOB_RETRIES,
    to: 'pending',
    outputFrom: ['failed', 'processing', 'pending'],
    outputTo: 'pending',
    history: (attempt) => ({
      status: 'pending',
      message: `retry ${attempt} of ${MAX_JOB_RETRIES} queued`,
      progress: 0,
      data: { event: 'retry', retry_attempt: attempt },
    }),
  };
}

/**
 * The statements, as a port (src/generation/job-store.ts binds it to src/db/job-events.ts and
 * src/db/step-runs.ts; tests use fakes).
 */
export interface JobEventStore {
  startStep(s: StartStatement): Promise<boolean>;
  recordProgress(s: ProgressStatement): Promise<boolean>;
  completeStep(s: StepCompletionStatement): Promise<boolean>;
  stepStatus(jobId: string, stepOrder: number, retryAttempt: number): Promise<string | null>;
  completeJob(s: CompletionStatement): Promise<boolean>;
  failJob(s: FailureStatement): Promise<JobRecord | null>;
  finishLastStep(s: LastStepStatement): Promise<LastStepResult>;
}

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
  job?: JobRecord;
}

const sleepMs = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Applies one event through the store. */
export async function applyEvent(store: JobEventStore, jobId: string, event: JobEvent, opts: ApplyOptions = {}): Promise<ApplyResult> {
  const plan = planJobEvent(jobId, event);
  switch (plan.kind) {
    case 'start':
      return { applied: await store.startStep(plan.statement) };
    case 'progress':
      return { applied: await store.recordProgress(plan.statement) };
    case 'step_completed':
      return completeStepWithRetry(store, plan.statement, opts);
    case 'complete':
      return { applied: await store.completeJob(plan.statement) };
    case 'fail': {
      const job = await store.failJob(plan.statement);
      return job ? { applied: true, job } : { applied: false };
    }
  }
}

/**
 * Step completion (docs/api/content.md §8): the write is tried up to 3 more times with 1 s, 2 s and
 * 4 s backoff when it throws, and verified after it succeeds: a write that changed the row is
 * verified by its own RETURNING (the row it returns is completed); one that changed nothing is
 * verified by reading the step back, which must say completed. Idempotent: a step already
 * completed counts as done and adds no history.
 */
async function completeStepWithRetry(store: JobEventStore, s: StepCompletionStatement, opts: ApplyOptions): Promise<ApplyResult> {
  const backoff = opts.stepWriteBackoffMs ?? STEP_WRITE_BACKOFF_MS;
  const sleep = opts.sleep ?? sleepMs;
  let lastError: unknown;
  for (let attempt = 0; attempt <= backoff.length; attempt++) {
    if (attempt > 0) await sleep(backoff[attempt - 1]!);
    try {
      const applied = await store.completeStep(s);
      if (applied) return { applied };
      const status = await store.stepStatus(s.jobId, s.stepOrder, s.retryAttempt);
      if (status === s.to) return { applied };
      lastError = new Error(`step ${s.stepOrder} of job ${s.jobId} is ${status ?? 'missing'} after its completion write`);
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError instanceof Error ? lastError : new Error(String(lastError));
}

export interface FinishResult {
  /** This statement completed the job. */
  applied: boolean;
  /** Why nothing was written: the job is gone, finished or in another attempt. */
  skipped?: string;
}

/**
 * The last step's completion and the job's finish (planLastStep), with the step-completion
 * guarantees: tried again after 1 s, 2 s and 4 s when the statement throws, and verified. The
 * statement proves its own write (RETURNING of the step row) or shows in its own read that the
 * step was completed already, so no read-back follows; only a statement that changed nothing
 * while its read said the step was open (a concurrent writer between the two) reads the step back.
 */
export async function finishWithRetry(store: JobEventStore, s: LastStepStatement, opts: ApplyOptions = {}): Promise<FinishResult> {
  const backoff = opts.stepWriteBackoffMs ?? STEP_WRITE_BACKOFF_MS;
  const sleep = opts.sleep ?? sleepMs;
  const st = s.step;
  let lastError: unknown;
  for (let attempt = 0; attempt <= backoff.length; attempt++) {
    if (attempt > 0) await sleep(backoff[attempt - 1]!);
    try {
      const r = await store.finishLastStep(s);
      if (r.jobStatus === null) return { applied: false, skipped: 'job not found' };
      if (!s.jobIn.includes(r.jobStatus)) return { applied: false, skipped: `job ${r.jobStatus}` };
      if (r.jobRetryCount !== st.retryAttempt) return { applied: false, skipped: 'superseded by a retry' };
      if (r.stepChanged || r.stepStatus === st.to) return { applied: r.jobCompleted };
      const status = await store.stepStatus(st.jobId, st.stepOrder, st.retryAttempt);
      if (status === st.to) return { applied: r.jobCompleted };
      lastError = new Error(`step ${st.stepOrder} of job ${st.jobId} is ${status ?? 'missing'} after its completion write`);
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError instanceof Error ? lastError : new Error(String(lastError));
}

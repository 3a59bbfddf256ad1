/**
 * One-step jobs have no job_steps row (docs/jobs.md "One-step jobs"): the job is its step. Its
 * status, times and error are the step's, `jobs.step_output` holds the step's output, and the
 * queued payload is rebuilt from the job's data (`buildStepPayload`, which is how it was built).
 * This module makes the row the steps read shows for such a job, so `GET /api/jobs/:id/forensics`
 * lists the same step it listed when the row was written. Pure; the row's id is derived from the
 * job and the attempt, so it is the same on every read (and in the row a retry records).
 */
import { createHash } from 'node:crypto';
import type { JobRecord, StepRecord } from '../domain/ports/job-statements.ts';
import { buildStepPayload, hasStepRows, queueJobId } from './pipeline.ts';

/** The job fields the step is made of (a retry's read of the job has them all). */
export type OneStepSource = Pick<JobRecord, 'id' | 'status' | 'retry_count' | 'data' | 'error_message'> &
  Partial<Pick<JobRecord, 'output_id' | 'priority' | 'step_output' | 'started_at' | 'completed_at' | 'created_at' | 'updated_at'>>;

/** A stable uuid for a one-step job's step of one attempt. */
export function oneStepId(jobId: string, attempt: number): string {
  const h = createHash('sha1').update(`job-step:${jobId}:${attempt}`).digest('hex');
  // uuid layout, version 5 and the RFC 4122 variant
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((Number.parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** What a step's times are read from: the job's history entries (any order). */
export type AttemptHistory = ReadonlyArray<{ data: unknown; created_at: Date }>;

/**
 * When an attempt's step was created and first started, from the job's history: the job's own
 * `created_at` and `started_at` are its first attempt's (a retry keeps them), so a later
 * attempt's step was created by its retry (the "retry n" entry) and started with its first
 * "step 1/1 started" entry (none yet: not started).
 */
export function attemptTimes(history: AttemptHistory, attempt: number): { created_at: Date | null; started_at: Date | null } {
  let created: Date | null = null;
  let started: Date | null = null;
  for (const h of history) {
    const d = h.data as { event?: unknown; retry_attempt?: unknown } | null;
    if (d?.retry_attempt !== attempt) continue;
    if (d.event === 'retry' && (!created || h.created_at < created)) created = h.created_at;
    if (d.event === 'node_started' && (!started || h.created_at < started)) started = h.created_at;
  }
  return { created_at: created, started_at: started };
}

/**
 * The step of a one-step job's current attempt, as a row; null for a job of several steps (they
 * have rows). With the job's history, the step's created and started times are its attempt's
 * (`attemptTimes`); without it, the job's (right for the first attempt only).
 */
export function oneStepRow(job: OneStepSource, history?: AttemptHistory): StepRecord | null {
  const steps = (job.data as { steps?: unknown } | null)?.steps;
  if (!Array.isArray(steps) || hasStepRows(steps.length) || !job.output_id) return null;
  let input: ReturnType<typeof buildStepPayload>;
  try {
    input = buildStepPayload({ id: job.id, output_id: job.output_id, data: job.data, priority: job.priority ?? 50 }, 0, job.retry_count);
  } catch {
    return null; // data a step cannot be built from: nothing was queued either
  }
  const times = history ? attemptTimes(history, job.retry_count) : null;
  const created = times?.created_at ?? job.created_at ?? new Date();
  const started = times ? (times.started_at ?? (job.retry_count === 0 ? (job.started_at ?? null) : null)) : (job.started_at ?? null);
  return {
    id: oneStepId(job.id, job.retry_count),
    job_id: job.id,
    step_name: input.payload.nodeName.slice(0, 100),
    step_type: input.type.slice(0, 50),
    step_order: 0,
    status: job.status,
    input_data: input,
    output_data: job.step_output ?? null,
    retry_attempt: job.retry_count,
    error_message: job.status === 'failed' ? job.error_message : null,
    queue_job_id: queueJobId(job.id, 0, job.retry_count),
    started_at: started,
    completed_at: job.status === 'completed' ? (job.completed_at ?? null) : null,
    created_at: created,
    updated_at: job.updated_at ?? created,
  };
}

/**
 * The steps read: the rows, and a one-step job's current step when no row holds it (its times
 * from `history`, the job's history entries, when given: `oneStepRow`).
 */
export function stepsOf(job: JobRecord, rows: StepRecord[], history?: AttemptHistory): StepRecord[] {
  if (rows.some((r) => r.retry_attempt === job.retry_count)) return rows;
  const own = oneStepRow(job, history);
  return own ? [...rows, own] : rows;
}

import type { FlatFileRow } from '../db/flat-files.ts';
import type { listRetryBackups, JobHistoryRow, JobRow, JobStepRow } from '../db/jobs.ts';
import type { StreamCursor } from '../db/job-stream.ts';
import { notFound } from '../domain/errors.ts';
import { authorize, can, type Caller } from '../domain/policy.ts';
import { type ApplyResult, type JobEvent } from '../generation/job-events.ts';
import { stepsOf } from '../generation/one-step.ts';
import { requireOwner } from './ownership.ts';

export interface JobPorts {
  jobs: {
    find(id: string): Promise<JobRow | null>;
    historyAfter(jobId: string, afterId: number, limit?: number): Promise<JobHistoryRow[]>;
    /**
     * The stream's read: jobs and each one's entries after its own cursor (oldest first, at most
     * `limit` in all), both from one snapshot of the database.
     */
    streamSnapshot(cursors: readonly StreamCursor[], limit: number): Promise<{ jobs: JobRow[]; history: JobHistoryRow[] }>;
    steps(jobId: string): Promise<JobStepRow[]>;
    retryBackups(jobId: string): ReturnType<typeof listRetryBackups>;
  };
  flatFiles: { byIds(ids: readonly number[]): Promise<FlatFileRow[]> };
  /** Applies a job event (src/generation/job-events.ts). */
  apply(jobId: string, event: JobEvent): Promise<ApplyResult>;
  /** The job's output, changed only while it is open (a closed one is left as it is). */
  outputs: { complete(id: string, url: string): Promise<void>; fail(id: string, message: string): Promise<void> };
  credits: { balance(userId: string): Promise<number>; costPerGeneration: number };
}

export interface JobForensics {
  job: JobRow;
  steps: JobStepRow[];
  history: JobHistoryRow[];
  backups: Awaited<ReturnType<typeof listRetryBackups>>;
  flatFiles: FlatFileRow[];
}

/** The flat file ids of a job's recorded outputs. */
export function flatFileIdsOf(data: unknown): number[] {
  const outputs = (data as { outputs?: unknown } | null)?.outputs;
  const ids = new Set<number>();
  for (const o of Array.isArray(outputs) ? outputs : []) {
    const id = (o as { flat_file_id?: unknown } | null)?.flat_file_id;
    if (typeof id === 'number') ids.add(id);
  }
  return [...ids];
}

export function createJobService(ports: JobPorts) {
  /** The job when the caller may see it; 404 otherwise (also for jobs that exist). */
  async function visible(caller: Caller, id: string): Promise<JobRow> {
    const job = await ports.jobs.find(id);
    if (!job || !can(caller, 'job.read', { ownerId: job.user_id })) throw notFound(`job ${id}`);
    return job;
  }

  async function reread(id: string): Promise<JobRow> {
    const job = await ports.jobs.find(id);
    if (!job) throw notFound(`job ${id}`);
    return job;
  }

  return {
    get: visible,

    async forensics(caller: Caller, id: string): Promise<JobForensics> {
      const job = await visible(caller, id);
      const [rows, history, backups, flatFiles] = await Promise.all([
        ports.jobs.steps(job.id),
        ports.jobs.historyAfter(job.id, 0, 10_000),
        ports.jobs.retryBackups(job.id),
        ports.flatFiles.byIds(flatFileIdsOf(job.data)),
      ]);
      // A one-step job's current step has no row: the job is its step (docs/jobs.md "One-step jobs").
      return { job, steps: stepsOf(job, rows, history), history, backups, flatFiles };
    },

    /** What the stream sends first: the job now and its history entries after `afterId`, from one snapshot. */
    async snapshot(jobId: string, afterId: number, limit = 10_000): Promise<{ job: JobRow | null; history: JobHistoryRow[] }> {
      const { jobs, history } = await ports.jobs.streamSnapshot([{ jobId, afterId }], limit);
      return { job: jobs[0] ?? null, history };
    },

    /**
     * The SSE hub's read for the jobs woken in one turn: each job now and its entries after its own
     * cursor (at most `limit` entries in all), from one snapshot.
     */
    async snapshots(cursors: StreamCursor[], limit: number): Promise<{ jobs: Map<string, JobRow>; history: JobHistoryRow[] }> {
      const { jobs, history } = await ports.jobs.streamSnapshot(cursors, limit);
      return { jobs: new Map(jobs.map((j) => [j.id, j])), history };
    },

    /** Failsafe: any state → completed (a completed job stays as it was); an open output completes with that URL. */
    async forceComplete(caller: Caller, id: string, input: { workflowOutput: string; outputs?: unknown; metadata?: unknown }) {
      const job = await visible(caller, id);
      authorize(caller, 'job.force_complete', { ownerId: job.user_id });
      if (job.output_id) await ports.outputs.complete(job.output_id, input.workflowOutput);
      await ports.apply(job.id, {
        type: 'complete',
        workflowOutput: input.workflowOutput,
        ...(input.outputs !== undefined ? { outputs: input.outputs } : {}),
        ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
        source: 'failsafe',
      });
      return reread(job.id);
    },

    /** Failsafe: any state → failed (details in the history entry); an open output fails. */
    async forceFail(caller: Caller, id: string, input: { message?: string; details?: unknown }) {
      const job = await visible(caller, id);
      authorize(caller, 'job.force_fail', { ownerId: job.user_id });
      const message = input.message?.trim() || 'job failed (reported by failsafe)';
      const res = await ports.apply(job.id, {
        type: 'error',
        message,
        ...(input.details !== undefined ? { details: input.details } : {}),
        force: true,
        source: 'failsafe',
      });
      if (res.applied && job.output_id) await ports.outputs.fail(job.output_id, message);
      return reread(job.id);
    },

    /** The caller's credit balance (created with the starting grant on first use). */
    async credits(caller: Caller) {
      const userId = requireOwner(caller);
      return { user_id: userId, balance: await ports.credits.balance(userId), cost_per_generation: ports.credits.costPerGeneration };
    },
  };
}

export type JobService = ReturnType<typeof createJobService>;

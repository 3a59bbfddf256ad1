/**
 * The statements the job planner emits and the job record it reads: owned by
 * src/generation/job-events.ts (the single owner of job state), which decides every field; run
 * by src/db/job-events.ts and src/db/step-runs.ts, which only execute them (src/db/jobs.ts
 * asserts that its row is `JobRecord`). Types only, in src/domain so that both sides import
 * them and neither imports the other.
 */

/** A job as recorded (the `jobs` row). */
export interface JobRecord {
  id: string;
  name: string;
  description: string;
  status: string;
  progress: number | null;
  error_message: string | null;
  job_type: string;
  priority: number;
  workflow_id: string | null;
  workflow_output: string | null;
  retry_count: number;
  data: unknown;
  user_id: string | null;
  collection_id: string | null;
  output_id: string | null;
  created_at: Date;
  updated_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  /** A one-step job's step output: such a job has no step row, the job is its step (docs/jobs.md "One-step jobs"). */
  step_output: unknown;
}

/** A step as recorded (the `job_steps` row). */
export interface StepRecord {
  id: string;
  job_id: string;
  step_name: string;
  step_type: string;
  step_order: number;
  status: string;
  input_data: unknown;
  output_data: unknown;
  retry_attempt: number;
  error_message: string | null;
  queue_job_id: string | null;
  started_at: Date | null;
  completed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** A history entry; `progress` undefined takes the job's progress after the change. */
export interface HistoryEntry {
  status: string;
  message: string;
  progress?: number;
  data: Record<string, unknown>;
}

/** node_started: job, step and (the first step's) output move, with the history entry. */
export interface StartStatement {
  jobId: string;
  stepOrder: number;
  retryAttempt: number;
  queueJobId: string | null;
  /** Moved along with the job (the first step), or null. */
  outputId: string | null;
  jobFrom: readonly string[];
  stepFrom: readonly string[];
  outputFrom: string;
  to: string;
  history: HistoryEntry;
}

export interface ProgressStatement {
  jobId: string;
  stepOrder: number;
  retryAttempt: number;
  jobIn: string;
  /** Overall progress; written only when higher than the job's (never backwards). */
  progress: number;
  history: HistoryEntry;
}

export interface StepCompletionStatement {
  jobId: string;
  stepOrder: number;
  retryAttempt: number;
  /** The step's status after completion; a step already in it is left alone (idempotent). */
  to: string;
  output: Record<string, unknown>;
  jobIn: readonly string[];
  progress: number;
  history: HistoryEntry;
}

export interface CompletionStatement {
  jobId: string;
  /** The job changes unless it already has this status: applied (and recorded) exactly once. */
  to: string;
  workflowOutput: string;
  /** Merged into the job's data (outputs, metadata). */
  data: Record<string, unknown>;
  history: HistoryEntry;
}

export interface FailureStatement {
  jobId: string;
  to: string;
  /** The job fails only from a status not listed here. */
  jobNotIn: readonly string[];
  message: string;
  /** The step that failed (unless already in `stepNotIn`), or the open steps of the current attempt. */
  step: { order: number; retryAttempt: number; notIn: readonly string[] } | { openIn: readonly string[] };
  history: HistoryEntry;
}

export interface RetryStatement {
  jobId: string;
  /** The job as it was read: the reset applies only if it has not changed since. */
  current: Pick<JobRecord, 'status' | 'retry_count' | 'data' | 'error_message' | 'workflow_output'>;
  maxRetries: number;
  to: string;
  /** An output still in one of these goes back to `outputTo` (a completed one is left as it is). */
  outputFrom: readonly string[];
  outputTo: string;
  history: (attempt: number) => HistoryEntry;
  /** A one-step job's step of the attempt being replaced, kept as a row (it had none). */
  recordStep?: StepRecord;
}

/** A worker's claim of a step: node_started, and what the step needs read by the same statement. */
export interface ClaimStatement {
  start: StartStatement;
  /** The workflow whose data the connector needs (null: none, or not a UUID). */
  workflowId: string | null;
  /** Read the job's data too (a next step is built from it). */
  withJobData: boolean;
  /**
   * The job has one step and, unless a row was made for it (a reconciler's re-queue, a retry's
   * record of an earlier attempt), no job_steps row: the job is its step (docs/jobs.md "One-step jobs").
   */
  oneStep: boolean;
}

/** The last step's completion and the end of the generation, as one change. */
export interface LastStepStatement {
  /** The last step's completion (its history entry precedes the job's). */
  step: StepCompletionStatement;
  /** Both happen only while the job is in one of these states, in the step's attempt. */
  jobIn: readonly string[];
  /**
   * A one-step job: its step's output is kept on the job (`step_output`) and, without a step row,
   * the job's completion is the step's (docs/jobs.md "One-step jobs").
   */
  oneStep: boolean;
  outputId: string;
  /** The stored image of the last step. */
  file: { key: string; url: string; mimeType: string; size: number; ownerId: string | null; relType: string };
  thumbnailUrl: string | null;
  outputMetadata: Record<string, unknown>;
  /** The output completes (and the flat file is made) only from these states. */
  outputFrom: readonly string[];
  outputTo: string;
  jobTo: string;
  /**
   * The one history entry of the step's completion with the job's (the step's own entry,
   * `step.history`, is written alone only when the step completes while the job does not).
   */
  history: HistoryEntry;
}

/** What the last-step statement did and what it saw (its own read, before its changes). */
export interface LastStepResult {
  /** The step changed to completed (proven by RETURNING: its row's, or the job's for a one-step job without a row). */
  stepChanged: boolean;
  /** The step's status before the statement (a one-step job's without a row: the job's, in its attempt), or null when missing. */
  stepStatus: string | null;
  jobCompleted: boolean;
  /** The job's status and attempt before the statement (null: no such job). */
  jobStatus: string | null;
  jobRetryCount: number | null;
}

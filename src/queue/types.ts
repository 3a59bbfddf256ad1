/**
 * The work queue the generation runner submits steps to. Two implementations share this
 * contract: in-process (embedded default) and BullMQ on Redis (production). See docs/generation.md.
 */

export type JobState = 'waiting' | 'active' | 'completed' | 'failed' | 'unknown';

export const MIN_PRIORITY = 1;
export const MAX_PRIORITY = 100;
/** Same default as workflow_priority (docs/api/content.md §8). */
export const DEFAULT_PRIORITY = 50;
export const DEFAULT_ATTEMPTS = 3;
export const DEFAULT_BACKOFF_MS = 1000;

export interface AddOptions {
  /** 1..100, higher runs first (ties run in the order added). Default 50. */
  priority?: number;
  /** Total tries including the first (≥ 1). Default 3. */
  attempts?: number;
  /** First retry delay; doubles each retry (exponential). Default 1000 ms. */
  backoffMs?: number;
}

export interface QueueJob<T> {
  id: string;
  payload: T;
  /** 1 for the first try, 2 for the first retry, ... */
  attempt: number;
  /** 0..100; values outside are clamped. */
  reportProgress(pct: number): Promise<void>;
  /** Aborted when the worker hands the job back to the queue (graceful shutdown past its grace). */
  signal?: AbortSignal;
  /**
   * Called by the handler before it writes its results: false when the job was handed back (the
   * handler must then write nothing: another worker runs it). Once it returned true the job is
   * no longer handed back; the shutdown waits for it instead.
   */
  commit?(): boolean;
}

export type JobHandler<T> = (job: QueueJob<T>) => Promise<unknown>;

export interface ProcessOptions {
  concurrency: number;
}

export interface WorkerHandle {
  /** Stops taking jobs and waits for the active ones to finish. */
  close(): Promise<void>;
  /**
   * Returns the active jobs not yet committed to the queue (waiting, taken by the next worker),
   * aborting their handlers; how many. Absent where a job cannot outlive its process (in-process).
   */
  handBack?(): Promise<number>;
}

/**
 * Job events. `failed` means failed for good (after the last attempt); a try that will be retried
 * shows up as the job going `active` again.
 */
export type QueueEvent =
  | { type: 'active'; jobId: string }
  | { type: 'progress'; jobId: string; progress: number }
  | { type: 'completed'; jobId: string; result: unknown }
  | { type: 'failed'; jobId: string; error: string };

/** `T` must survive JSON (BullMQ stores payloads and results as JSON): no Buffers, Dates or classes. */
export interface WorkQueue<T> {
  readonly name: string;
  /**
   * Adds a job. Idempotent by jobId: adding an id the queue already knows (in any state,
   * including completed or failed while it is retained) does nothing.
   * To run the same work again after a failure, use a new id (e.g. include the retry attempt).
   */
  add(jobId: string, payload: T, opts?: AddOptions): Promise<void>;
  /** Starts a worker in this process. Several workers (and processes) may share one queue. */
  process(handler: JobHandler<T>, opts: ProcessOptions): WorkerHandle;
  getState(jobId: string): Promise<JobState>;
  /**
   * Listens to job events from every worker of this queue (for BullMQ, from every process).
   * Returns an unsubscribe function. Delivery is best effort: use getState to reconcile.
   */
  subscribe(listener: (e: QueueEvent) => void): Promise<() => void>;
  /** Resolves when the queue store answers (Redis PING for BullMQ); for /readyz. */
  ping(): Promise<void>;
  /** Closes workers, listeners and connections. Jobs in the store are kept. */
  close(): Promise<void>;
}

export class QueueInputError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(message);
    this.name = 'QueueInputError';
    this.field = field;
  }
}

export interface NormalizedAddOptions {
  priority: number;
  attempts: number;
  backoffMs: number;
}

/** Validates add() input the same way for both implementations. */
export function normalizeAddOptions(jobId: string, opts: AddOptions | undefined): NormalizedAddOptions {
  if (typeof jobId !== 'string' || jobId.length === 0 || jobId.length > 200) {
    throw new QueueInputError('jobId', 'jobId must be a non-empty string of at most 200 characters');
  }
  // BullMQ rejects ids that are plain integers (they collide with its own counters) and uses ':' in keys.
  if (/^\d+$/.test(jobId) || jobId.includes(':')) {
    throw new QueueInputError('jobId', 'jobId must not be a plain integer and must not contain ":"');
  }
  const priority = opts?.priority ?? DEFAULT_PRIORITY;
  if (!Number.isInteger(priority) || priority < MIN_PRIORITY || priority > MAX_PRIORITY) {
    throw new QueueInputError('priority', `priority must be an integer from ${MIN_PRIORITY} to ${MAX_PRIORITY}`);
  }
  const attempts = opts?.attempts ?? DEFAULT_ATTEMPTS;
  if (!Number.isInteger(attempts) || attempts < 1 || attempts > 100) {
    throw new QueueInputError('attempts', 'attempts must be an integer from 1 to 100');
  }
  const backoffMs = opts?.backoffMs ?? DEFAULT_BACKOFF_MS;
  if (!Number.isFinite(backoffMs) || backoffMs < 0) {
    throw new QueueInputError('backoffMs', 'backoffMs must be a non-negative number');
  }
  return { priority, attempts, backoffMs };
}

/** Validates process() input the same way for both implementations. */
export function assertConcurrency(opts: ProcessOptions): void {
  if (!Number.isInteger(opts.concurrency) || opts.concurrency < 1) throw new Error('concurrency must be a positive integer');
}

export function clampProgress(pct: number): number {
  if (!Number.isFinite(pct)) return 0;
  return Math.max(0, Math.min(100, pct));
}

export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

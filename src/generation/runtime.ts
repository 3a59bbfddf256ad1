/**
 * Wiring for processes: the job queue from configuration (BullMQ with REDIS_URL, in-process
 * otherwise) and a running worker with its stale-step reconciler. Used by src/processes/ (backend, start)
 * and `atelier worker` (processes/worker.ts).
 */
import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import { seedBuiltinWorkflows } from '../db/workflows.ts';
import { createQueue, type CreateQueueOptions, type WorkQueue } from '../queue/index.ts';
import type { Storage } from '../storage/types.ts';
import type { StepPayload } from './pipeline.ts';
import { startWorker, type WorkerContext, type WorkerSettings } from './worker.ts';
import { startJobsReconcilerDuty } from '../duties/jobs-reconciler.ts';
import { settledWithin } from '../startup/graceful.ts';

export const JOB_QUEUE_NAME = 'generation';

/** What the job queue reads from the configuration: Redis, or none (in-process). */
export type JobQueueOptions = Pick<Config, 'REDIS_URL'>;

export function createJobQueue(config: JobQueueOptions, opts: Omit<CreateQueueOptions, 'redisUrl'> = {}): WorkQueue<StepPayload> {
  return createQueue<StepPayload>(JOB_QUEUE_NAME, { redisUrl: config.REDIS_URL ?? null, ...opts });
}

/** What a running worker reads from the configuration: the worker's own settings, its concurrency and the reconciler's timings. */
export type GenerationWorkerSettings = WorkerSettings &
  Pick<Config, 'WORKER_CONCURRENCY' | 'JOB_RECONCILE_INTERVAL_MS' | 'JOB_STALE_STEP_MS' | 'DUTY_LEASE_TTL_MS'>;

export interface GenerationWorkerOptions {
  config: GenerationWorkerSettings;
  database: Database;
  storage: Storage;
  queue: WorkQueue<StepPayload>;
  concurrency?: number;
  connectorFor?: WorkerContext['connectorFor'];
  applyOptions?: WorkerContext['applyOptions'];
  reconcile?: { intervalMs?: number; staleMs?: number } | false;
  /** A log line; warn unless `level` says info (one line per completed or failed generation). */
  log?: (msg: string, extra?: Record<string, unknown>, level?: 'info' | 'warn') => void;
  /** Name resolution of outside fetches (tests inject one); default: the system's. */
  resolve?: WorkerContext['resolve'];
}

export interface RunningGenerationWorker {
  /**
   * Stops taking steps and waits for the running ones; with `graceMs`, steps still running after
   * it are handed back to the queue (BullMQ) for another worker (src/startup/graceful.ts).
   */
  close(opts?: { graceMs?: number }): Promise<void>;
}

/** Seeds the built-in workflows, starts the worker and the reconciler. */
export async function startGenerationWorker(o: GenerationWorkerOptions): Promise<RunningGenerationWorker> {
  await seedBuiltinWorkflows(o.database.db);
  const ctx: WorkerContext = {
    db: o.database.db,
    config: o.config,
    queue: o.queue,
    storage: o.storage,
    ...(o.connectorFor ? { connectorFor: o.connectorFor } : {}),
    ...(o.applyOptions ? { applyOptions: o.applyOptions } : {}),
    ...(o.log ? { log: o.log } : {}),
    ...(o.resolve ? { resolve: o.resolve } : {}),
  };
  const worker = startWorker(ctx, { concurrency: o.concurrency ?? o.config.WORKER_CONCURRENCY });
  const rc = o.reconcile === false ? undefined : o.reconcile;
  // One reconciler across every worker and backend: the holder of its lease (src/duties/jobs-reconciler.ts).
  const reconciler =
    o.reconcile === false
      ? undefined
      : startJobsReconcilerDuty(ctx, {
          intervalMs: rc?.intervalMs ?? o.config.JOB_RECONCILE_INTERVAL_MS,
          staleMs: rc?.staleMs ?? o.config.JOB_STALE_STEP_MS,
          leaseTtlMs: o.config.DUTY_LEASE_TTL_MS,
          onError: (err) => o.log?.('reconciliation failed', { err: String(err) }),
          onLeaseError: (err) => o.log?.('reconciler lease failed', { err: String(err) }),
        });
  return {
    async close(opts = {}) {
      await reconciler?.stop();
      const closing = worker.close();
      if (opts.graceMs === undefined || (await settledWithin(closing, opts.graceMs))) return closing;
      // BullMQ: the steps go back to the queue now. In-process: a step cut short stays pending in
      // the database and the reconciler queues it again at the next start.
      const handedBack = (await worker.handBack?.()) ?? 0;
      o.log?.('shutdown grace over: steps handed back to the queue', { handedBack });
      // Aborted handlers end at once; one that ignores its signal is not waited for.
      await settledWithin(closing, 5000);
    },
  };
}

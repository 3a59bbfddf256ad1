/** A test platform with a job queue (in-process or BullMQ on a unique Redis prefix) and a worker. */
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { Redis } from 'ioredis';
import type { Db } from '../../src/db/client.ts';
import { findJob, historyAfter, listSteps, type JobStepRow } from '../../src/db/jobs.ts';
import { jobs } from '../../src/db/schema/index.ts';
import { stepsOf } from '../../src/generation/one-step.ts';
import { GeneratorError, ProceduralConnector, type GeneratorConnector } from '../../src/generation/connectors/index.ts';
import type { StepPayload } from '../../src/generation/pipeline.ts';
import { JOB_QUEUE_NAME, startGenerationWorker, type RunningGenerationWorker } from '../../src/generation/runtime.ts';
import type { Resolver } from '../../src/net/guarded-fetch.ts';
import { BullMqQueue, InProcessQueue, type WorkQueue } from '../../src/queue/index.ts';
import { startTestPlatform, type TestPlatform } from './platform.ts';
import { waitFor } from './wait.ts';

export const REDIS_URL = process.env.REDIS_TEST_URL ?? 'redis://127.0.0.1:6379';
export type QueueKind = 'in-process' | 'bullmq';

export interface JobsPlatform extends TestPlatform {
  queue: WorkQueue<StepPayload>;
  prefix: string;
  worker?: RunningGenerationWorker;
  startWorker(connectorFor?: (type: string, data: unknown) => GeneratorConnector): Promise<RunningGenerationWorker>;
}

export function makeQueue(kind: QueueKind, prefix: string): WorkQueue<StepPayload> {
  return kind === 'bullmq'
    ? new BullMqQueue<StepPayload>(JOB_QUEUE_NAME, {
        redisUrl: REDIS_URL,
        prefix,
        lockDurationMs: 1000,
        stalledIntervalMs: 300,
        drainDelaySeconds: 1,
      })
    : new InProcessQueue<StepPayload>(JOB_QUEUE_NAME);
}

export async function deleteRedisPrefix(prefix: string) {
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
}

export async function startJobsPlatform(
  kind: QueueKind,
  opts: {
    env?: Record<string, string>;
    connectorFor?: (type: string, data: unknown) => GeneratorConnector;
    worker?: boolean;
    /** Name resolution of the worker's outside fetches (SSRF tests). */
    resolve?: Resolver;
  } = {},
): Promise<JobsPlatform> {
  const prefix = `atelier-jobs-test-${randomUUID().slice(0, 8)}`;
  const queue = makeQueue(kind, prefix);
  const p = await startTestPlatform(opts.env ?? {}, { jobQueue: queue, sse: { heartbeatMs: 100 } });
  const workers: RunningGenerationWorker[] = [];
  const jp: JobsPlatform = {
    ...p,
    queue,
    prefix,
    async startWorker(connectorFor) {
      const w = await startGenerationWorker({
        config: p.config,
        database: p.database,
        storage: p.storage,
        queue,
        concurrency: 2,
        reconcile: false,
        applyOptions: { stepWriteBackoffMs: [5, 10, 20] },
        ...(connectorFor ? { connectorFor } : {}),
        ...(opts.resolve ? { resolve: opts.resolve } : {}),
      });
      workers.push(w);
      return w;
    },
    async close() {
      await Promise.allSettled(workers.map((w) => w.close()));
      await queue.close();
      await p.close();
      if (kind === 'bullmq') await deleteRedisPrefix(prefix);
    },
  };
  if (opts.worker !== false) jp.worker = await jp.startWorker(opts.connectorFor);
  return jp;
}

export { sleep, waitFor } from './wait.ts';

/**
 * A job's steps as the forensics route reads them (services/jobs.ts): the rows, and a one-step
 * job's current step, which has no row (docs/jobs.md "One-step jobs").
 */
export async function readSteps(db: Db, jobId: string): Promise<JobStepRow[]> {
  const job = await findJob(db, jobId);
  if (!job) throw new Error(`job ${jobId} not found`);
  return stepsOf(job, await listSteps(db, jobId), await historyAfter(db, jobId, 0, 10_000));
}

/** The job's row once it has ended (completed or failed). */
export function waitForJobEnd(p: TestPlatform, jobId: string, timeoutMs = 60_000) {
  return waitFor(
    `job ${jobId} to end`,
    async () => {
      const [row] = await p.database.db.select().from(jobs).where(eq(jobs.id, jobId));
      return row && ['completed', 'failed'].includes(row.status) ? row : undefined;
    },
    timeoutMs,
  );
}

/** Procedural, except prompts containing "explode" fail (non-retryable) while `failures.left` > 0. */
export function flakyConnector(failures: { left: number }) {
  const real = new ProceduralConnector();
  const c: GeneratorConnector = {
    kind: 'flaky-procedural',
    async generate(req, onProgress, signal) {
      if (req.prompt.includes('explode') && failures.left > 0) {
        failures.left--;
        throw new GeneratorError('the model exploded', { retryable: false });
      }
      return real.generate({ ...req, width: 256, height: 256 }, onProgress, signal);
    },
  };
  return () => c;
}

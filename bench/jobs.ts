/**
 * `npm run bench:jobs`: jobs per second through our generation pipeline (startGeneration →
 * BullMQ → worker with a no-op generator → output completed → job completed) beside raw BullMQ
 * add→process throughput, measured in the same run on the same Redis.
 *
 * Environment: REDIS_URL (default redis://127.0.0.1:6379), DATABASE_URL (a throwaway database is
 * created on that server; PGlite without it), BENCH_JOBS (pipeline jobs, default 300),
 * BENCH_RAW_JOBS (default 3000), BENCH_CONCURRENCY (worker concurrency for both, default 20).
 *
 * The no-op generator returns a fixed 8×8 PNG (no rendering), so the figure is the pipeline's own
 * cost. Figures and what bounds them: docs/jobs.md "Throughput". Per-job statements:
 * bench/jobs-profile.ts.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Queue, Worker } from 'bullmq';
import { sql } from 'drizzle-orm';
import { testConfig } from '../src/config.ts';
import { benchCollection, tinyPng } from './fixtures.ts';
import { seedBuiltinWorkflows } from '../src/db/workflows.ts';
import type { StepPayload } from '../src/generation/pipeline.ts';
import { startGeneration } from '../src/services/generation.ts';
import { startGenerationWorker } from '../src/generation/runtime.ts';
import { BullMqQueue } from '../src/queue/index.ts';
import { LocalStorage } from '../src/storage/local.ts';
import { createTestDatabase } from '../test/helpers/db.ts';
import { deleteRedisPrefix } from '../test/helpers/jobs.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PIPELINE_JOBS = Number(process.env.BENCH_JOBS ?? 300);
const RAW_JOBS = Number(process.env.BENCH_RAW_JOBS ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 20);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function rawBullMq(prefix: string): Promise<number> {
  const connection = { url: REDIS_URL, maxRetriesPerRequest: null };
  const queue = new Queue('raw', { connection, prefix });
  let done = 0;
  let resolveAll!: () => void;
  const all = new Promise<void>((r) => (resolveAll = r));
  const worker = new Worker(
    'raw',
    async () => {
      if (++done === RAW_JOBS) resolveAll();
      return null;
    },
    { connection, prefix, concurrency: CONCURRENCY, drainDelay: 1 },
  );
  await worker.waitUntilReady();
  const t0 = performance.now();
  for (let i = 0; i < RAW_JOBS; i += 100) {
    await queue.addBulk(
      Array.from({ length: Math.min(100, RAW_JOBS - i) }, (_, k) => ({
        name: 'step',
        data: { n: i + k },
        opts: { jobId: `raw-${i + k}`, priority: 51 },
      })),
    );
  }
  await all;
  const seconds = (performance.now() - t0) / 1000;
  await worker.close();
  await queue.close();
  return RAW_JOBS / seconds;
}

async function pipeline(prefix: string): Promise<{ perSecond: number; db: string; submitSeconds: number; cpuMsPerJob: number }> {
  const database = await createTestDatabase();
  const filesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-bench-'));
  const storage = new LocalStorage({ root: filesDir, baseUrl: 'http://bench.test/files' });
  const config = testConfig({ REDIS_URL, CREDITS_PER_GENERATION: '0' });
  const queue = new BullMqQueue<StepPayload>('generation', { redisUrl: REDIS_URL, prefix, drainDelaySeconds: 1 });
  await seedBuiltinWorkflows(database.db);
  const collection = await benchCollection(database.db);
  const tiny = await tinyPng();
  const worker = await startGenerationWorker({
    config,
    database,
    storage,
    queue,
    concurrency: CONCURRENCY,
    reconcile: false,
    connectorFor: () => ({ kind: 'noop', generate: async (_req, onProgress) => (onProgress(100), { bytes: tiny, mimeType: 'image/png' }) }),
  });
  const ctx = { db: database.db, config, queue, storage };
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const submitters = 8;
  let next = 0;
  await Promise.all(
    Array.from({ length: submitters }, async () => {
      while (next < PIPELINE_JOBS) {
        next++;
        await startGeneration(ctx, {
          collectionId: collection.id,
          variables: {},
          userId: 'bench-user',
          isService: true,
          source: 'load_test',
          jobType: 'bench',
        });
      }
    }),
  );
  const submitSeconds = (performance.now() - t0) / 1000;
  for (;;) {
    const rows = await database.db.execute(sql`select count(*)::int as n from jobs where status in ('completed', 'failed')`);
    const n = Number((rows as unknown as { rows: Array<{ n: number }> }).rows[0]!.n);
    if (n >= PIPELINE_JOBS) break;
    await sleep(20);
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const failed = await database.db.execute(sql`select count(*)::int as n from jobs where status = 'failed'`);
  const nFailed = Number((failed as unknown as { rows: Array<{ n: number }> }).rows[0]!.n);
  if (nFailed > 0) console.warn(`warning: ${nFailed} pipeline jobs failed`);
  await worker.close();
  await queue.close();
  const kind = database.kind === 'postgres' ? 'PostgreSQL' : 'PGlite';
  await database.close();
  fs.rmSync(filesDir, { recursive: true, force: true });
  return { perSecond: PIPELINE_JOBS / seconds, db: kind, submitSeconds, cpuMsPerJob: (cpu.user + cpu.system) / 1000 / PIPELINE_JOBS };
}

const prefix = `atelier-bench-${randomUUID().slice(0, 8)}`;
try {
  console.log(
    `jobs bench: Redis ${REDIS_URL}, worker concurrency ${CONCURRENCY} for both, ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(2)}`,
  );
  console.log('Both sides use the same Redis, queue options (priority, jobId) and worker concurrency. Raw BullMQ is the');
  console.log('queue alone (add → no-op handler); the pipeline adds what a real job does besides generating: the');
  console.log('database rows (deck, output, job, step, history), the stored 8×8 PNG, its WebP thumbnail, the flat file.');
  const raw = await rawBullMq(prefix);
  console.log(`raw BullMQ add→process (no-op):                ${raw.toFixed(0).padStart(6)} jobs/s  (${RAW_JOBS} jobs)`);
  const ours = await pipeline(prefix);
  console.log(
    `Atelier pipeline, no-op generator (${ours.db.padEnd(10)}): ${ours.perSecond.toFixed(1).padStart(6)} jobs/s  (${PIPELINE_JOBS} jobs: submit → queue → worker → stored PNG + thumbnail → completed)`,
  );
  console.log(
    `  all submitted after ${ours.submitSeconds.toFixed(2)} s; this process used ${ours.cpuMsPerJob.toFixed(2)} ms of CPU per job (the database and Redis not counted)`,
  );
  console.log(`ratio pipeline / raw BullMQ: ${((ours.perSecond / raw) * 100).toFixed(1)} %`);
} finally {
  await deleteRedisPrefix(prefix);
}
process.exit(0);

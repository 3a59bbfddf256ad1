/**
 * `npm run bench:jobs`: our generation pipeline (startGeneration → BullMQ → worker with a no-op
 * generator → output and job completed) against a fair floor measured in the same run, rounds
 * alternated, medians of BENCH_ROUNDS (default 3). The floor uses the same BullMQ wrapper and
 * options (one add per job), the same schema, database and pool, and only two statements per job:
 * insert the job and its output (one statement), then mark both completed (one statement).
 * On PostgreSQL both run through a proxy that counts round trips and commits on the wire
 * (bench/pg-wire-counter.ts). The last line is `pipeline/floor: R`.
 *
 * Environment: REDIS_URL (default redis://127.0.0.1:6379), DATABASE_URL (a throwaway database is
 * created on that server; PGlite without it, and no wire counts), BENCH_JOBS (jobs per round and
 * side, default 300), BENCH_CONCURRENCY (worker concurrency for both, default 20).
 *
 * The no-op generator returns a fixed 8×8 PNG (no rendering). Figures: docs/jobs.md "Throughput".
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { testConfig } from '../src/config.ts';
import { openDatabase, type Database } from '../src/db/client.ts';
import { benchCollection, tinyPng } from './fixtures.ts';
import { startWireCounter, type WireCounter, type WireCounts } from './pg-wire-counter.ts';
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
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 20);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const SUBMITTERS = 8;

interface Round {
  perSecond: number;
  wire?: WireCounts;
}

/** Jobs of this type in a final state, read on the observer's (uncounted) connection. */
async function finished(observer: Database, jobType: string): Promise<number> {
  const r = await observer.db.execute(
    sql`select count(*)::int as n from jobs where job_type = ${jobType} and status in ('completed', 'failed')`,
  );
  return Number((r as unknown as { rows: Array<{ n: number }> }).rows[0]!.n);
}

async function waitFor(observer: Database, jobType: string, n: number): Promise<void> {
  while ((await finished(observer, jobType)) < n) await sleep(20);
}

/** Runs `submit` for JOBS jobs from SUBMITTERS concurrent submitters. */
async function submitAll(submit: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: SUBMITTERS }, async () => {
      while (next < PIPELINE_JOBS) await submit(next++);
    }),
  );
}

interface Side {
  database: Database;
  observer: Database;
  wire?: WireCounter;
  collectionId: string;
  tiny: Buffer;
}

async function pipelineRound(side: Side, round: number): Promise<Round> {
  const prefix = `atelier-bench-${randomUUID().slice(0, 8)}`;
  const filesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-bench-'));
  const storage = new LocalStorage({ root: filesDir, baseUrl: 'http://bench.test/files' });
  const config = testConfig({ REDIS_URL, CREDITS_PER_GENERATION: '0' });
  const queue = new BullMqQueue<StepPayload>('generation', { redisUrl: REDIS_URL, prefix, drainDelaySeconds: 1 });
  const worker = await startGenerationWorker({
    config,
    database: side.database,
    storage,
    queue,
    concurrency: CONCURRENCY,
    reconcile: false,
    connectorFor: () => ({
      kind: 'noop',
      generate: async (_req, onProgress) => (onProgress(100), { bytes: side.tiny, mimeType: 'image/png' }),
    }),
  });
  const jobType = `bench-pipeline-${round}`;
  const ctx = { db: side.database.db, config, queue, storage };
  const before = side.wire?.counts();
  const t0 = performance.now();
  await submitAll(async () => {
    await startGeneration(ctx, {
      collectionId: side.collectionId,
      variables: {},
      userId: 'bench-user',
      isService: true,
      source: 'load_test',
      jobType,
    });
  });
  await waitFor(side.observer, jobType, PIPELINE_JOBS);
  const seconds = (performance.now() - t0) / 1000;
  const wire = side.wire ? perJob(before!, side.wire.counts()) : undefined;
  await worker.close();
  await queue.close();
  await deleteRedisPrefix(prefix);
  fs.rmSync(filesDir, { recursive: true, force: true });
  return { perSecond: PIPELINE_JOBS / seconds, ...(wire ? { wire } : {}) };
}

/** The floor: the same queue wrapper and options; two statements per job. */
async function floorRound(side: Side, round: number): Promise<Round> {
  const prefix = `atelier-bench-${randomUUID().slice(0, 8)}`;
  const queue = new BullMqQueue<{ jobId: string }>('generation', { redisUrl: REDIS_URL, prefix, drainDelaySeconds: 1 });
  const db = side.database.db;
  const handle = queue.process(
    async (job) => {
      await job.reportProgress(100); // what the no-op generator reports
      await db.execute(sql`
        with j as (
          update jobs set status = 'completed', progress = 100, completed_at = now(), updated_at = now()
          where id = ${job.payload.jobId} and status = 'processing' returning id
        )
        update outputs set status = 'completed', url = 'http://bench.test/files/floor.png', mime_type = 'image/png',
          completed_at = now(), updated_at = now()
        where job_id in (select id from j)`);
    },
    { concurrency: CONCURRENCY },
  );
  const jobType = `bench-floor-${round}`;
  const before = side.wire?.counts();
  const t0 = performance.now();
  await submitAll(async () => {
    const jobId = randomUUID();
    await db.execute(sql`
      with j as (
        insert into jobs (id, status, job_type, data, user_id, collection_id)
        values (${jobId}, 'processing', ${jobType}, '{}'::jsonb, 'bench-user', ${side.collectionId}::uuid) returning id
      )
      insert into outputs (collection_id, job_id, user_id, status, source)
      select ${side.collectionId}::uuid, id, 'bench-user', 'pending', 'load_test' from j`);
    await queue.add(jobId, { jobId }, { priority: 51 });
  });
  await waitFor(side.observer, jobType, PIPELINE_JOBS);
  const seconds = (performance.now() - t0) / 1000;
  const wire = side.wire ? perJob(before!, side.wire.counts()) : undefined;
  await handle.close();
  await queue.close();
  await deleteRedisPrefix(prefix);
  return { perSecond: PIPELINE_JOBS / seconds, ...(wire ? { wire } : {}) };
}

function perJob(before: WireCounts, after: WireCounts): WireCounts {
  return {
    roundTrips: (after.roundTrips - before.roundTrips) / PIPELINE_JOBS,
    commits: (after.commits - before.commits) / PIPELINE_JOBS,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const observer = await createTestDatabase();
const wire = observer.url ? await startWireCounter(observer.url) : undefined;
// The measured side goes through the counting proxy (PostgreSQL); the observer's polling does not.
const database = wire ? await openDatabase({ url: wire.url }) : observer;
try {
  await seedBuiltinWorkflows(database.db);
  const collection = await benchCollection(database.db);
  const side: Side = { database, observer, ...(wire ? { wire } : {}), collectionId: collection.id, tiny: await tinyPng() };
  console.log(
    `jobs bench: ${database.kind}, Redis ${REDIS_URL}, ${PIPELINE_JOBS} jobs per side and round, ${ROUNDS} alternated rounds, worker concurrency ${CONCURRENCY}, ${SUBMITTERS} submitters, ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(2)}`,
  );
  console.log(
    'pipeline: startGeneration → BullMQ → worker (no-op generator) → stored PNG + thumbnail + flat file → output and job completed',
  );
  console.log(
    'floor:    the same BullMQ wrapper and options, one add per job; insert job + output (1 statement); mark both completed (1 statement)',
  );
  const pipelineRuns: Round[] = [];
  const floorRuns: Round[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    pipelineRuns.push(await pipelineRound(side, round));
    floorRuns.push(await floorRound(side, round));
    console.log(
      `round ${round}: pipeline ${pipelineRuns.at(-1)!.perSecond.toFixed(1)} jobs/s, floor ${floorRuns.at(-1)!.perSecond.toFixed(1)} jobs/s`,
    );
  }
  const p = median(pipelineRuns.map((r) => r.perSecond));
  const f = median(floorRuns.map((r) => r.perSecond));
  const wireLine = (name: string, runs: Round[]) =>
    runs[0]?.wire
      ? `${name}: ${median(runs.map((r) => r.wire!.roundTrips)).toFixed(1)} round trips and ${median(runs.map((r) => r.wire!.commits)).toFixed(1)} explicit COMMITs per job (counted on the PostgreSQL wire)`
      : `${name}: round trips not counted (PGlite has no wire; set DATABASE_URL)`;
  console.log(wireLine('pipeline', pipelineRuns));
  console.log(wireLine('floor   ', floorRuns));
  console.log(`median jobs/s: pipeline ${p.toFixed(1)}, floor ${f.toFixed(1)}`);
  console.log(`pipeline/floor: ${(p / f).toFixed(2)}`);
} finally {
  if (database !== observer) await database.close();
  await wire?.close();
  await observer.close();
}
process.exit(0);

/**
 * `npm run bench:jobs`: our generation pipeline (startGeneration → BullMQ → worker with a no-op
 * generator → output and job completed) against a fair floor measured in the same run, rounds
 * alternated, medians of BENCH_ROUNDS (default 3). The floor uses the same BullMQ wrapper and
 * options (one add per job), the same schema, database and pool, and only two statements per job:
 * insert the job and its output (one statement), then mark both completed (one statement).
 * The last line is `pipeline/floor+files: R`: the pipeline against the floor that writes the same
 * files (the PNG and its WebP thumbnail), the target docs/jobs.md states; `pipeline/floor` before it.
 * A third floor, floor+files+claim, also has the pipeline's lifecycle: the job is inserted pending
 * and the handler first moves it to processing in a statement of its own (the claim, one more round
 * trip and commit) before it completes it; `pipeline/floor+files+claim` shows what the pipeline's
 * other work (its rows, history, payloads) costs beyond that round trip (docs/jobs.md "Throughput").
 *
 * Round trips and commits per job are counted on the PostgreSQL wire by a counting proxy
 * (bench/pg-wire-counter.ts) in a separate, untimed pass per side, from the first submit to the
 * last job finished (the proxy costs CPU in this process for every round trip, so the timed
 * rounds talk to PostgreSQL directly); the pipeline is counted for an operator (not charged) and
 * for a charged user. A pass starts with a new pool, so the pipeline's first submit also reads
 * the collection and the workflow into that pool's cache.
 *
 * Environment: REDIS_URL (default redis://127.0.0.1:6379), DATABASE_URL (a throwaway database is
 * created on that server; PGlite without it, and no wire counts), BENCH_JOBS (jobs per round and
 * side, default 300), BENCH_ROUNDS (default 3), BENCH_CONCURRENCY (worker concurrency for both,
 * default 20), BENCH_COUNT_JOBS (jobs per counted pass, default 100), BENCH_ONLY=pipeline|floor|floor+files|floor+claim (profiling: one side, timed
 * rounds only, e.g. under `node --cpu-prof --import tsx bench/jobs.ts`).
 *
 * The no-op generator returns a fixed 8×8 PNG (no rendering). Figures: docs/jobs.md "Throughput".
 */
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { testConfig } from '../src/config.ts';
import { openDatabase, type Database } from '../src/db/client.ts';
import { seedBuiltinWorkflows } from '../src/db/workflows.ts';
import type { StepPayload } from '../src/generation/pipeline.ts';
import { startGenerationWorker } from '../src/generation/runtime.ts';
import { BullMqQueue } from '../src/queue/index.ts';
import { startGeneration } from '../src/services/wire-generation.ts';
import { LocalStorage } from '../src/storage/local.ts';
import { renderThumbnail } from '../src/storage/thumbnails.ts';
import { createTestDatabase } from '../test/helpers/db.ts';
import { deleteRedisPrefix } from '../test/helpers/jobs.ts';
import { benchCollection, tinyPng } from './fixtures.ts';
import { startWireCounter, type WireCounter, type WireCounts } from './pg-wire-counter.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const JOBS = Number(process.env.BENCH_JOBS ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 20);
const COUNT_JOBS = Number(process.env.BENCH_COUNT_JOBS ?? 100);
/** Profiling aid: run one side only (no ratio). */
const ONLY = process.env.BENCH_ONLY as 'pipeline' | 'floor' | 'floor+files' | 'floor+claim' | undefined;
const SUBMITTERS = 8;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Round {
  perSecond: number;
  /** CPU of this process per job (ms). */
  cpuMs: number;
  /** CPU of the PostgreSQL backends serving this database per job (ms), when readable. */
  pgCpuMs?: number;
  /** Per job, when the side's database goes through the counting proxy. */
  wire?: WireCounts;
}

interface Side {
  database: Database;
  observer: Database;
  collectionId: string;
  tiny: Buffer;
  wire?: WireCounter;
}

/** Jobs of this type in a final state, read on the observer's connection. */
async function finished(observer: Database, jobType: string): Promise<number> {
  const r = await observer.db.execute(
    sql`select count(*)::int as n from jobs where job_type = ${jobType} and status in ('completed', 'failed')`,
  );
  return Number((r as unknown as { rows: Array<{ n: number }> }).rows[0]!.n);
}

async function waitFor(observer: Database, jobType: string, n: number): Promise<void> {
  while ((await finished(observer, jobType)) < n) await sleep(20);
}

/** Runs `submit` for n jobs from SUBMITTERS concurrent submitters. */
async function submitAll(n: number, submit: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: SUBMITTERS }, async () => {
      while (next < n) await submit(next++);
    }),
  );
}

/**
 * CPU time (ms) of the PostgreSQL backends of the observed database (Linux /proc, same machine),
 * or undefined. The server is shared, so only this database's backends are summed.
 */
async function pgBackendCpu(observer: Database): Promise<number | undefined> {
  if (observer.kind !== 'postgres') return undefined;
  const r = (await observer.db.execute(sql`select pid from pg_stat_activity where datname = current_database()`)) as unknown as {
    rows: Array<{ pid: number }>;
  };
  let ms = 0;
  for (const { pid } of r.rows) {
    try {
      ms += Number(fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
    } catch {
      return undefined;
    }
  }
  return ms;
}

/** Times `body` (which submits n jobs of `jobType` and returns when they are submitted) until all finish. */
async function timed(side: Side, jobType: string, n: number, body: () => Promise<void>): Promise<Round> {
  const pg0 = await pgBackendCpu(side.observer);
  const wire0 = side.wire?.counts();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await body();
  await waitFor(side.observer, jobType, n);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const wire1 = side.wire?.counts();
  const pg1 = await pgBackendCpu(side.observer);
  return {
    perSecond: n / seconds,
    cpuMs: (cpu.user + cpu.system) / 1000 / n,
    ...(pg0 !== undefined && pg1 !== undefined ? { pgCpuMs: (pg1 - pg0) / n } : {}),
    ...(wire0 && wire1
      ? { wire: { roundTrips: (wire1.roundTrips - wire0.roundTrips) / n, commits: (wire1.commits - wire0.commits) / n } }
      : {}),
  };
}

/** The pipeline: startGeneration → BullMQ → our worker (no-op generator, files, thumbnail) → completed. */
async function pipelineRound(side: Side, label: string, n: number, opts: { charged?: boolean } = {}): Promise<Round> {
  const prefix = `atelier-bench-${randomUUID().slice(0, 8)}`;
  const filesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-bench-'));
  const storage = new LocalStorage({ root: filesDir, baseUrl: 'http://bench.test/files' });
  const config = testConfig({ REDIS_URL, CREDITS_PER_GENERATION: opts.charged ? '1' : '0', CREDITS_INITIAL_GRANT: '1000000' });
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
  const jobType = `bench-pipeline-${label}`;
  const ctx = { db: side.database.db, config, queue, storage };
  try {
    return await timed(side, jobType, n, () =>
      submitAll(n, async (i) => {
        await startGeneration(ctx, {
          collectionId: side.collectionId,
          variables: {},
          userId: opts.charged ? `bench-user-${i % 8}` : 'bench-user',
          isService: !opts.charged,
          source: 'load_test',
          jobType,
        });
      }),
    );
  } finally {
    await worker.close();
    await queue.close();
    await deleteRedisPrefix(prefix);
    fs.rmSync(filesDir, { recursive: true, force: true });
  }
}

/**
 * The floor: the same queue wrapper and options; two statements per job. With `files`, the
 * handler also writes what the pipeline writes (the PNG and a WebP thumbnail rendered from it).
 * With `claim`, the job is inserted pending and the handler first moves it to processing in a
 * statement of its own, as the pipeline's claim does: three statements per job.
 */
async function floorRound(side: Side, label: string, n: number, opts: { files?: boolean; claim?: boolean } = {}): Promise<Round> {
  const prefix = `atelier-bench-${randomUUID().slice(0, 8)}`;
  const filesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-bench-'));
  const storage = new LocalStorage({ root: filesDir, baseUrl: 'http://bench.test/files' });
  const queue = new BullMqQueue<{ jobId: string }>('generation', { redisUrl: REDIS_URL, prefix, drainDelaySeconds: 1 });
  const db = side.database.db;
  const handle = queue.process(
    async (job) => {
      if (opts.claim)
        await db.execute(
          sql`update jobs set status = 'processing', started_at = now(), updated_at = now() where id = ${job.payload.jobId} and status = 'pending'`,
        );
      await job.reportProgress(100); // what the no-op generator reports
      let url = 'http://bench.test/files/floor.png';
      if (opts.files) {
        const run = randomBytes(4).toString('hex');
        const id = job.payload.jobId;
        url = (await storage.putNew(`generations/${id.slice(0, 2)}/${id}-${run}.png`, side.tiny, 'image/png')).url;
        await storage.putNew(`thumbnails/${id}-${run}.webp`, await renderThumbnail(side.tiny), 'image/webp');
      }
      await db.execute(sql`
        with j as (
          update jobs set status = 'completed', progress = 100, completed_at = now(), updated_at = now()
          where id = ${job.payload.jobId} and status = 'processing' returning id
        )
        update outputs set status = 'completed', url = ${url}, mime_type = 'image/png',
          completed_at = now(), updated_at = now()
        where job_id in (select id from j)`);
    },
    { concurrency: CONCURRENCY },
  );
  const jobType = `bench-floor-${label}`;
  try {
    return await timed(side, jobType, n, () =>
      submitAll(n, async () => {
        const jobId = randomUUID();
        await db.execute(sql`
          with j as (
            insert into jobs (id, status, job_type, data, user_id, collection_id)
            values (${jobId}, ${opts.claim ? 'pending' : 'processing'}, ${jobType}, '{}'::jsonb, 'bench-user', ${side.collectionId}::uuid) returning id
          )
          insert into outputs (collection_id, job_id, user_id, status, source)
          select ${side.collectionId}::uuid, id, 'bench-user', 'pending', 'load_test' from j`);
        await queue.add(jobId, { jobId }, { priority: 51 });
      }),
    );
  } finally {
    await handle.close();
    await queue.close();
    await deleteRedisPrefix(prefix);
    fs.rmSync(filesDir, { recursive: true, force: true });
  }
}

/**
 * One untimed pass of `run` on a database handle that goes through the counting proxy: the round
 * trips and commits per job, counted from the first submit to the last job finished.
 */
async function counted(url: string, side: Side, run: (side: Side) => Promise<Round>): Promise<WireCounts> {
  const wire = await startWireCounter(url);
  const database = await openDatabase({ url: wire.url });
  try {
    return (await run({ ...side, database, wire })).wire!;
  } finally {
    await database.close();
    await wire.close();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (x: number | undefined, d = 1) => (x === undefined ? 'n/a' : x.toFixed(d));

const observer = await createTestDatabase();
// The measured side has its own pool; the observer's polling runs on another.
const database = observer.url ? await openDatabase({ url: observer.url }) : observer;
try {
  await seedBuiltinWorkflows(database.db);
  const collection = await benchCollection(database.db);
  const side: Side = { database, observer, collectionId: collection.id, tiny: await tinyPng() };
  console.log(
    `jobs bench: ${database.kind}, Redis ${REDIS_URL}, ${JOBS} jobs per side and round, ${ROUNDS} alternated rounds, worker concurrency ${CONCURRENCY}, ${SUBMITTERS} submitters, ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(2)}`,
  );
  console.log(
    'pipeline: startGeneration → BullMQ → worker (no-op generator) → stored PNG + WebP thumbnail + flat file → output and job completed',
  );
  console.log(
    'floor:    the same BullMQ wrapper and options, one add per job; insert job + output (1 statement); mark both completed (1 statement)',
  );
  console.log('floor+files: the floor, also writing the PNG and its WebP thumbnail through the same storage');
  console.log('floor+files+claim: floor+files with the job inserted pending and moved to processing by a claim statement of its own');

  // Warm-up (connections, prepared statements, caches, JIT) for both sides, not counted.
  await pipelineRound(side, 'warm', 50);
  await floorRound(side, 'warm', 50);

  const runs = { pipeline: [] as Round[], floor: [] as Round[], floorFiles: [] as Round[], floorClaim: [] as Round[] };
  for (let round = 1; round <= ROUNDS; round++) {
    if (ONLY === undefined || ONLY === 'pipeline') runs.pipeline.push(await pipelineRound(side, `${round}`, JOBS));
    if (ONLY === undefined || ONLY === 'floor') runs.floor.push(await floorRound(side, `${round}`, JOBS));
    if (ONLY === undefined || ONLY === 'floor+files') runs.floorFiles.push(await floorRound(side, `files-${round}`, JOBS, { files: true }));
    if (ONLY === undefined || ONLY === 'floor+claim')
      runs.floorClaim.push(await floorRound(side, `claim-${round}`, JOBS, { files: true, claim: true }));
    const line = (name: string, r: Round | undefined) =>
      r
        ? `${name} ${r.perSecond.toFixed(1)} jobs/s (CPU per job: bench process ${fmt(r.cpuMs, 2)} ms, PostgreSQL ${fmt(r.pgCpuMs, 2)} ms)`
        : '';
    console.log(
      `round ${round}: ${[
        line('pipeline', runs.pipeline.at(-1)),
        line('floor', runs.floor.at(-1)),
        line('floor+files', runs.floorFiles.at(-1)),
        line('floor+files+claim', runs.floorClaim.at(-1)),
      ]
        .filter(Boolean)
        .join('; ')}`,
    );
  }

  if (ONLY) process.exit(0);
  if (observer.url) {
    const url = observer.url;
    const wire = {
      pipeline: await counted(url, side, (s) => pipelineRound(s, 'count', COUNT_JOBS)),
      charged: await counted(url, side, (s) => pipelineRound(s, 'count-charged', COUNT_JOBS, { charged: true })),
      floor: await counted(url, side, (s) => floorRound(s, 'count', COUNT_JOBS)),
    };
    const w = (name: string, c: WireCounts) =>
      console.log(
        `${name}: ${c.roundTrips.toFixed(1)} round trips and ${c.commits.toFixed(1)} explicit COMMITs per job (counted on the PostgreSQL wire, ${COUNT_JOBS} jobs)`,
      );
    w('pipeline (operator)    ', wire.pipeline);
    w('pipeline (charged user)', wire.charged);
    w('floor                  ', wire.floor);
  } else {
    console.log('round trips not counted (PGlite has no wire; set DATABASE_URL)');
  }

  const p = median(runs.pipeline.map((r) => r.perSecond));
  const f = median(runs.floor.map((r) => r.perSecond));
  const cpu = (rs: Round[]) =>
    `${median(rs.map((r) => r.cpuMs)).toFixed(2)} ms bench process, ${rs.every((r) => r.pgCpuMs !== undefined) ? `${median(rs.map((r) => r.pgCpuMs!)).toFixed(2)} ms` : 'n/a'} PostgreSQL`;
  console.log(`median CPU per job: pipeline ${cpu(runs.pipeline)}; floor ${cpu(runs.floor)}`);
  const ff = median(runs.floorFiles.map((r) => r.perSecond));
  const fc = median(runs.floorClaim.map((r) => r.perSecond));
  console.log(`median CPU per job: floor+files ${cpu(runs.floorFiles)}; floor+files+claim ${cpu(runs.floorClaim)}`);
  console.log(
    `median jobs/s: pipeline ${p.toFixed(1)}, floor ${f.toFixed(1)}, floor+files ${ff.toFixed(1)}, floor+files+claim ${fc.toFixed(1)}`,
  );
  console.log(`pipeline/floor+files+claim: ${(p / fc).toFixed(2)}`);
  console.log(`pipeline/floor: ${(p / f).toFixed(2)}`);
  console.log(`pipeline/floor+files: ${(p / ff).toFixed(2)}`);
} finally {
  if (database !== observer) await database.close();
  await observer.close();
}
process.exit(0);

/**
 * `npm run bench:sse`: the cost of open SSE job streams (docs/jobs.md "SSE stream"). One process
 * runs the backend and the worker (the server side, measured); the stream clients run in a child
 * process (bench/sse-clients.ts), so their parsing neither delays the deliveries nor counts as the
 * server's CPU. The same job load runs in alternated phases: one stream per running job, then
 * BENCH_STREAMS (default 1,000) streams spread over the same number of running jobs, BENCH_ROUNDS
 * times. Printed per phase: database queries per second sent by the server process (counted at
 * the driver: node-postgres and PGlite), the server's CPU, and the delivery delay of each `job_history` event (arrival at the client − the entry's
 * created_at), pooled over the rounds. The last line is what the extra streams add per second.
 *
 * Environment: DATABASE_URL (a throwaway database on that server; PGlite without it), REDIS_URL
 * (BullMQ job queue and the backend's Redis, as in production; the in-process queue without it),
 * BENCH_STREAMS (1000), BENCH_JOBS_RUNNING (jobs running at once, 20), BENCH_SECONDS (10),
 * BENCH_ROUNDS (2).
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import { PGlite } from '@electric-sql/pglite';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { GeneratorConnector } from '../src/generation/connectors/index.ts';
import type { StepPayload } from '../src/generation/pipeline.ts';
import { JOB_QUEUE_NAME, startGenerationWorker } from '../src/generation/runtime.ts';
import { BullMqQueue, InProcessQueue, type WorkQueue } from '../src/queue/index.ts';
import { asService, sampleData, startTestPlatform } from '../test/helpers/platform.ts';
import { tinyPng } from './fixtures.ts';
import { startSseClients } from './sse-clients.ts';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const RUNNING = Number(process.env.BENCH_JOBS_RUNNING ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const REDIS_URL = process.env.REDIS_URL || undefined;

// Queries counted where both drivers take them (bench instrumentation of this process only).
let queries = 0;
for (const proto of [pg.Client.prototype, PGlite.prototype] as unknown as Array<Record<string, unknown>>) {
  for (const name of ['query', 'exec']) {
    const original = proto[name] as ((...a: unknown[]) => unknown) | undefined;
    if (!original) continue;
    proto[name] = function (this: unknown, ...args: unknown[]) {
      queries += 1;
      return original.apply(this, args);
    };
  }
}

// The server side of the delay: when the server hands each job_history frame to its socket (the
// client side adds the kernel and the one client process reading all the streams in turn).
let serverDelays: number[] = [];
let recording = false;
{
  const CREATED = /^event: job_history\ndata: .*"created_at":"([^"]+)"/gm;
  const original = http.ServerResponse.prototype.write as (...a: unknown[]) => boolean;
  http.ServerResponse.prototype.write = function (this: http.ServerResponse, ...args: unknown[]) {
    const chunk = args[0];
    if (recording && typeof chunk === 'string' && chunk.includes('event: job_history')) {
      const now = Date.now();
      for (const m of chunk.matchAll(CREATED)) serverDelays.push(now - Date.parse(m[1]!));
    }
    return original.apply(this, args);
  } as typeof http.ServerResponse.prototype.write;
}

const tiny = await tinyPng();
/** A generator that reports progress every 500 ms (each report a history entry) until the phase ends it. */
let generating = true;
const slow: GeneratorConnector = {
  kind: 'bench-slow',
  async generate(_req, onProgress) {
    for (let pct = 1; generating && pct < 99; pct += 1) {
      await new Promise((r) => setTimeout(r, 500));
      onProgress(pct);
    }
    return { bytes: tiny, mimeType: 'image/png' };
  },
};

const prefix = `atelier-bench-sse-${randomUUID().slice(0, 8)}`;
const queue: WorkQueue<StepPayload> = REDIS_URL
  ? new BullMqQueue<StepPayload>(JOB_QUEUE_NAME, { redisUrl: REDIS_URL, prefix, drainDelaySeconds: 1 })
  : new InProcessQueue<StepPayload>(JOB_QUEUE_NAME);
const p = await startTestPlatform(
  { CREDITS_PER_GENERATION: '0', ...(REDIS_URL ? { REDIS_URL } : {}) },
  { jobQueue: queue, sse: { heartbeatMs: 15_000 } },
);
const worker = await startGenerationWorker({
  config: p.config,
  database: p.database,
  storage: p.storage,
  queue,
  concurrency: RUNNING,
  reconcile: false,
  connectorFor: () => slow,
});
const created = await p.request('backend', '/nft/collections', {
  headers: asService({ user_id: 'bench' }),
  body: { title: 'SSE bench', data: sampleData() },
});
const collectionId: string = created.body.data.collection.id;
const clients = await startSseClients();

async function submit(): Promise<string> {
  const res = await p.request('backend', `/api/collections/${collectionId}/generate`, {
    headers: asService({ user_id: 'bench' }),
    body: { variables: {} },
  });
  if (res.status !== 202) throw new Error(`generate: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.jobId;
}

interface Phase {
  open: number;
  qps: number;
  cpuPct: number;
  delays: number[];
  serverDelays: number[];
}

/** RUNNING jobs reporting progress, `perJob` streams held open on each; measured for SECONDS. */
async function phase(perJob: number): Promise<Phase> {
  generating = true;
  const jobIds = await Promise.all(Array.from({ length: RUNNING }, submit));
  // Measured once every stream has its snapshot (opening costs a few queries per stream, once).
  const open = await clients.open({ url: `${p.backendUrl}/api/jobs/:id/stream`, headers: asService(), jobIds, perJob });
  await new Promise((r) => setTimeout(r, 1000));
  await clients.reset();
  serverDelays = [];
  recording = true;
  const q0 = queries;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  recording = false;
  const result = {
    open,
    qps: (queries - q0) / seconds,
    cpuPct: ((cpu.user + cpu.system) / 1e6 / seconds) * 100,
    delays: await clients.collect(),
    serverDelays,
  };
  generating = false; // the jobs complete, and their streams end
  await clients.drain();
  return result;
}

const pct = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((q / 100) * s.length))]! : Number.NaN;
};
const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

try {
  const db = p.database.kind === 'postgres' ? 'PostgreSQL' : 'PGlite';
  const load0 = os.loadavg()[0]!;
  const few: Phase[] = [];
  const many: Phase[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    few.push(await phase(1));
    many.push(await phase(Math.max(1, Math.round(STREAMS / RUNNING))));
  }
  const load1 = os.loadavg()[0]!;
  console.log(
    `SSE bench (${db}, ${REDIS_URL ? 'REDIS_URL set: BullMQ queue' : 'no REDIS_URL: in-process queue'}): ${RUNNING} jobs running at once, ` +
      `each writing a history entry every 500 ms; ${ROUNDS} alternated rounds of ${SECONDS} s per phase; stream clients in their own process.`,
  );
  console.log(
    `${os.cpus().length} cores, load average ${load0.toFixed(2)} → ${load1.toFixed(2)}. Queries and CPU are the server process's (backend + worker).`,
  );
  const line = (ps: Phase[]) => {
    const d = ps.flatMap((x) => x.delays);
    const sd = ps.flatMap((x) => x.serverDelays);
    return (
      `${String(ps[0]!.open).padStart(5)} open streams: ${mean(ps.map((x) => x.qps))
        .toFixed(1)
        .padStart(6)} queries/s, ` +
      `CPU ${mean(ps.map((x) => x.cpuPct))
        .toFixed(0)
        .padStart(3)} %, ` +
      `delivery p50 ${pct(d, 50).toFixed(0)} ms, p99 ${pct(d, 99).toFixed(0)} ms, max ${pct(d, 100).toFixed(0)} ms (${d.length} events); ` +
      `written by the server p50 ${pct(sd, 50).toFixed(0)} ms, p99 ${pct(sd, 99).toFixed(0)} ms`
    );
  };
  console.log(line(few));
  console.log(line(many));
  console.log(`per round, queries/s: ${few.map((x, i) => `${x.qps.toFixed(1)} → ${many[i]!.qps.toFixed(1)}`).join('; ')}`);
  console.log(
    `queries/s added by ${many[0]!.open - few[0]!.open} more streams on the same jobs: ${(mean(many.map((x) => x.qps)) - mean(few.map((x) => x.qps))).toFixed(1)}`,
  );
} finally {
  await clients.close();
  await worker.close();
  await queue.close();
  await p.close();
  if (REDIS_URL) {
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  }
}
process.exit(0);

/**
 * `npm run bench:sse`: the cost of open SSE job streams (docs/jobs.md "SSE stream"). The same job
 * load runs twice in one process (backend + worker): once with one stream per running job, once
 * with BENCH_STREAMS (default 1,000) streams spread over the same number of running jobs. Printed
 * per phase: database queries per second issued by this process (counted at the driver), CPU, and
 * the delivery delay of each `job_history` event (arrival at the client − the entry's created_at).
 * The last line compares the phases: the queries the extra streams add per second (a reader per
 * job, not per stream, keeps it near zero; a poll per stream would add 2 queries per poll each).
 *
 * Environment: DATABASE_URL (a throwaway database on that server; PGlite without it),
 * BENCH_STREAMS (1000), BENCH_JOBS_RUNNING (jobs kept running at once, 20), BENCH_SECONDS (10).
 */
import os from 'node:os';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { GeneratorConnector } from '../src/generation/connectors/index.ts';
import type { StepPayload } from '../src/generation/pipeline.ts';
import { startGenerationWorker } from '../src/generation/runtime.ts';
import { InProcessQueue } from '../src/queue/index.ts';
import { asService, sampleData, startTestPlatform } from '../test/helpers/platform.ts';
import { tinyPng } from './fixtures.ts';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const RUNNING = Number(process.env.BENCH_JOBS_RUNNING ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

// Queries counted where both drivers take them (bench instrumentation only).
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

const queue = new InProcessQueue<StepPayload>('generation');
const p = await startTestPlatform({ CREDITS_PER_GENERATION: '0' }, { jobQueue: queue, sse: { heartbeatMs: 15_000 } });
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

async function submit(): Promise<string> {
  const res = await p.request('backend', `/api/collections/${collectionId}/generate`, {
    headers: asService({ user_id: 'bench' }),
    body: { variables: {} },
  });
  if (res.status !== 202) throw new Error(`generate: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.jobId;
}

const delays: number[] = [];
let opened = 0;
/** Reads one job stream to its end, recording each job_history event's delivery delay. */
async function stream(jobId: string): Promise<void> {
  const res = await fetch(`${p.backendUrl}/api/jobs/${jobId}/stream`, { headers: asService() });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    text += decoder.decode(value, { stream: true });
    let cut = text.indexOf('\n\n');
    while (cut >= 0) {
      const block = text.slice(0, cut);
      text = text.slice(cut + 2);
      if (block.includes('event: history_init')) opened += 1;
      if (block.includes('event: job_history')) {
        const data = JSON.parse(/^data: (.*)$/m.exec(block)![1]!);
        delays.push(Date.now() - Date.parse(data.created_at));
      }
      cut = text.indexOf('\n\n');
    }
  }
}

/** RUNNING jobs reporting progress, `streamsPerJob` streams held open on each; measured for SECONDS. */
async function phase(streamsPerJob: number) {
  generating = true;
  const jobIds = await Promise.all(Array.from({ length: RUNNING }, submit));
  const readers = jobIds.flatMap((id) => Array.from({ length: streamsPerJob }, () => stream(id)));
  // Measured once every stream has its snapshot (opening costs a few queries per stream, once).
  opened = 0;
  while (opened < readers.length) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 1000));
  delays.length = 0;
  const q0 = queries;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const qps = (queries - q0) / seconds;
  generating = false; // the jobs complete, and their streams end
  await Promise.all(readers);
  return { qps, cpuPct: ((cpu.user + cpu.system) / 1e6 / seconds) * 100, open: readers.length };
}

const pct = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((q / 100) * s.length))]! : Number.NaN;
};

try {
  const db = p.database.kind === 'postgres' ? 'PostgreSQL' : 'PGlite';
  console.log(
    `SSE bench (${db}): ${RUNNING} jobs running at once, each writing a history entry every 500 ms; ${SECONDS} s measured per phase,`,
  );
  console.log(
    `${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(2)}. Queries are counted in this process (backend + worker).`,
  );
  const line = (r: Awaited<ReturnType<typeof phase>>, d: number[]) =>
    `${String(r.open).padStart(5)} open streams: ${r.qps.toFixed(0).padStart(6)} queries/s, CPU ${r.cpuPct.toFixed(0).padStart(3)} %, ` +
    `delivery p50 ${pct(d, 50).toFixed(0)} ms, p99 ${pct(d, 99).toFixed(0)} ms (${d.length} events)`;
  const few = await phase(1);
  console.log(line(few, [...delays]));
  const many = await phase(Math.max(1, Math.round(STREAMS / RUNNING)));
  console.log(line(many, [...delays]));
  console.log(`queries/s added by ${many.open - few.open} more streams on the same jobs: ${(many.qps - few.qps).toFixed(1)}`);
} finally {
  await worker.close();
  await queue.close();
  await p.close();
}
process.exit(0);

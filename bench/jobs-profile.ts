/**
 * `npx tsx bench/jobs-profile.ts`: where one generation job's time goes, measured one job at a
 * time (no concurrency, so latencies are not queueing). Needs DATABASE_URL (it counts statements
 * at the node-postgres client). Phases: startGeneration (queue add stubbed and timed apart), the
 * worker's step handler (queue hop excluded), and, inside it, storage and thumbnail work.
 * BENCH_PROFILE_JOBS (default 100).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { testConfig } from '../src/config.ts';
import { benchCollection, tinyPng } from './fixtures.ts';
import { seedBuiltinWorkflows } from '../src/db/workflows.ts';
import type { StepPayload } from '../src/generation/pipeline.ts';
import { startGeneration } from '../src/services/wire-generation.ts';
import { createStepHandler } from '../src/generation/worker.ts';
import type { WorkQueue } from '../src/queue/index.ts';
import { LocalStorage } from '../src/storage/local.ts';
import { renderThumbnail } from '../src/storage/thumbnails.ts';
import { createTestDatabase } from '../test/helpers/db.ts';

if (!process.env.DATABASE_URL) throw new Error('set DATABASE_URL: statements are counted at the node-postgres client');
const N = Number(process.env.BENCH_PROFILE_JOBS ?? 100);

// Statement counter: every query that reaches a pg client, keyed by its first words.
const tally = new Map<string, { n: number; ms: number }>();
let counting = false;
const origQuery = pg.Client.prototype.query as (...a: unknown[]) => unknown;
(pg.Client.prototype as unknown as { query: unknown }).query = function (this: pg.Client, ...args: unknown[]) {
  const text = typeof args[0] === 'string' ? args[0] : ((args[0] as { text?: string })?.text ?? '?');
  if (!counting) return origQuery.apply(this, args);
  const key = text.replace(/\s+/g, ' ').replace(/"/g, '').slice(0, 70);
  const t0 = performance.now();
  const done = () => {
    const e = tally.get(key) ?? { n: 0, ms: 0 };
    e.n++;
    e.ms += performance.now() - t0;
    tally.set(key, e);
  };
  // pg.Pool#query uses the callback form; transactions use the promise form.
  const last = args[args.length - 1];
  if (typeof last === 'function') {
    args[args.length - 1] = (...cb: unknown[]) => (done(), (last as (...x: unknown[]) => unknown)(...cb));
    return origQuery.apply(this, args);
  }
  const r = origQuery.apply(this, args) as Promise<unknown>;
  if (r && typeof r.then === 'function') return r.finally(done);
  return r;
};

function report(title: string, ms: number) {
  const rows = [...tally.entries()].sort((a, b) => b[1].n - a[1].n);
  const total = rows.reduce((s, [, v]) => s + v.n, 0);
  const tx = tally.get('BEGIN')?.n ?? tally.get('begin')?.n ?? 0;
  console.log(
    `\n${title}: ${(ms / N).toFixed(2)} ms per job, ${(total / N).toFixed(1)} statements per job (${(tx / N).toFixed(1)} transactions)`,
  );
  for (const [k, v] of rows) console.log(`  ${(v.n / N).toFixed(2).padStart(5)} × ${(v.ms / v.n).toFixed(2).padStart(6)} ms  ${k}`);
  tally.clear();
}

const database = await createTestDatabase();
const filesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-profile-'));
const storage = new LocalStorage({ root: filesDir, baseUrl: 'http://bench.test/files' });
const config = testConfig({ CREDITS_PER_GENERATION: '1' });
const added: Array<{ id: string; payload: StepPayload }> = [];
let queueMs = 0;
const queue = {
  name: 'profile',
  async add(id: string, payload: StepPayload) {
    const t0 = performance.now();
    added.push({ id, payload: JSON.parse(JSON.stringify(payload)) as StepPayload });
    queueMs += performance.now() - t0;
  },
} as unknown as WorkQueue<StepPayload>;
await seedBuiltinWorkflows(database.db);
const collection = await benchCollection(database.db);
const tiny = await tinyPng();
const ctx = { db: database.db, config, queue, storage };

counting = true;
let t0 = performance.now();
for (let i = 0; i < N; i++) {
  await startGeneration(ctx, {
    collectionId: collection.id,
    variables: {},
    userId: `bench-user-${i % 5}`,
    isService: false,
    source: 'load_test',
    jobType: 'bench',
  });
}
report('startGeneration (charged user)', performance.now() - t0);

const handler = createStepHandler({
  ...ctx,
  connectorFor: () => ({ kind: 'noop', generate: async (_r, onProgress) => (onProgress(100), { bytes: tiny, mimeType: 'image/png' }) }),
});
t0 = performance.now();
for (const { id, payload } of added.splice(0)) {
  await handler({ id, payload, attempt: 1, reportProgress: async () => undefined });
}
report('worker step handler (one-step job, incl. storage + thumbnail)', performance.now() - t0);
counting = false;

t0 = performance.now();
for (let i = 0; i < N; i++) await storage.put(`profile/x-${i}.png`, tiny, 'image/png');
const putMs = (performance.now() - t0) / N;
t0 = performance.now();
for (let i = 0; i < N; i++) await renderThumbnail(tiny);
const thumbMs = (performance.now() - t0) / N;
console.log(
  `\nstorage.put of the 8×8 PNG: ${putMs.toFixed(2)} ms; WebP thumbnail of it: ${thumbMs.toFixed(2)} ms; queue add stub: ${(queueMs / N).toFixed(3)} ms`,
);

await database.close();
fs.rmSync(filesDir, { recursive: true, force: true });
process.exit(0);

/**
 * `npx tsx bench/jobs-profile.ts`: where one generation job's time goes, measured one job at a
 * time (no concurrency, so latencies are not queueing). Needs DATABASE_URL (it counts statements
 * at the node-postgres client). Phases: startGeneration (queue add stubbed and timed apart), the
 * worker's step handler (queue hop excluded), and, inside it, storage and thumbnail work.
 * BENCH_PROFILE_JOBS (default 100).
 *
 * Also the rows each phase writes per job, per table (inserted, updated, of which HOT), from
 * pg_stat_user_tables: each phase runs on a pool of its own that is closed before the read (a
 * backend flushes its counters when it exits), so the counts are exact and this database's only.
 * The WAL bytes are the server's (pg_current_wal_lsn), so they include other sessions' writes.
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
import { openDatabase, type Database } from '../src/db/client.ts';
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

interface TableWrites {
  [table: string]: { ins: number; upd: number; hot: number };
}

async function tableWrites(url: string): Promise<{ tables: TableWrites; lsn: string }> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const r = await c.query(
    'select relname, n_tup_ins::int as ins, n_tup_upd::int as upd, n_tup_hot_upd::int as hot from pg_stat_user_tables',
  );
  const lsn = (await c.query('select pg_current_wal_lsn()::text as l')).rows[0].l as string;
  await c.end();
  return { tables: Object.fromEntries(r.rows.map((x) => [x.relname, { ins: x.ins, upd: x.upd, hot: x.hot }])), lsn };
}

const lsnBytes = (l: string) => {
  const [hi, lo] = l.split('/');
  return Number.parseInt(hi!, 16) * 2 ** 32 + Number.parseInt(lo!, 16);
};

function reportWrites(title: string, a: Awaited<ReturnType<typeof tableWrites>>, b: Awaited<ReturnType<typeof tableWrites>>) {
  const lines: string[] = [];
  let total = 0;
  for (const [t, w] of Object.entries(b.tables)) {
    const o = a.tables[t] ?? { ins: 0, upd: 0, hot: 0 };
    const ins = (w.ins - o.ins) / N;
    const upd = (w.upd - o.upd) / N;
    const hot = (w.hot - o.hot) / N;
    if (ins === 0 && upd === 0) continue;
    total += ins + upd;
    lines.push(`  ${t.padEnd(20)} ${ins.toFixed(2)} inserted, ${upd.toFixed(2)} updated (${hot.toFixed(2)} HOT)`);
  }
  console.log(
    `${title}: ${total.toFixed(2)} row writes per job; WAL ${((lsnBytes(b.lsn) - lsnBytes(a.lsn)) / N / 1024).toFixed(1)} KB per job (server-wide)`,
  );
  for (const l of lines.sort()) console.log(l);
}

const owner = await createTestDatabase();
// The measured phases run on pools of their own, closed before their writes are read.
const database: Database = await openDatabase({ url: owner.url! });
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

const w0 = await tableWrites(owner.url!);
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
counting = false;
await database.close();
const w1 = await tableWrites(owner.url!);
const workerDb = await openDatabase({ url: owner.url! });
ctx.db = workerDb.db;
counting = true;

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
await workerDb.close();
const w2 = await tableWrites(owner.url!);
console.log('');
reportWrites('rows written by startGeneration', w0, w1);
reportWrites('rows written by the worker', w1, w2);
reportWrites('rows written per job', w0, w2);

t0 = performance.now();
for (let i = 0; i < N; i++) await storage.put(`profile/x-${i}.png`, tiny, 'image/png');
const putMs = (performance.now() - t0) / N;
t0 = performance.now();
for (let i = 0; i < N; i++) await renderThumbnail(tiny);
const thumbMs = (performance.now() - t0) / N;
console.log(
  `\nstorage.put of the 8×8 PNG: ${putMs.toFixed(2)} ms; WebP thumbnail of it: ${thumbMs.toFixed(2)} ms; queue add stub: ${(queueMs / N).toFixed(3)} ms`,
);

await owner.close();
fs.rmSync(filesDir, { recursive: true, force: true });
process.exit(0);

/**
 * A worker killed mid-step (docs/operations.md "A worker killed mid-step"): two worker processes
 * on BullMQ with the queue's default lock and stall settings (as `atelier worker` runs them); the
 * one holding the step is killed with SIGKILL after it uploaded the step's image and before it
 * committed. The other takes the step over within 5 s of the death, the job completes once, and
 * the killed attempt's upload is no orphan: the step's one object key is the one the next run
 * wrote, and the files directory holds nothing else for the job.
 * PostgreSQL (two processes share the database) and Redis.
 */
process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { and, eq } from 'drizzle-orm';
import { jobHistory } from '../src/db/schema/index.ts';
import { client, svc } from './helpers/content.ts';
import { REDIS_URL, startJobsPlatform, waitFor, type JobsPlatform } from './helpers/jobs.ts';
import { sampleData } from './helpers/platform.ts';

let p: JobsPlatform;
const filesRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-takeover-'));
before(async () => {
  p = await startJobsPlatform('bullmq', { worker: false });
});
after(async () => {
  await p?.close();
  fs.rmSync(filesRoot, { recursive: true, force: true });
});

function startWorker(mode: 'die-after-upload' | 'normal') {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./jobs/takeover-worker.ts', import.meta.url))], {
    env: { ...process.env, DATABASE_URL: p.database.url!, REDIS_URL, QUEUE_PREFIX: p.prefix, FILES_ROOT: filesRoot, MODE: mode },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<NodeJS.Signals | number | null>((r) => child.on('exit', (c, s) => r(s ?? c)));
  const guard = setTimeout(() => child.kill('SIGKILL'), 120_000);
  child.on('exit', () => clearTimeout(guard));
  const said = (what: string) => waitFor(`${mode} worker: ${what}`, async () => (out.includes(what) ? out : undefined), 60_000, 20);
  return { child, exited, said };
}

test('kill -9 of the worker holding a step: another worker process takes it within 5 s; its upload is reused, not orphaned', async () => {
  const started: Array<ReturnType<typeof startWorker>> = [];
  const start = (mode: Parameters<typeof startWorker>[0]) => {
    const w = startWorker(mode);
    started.push(w);
    return w;
  };
  try {
    await run(start);
  } finally {
    for (const w of started) w.child.kill('SIGKILL');
  }
});

async function run(start: (mode: Parameters<typeof startWorker>[0]) => ReturnType<typeof startWorker>) {
  const doomed = start('die-after-upload');
  const api = client(p);
  const c = await api('/nft/collections', svc('creator'), { body: { title: 'Takeover', data: sampleData() } });
  assert.equal(c.status, 201, JSON.stringify(c.body));
  await doomed.said('READY');
  const res = await api(`/api/collections/${c.body.data.collection.id}/generate`, svc('creator'), { body: { variables: {} } });
  assert.equal(res.status, 202);
  const jobId = res.body.data.jobId as string;
  const uploaded = /UPLOADED (\S+)/.exec(await doomed.said('UPLOADED'))![1]!;

  // The survivor is running and idle before the kill: what is measured is the takeover, not its start.
  const survivor = start('normal');
  await survivor.said('READY');
  doomed.child.kill('SIGKILL');
  assert.equal(await doomed.exited, 'SIGKILL');
  const killedAt = Date.now();

  const restarted = await waitFor(
    'the step started again',
    async () => {
      const rows = await p.database.db
        .select()
        .from(jobHistory)
        .where(and(eq(jobHistory.job_id, jobId), eq(jobHistory.status, 'processing')));
      const starts = rows.filter((r) => (r.data as { event?: string } | null)?.event === 'node_started');
      return starts.length >= 2 ? Date.now() : undefined;
    },
    30_000,
    20,
  );
  const took = restarted - killedAt;
  console.log(`# step taken over ${took} ms after kill -9 of its worker (default lock and stall settings)`);
  assert.ok(took < 5000, `taken over ${took} ms after the kill`);

  const done = await waitFor('job completed', async () => {
    const j = (await api(`/api/jobs/${jobId}`, svc())).body.data;
    return j.status === 'completed' ? j : undefined;
  });
  // The output is the object the killed run uploaded first, rewritten by the run that committed.
  assert.ok(done.workflow_output.endsWith(`/files/${uploaded}`), `${done.workflow_output} vs ${uploaded}`);
  const files = fs
    .readdirSync(path.join(filesRoot, 'generations', jobId.slice(0, 2)))
    .filter((f) => f.startsWith(jobId) && !f.startsWith('.'));
  assert.deepEqual(files, [path.basename(uploaded)], 'one object for the step: nothing orphaned');
}

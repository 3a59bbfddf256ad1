/**
 * Graceful shutdown of a worker (src/generation/runtime.ts, src/queue/bullmq.ts handBack): SIGTERM
 * to a real worker process mid-step. A step that finishes within the grace period is finished by
 * it; a step still running when the grace is over is handed back to the queue at once (not after
 * a lock expiry) and run by another worker; either way the process exits 0 and the job completes
 * exactly once. Needs PostgreSQL (two processes share the database) and Redis.
 */
process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { eq } from 'drizzle-orm';
import { jobHistory } from '../../src/db/schema/index.ts';
import { ProceduralConnector } from '../../src/generation/connectors/index.ts';
import { client, svc } from '../helpers/content.ts';
import { readSteps, REDIS_URL, startJobsPlatform, waitFor, type JobsPlatform } from '../helpers/jobs.ts';
import { sampleData } from '../helpers/platform.ts';

let p: JobsPlatform;
before(async () => {
  p = await startJobsPlatform('bullmq', { worker: false });
});
after(() => p?.close());

function startChild(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./drain-worker.ts', import.meta.url))], {
    env: { ...process.env, DATABASE_URL: p.database.url!, REDIS_URL, QUEUE_PREFIX: p.prefix, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const guard = setTimeout(() => child.kill('SIGKILL'), 90_000);
  child.on('exit', () => clearTimeout(guard));
  const seen = (word: string) => waitFor(`child says ${word}`, async () => (out.includes(word) ? true : undefined), 60_000, 20);
  return { child, exited, seen, output: () => out };
}

async function generate(title: string): Promise<string> {
  const api = client(p);
  const c = await api('/nft/collections', svc('creator'), { body: { title, data: sampleData() } });
  const res = await api(`/api/collections/${c.body.data.collection.id}/generate`, svc('creator'), {
    body: { variables: { animal: 'phoenix' } },
  });
  assert.equal(res.status, 202);
  return res.body.data.jobId as string;
}

async function jobStatus(jobId: string): Promise<string> {
  return (await client(p)(`/api/jobs/${jobId}`, svc())).body.data.status;
}

async function completedOnce(jobId: string) {
  const hist = await p.database.db.select().from(jobHistory).where(eq(jobHistory.job_id, jobId));
  assert.equal(hist.filter((h) => h.status === 'completed').length, 1);
  assert.equal(hist.filter((h) => h.status === 'failed').length, 0);
  const steps = await readSteps(p.database.db, jobId);
  assert.deepEqual(
    steps.map((s) => s.status),
    ['completed'],
  );
}

test('SIGTERM mid-step within the grace: the worker finishes the step, then exits 0', async () => {
  const w = startChild({ MODE: 'finish', FINISH_AFTER_MS: '1500', GRACE_MS: '20000' });
  await w.seen('READY');
  const jobId = await generate('Drain finish');
  await w.seen('STARTED');
  w.child.kill('SIGTERM');
  assert.equal(await w.exited, 0);
  assert.match(w.output(), /FINISHED[\s\S]*DRAINED/);
  assert.equal(await jobStatus(jobId), 'completed');
  await completedOnce(jobId);
});

test('SIGTERM mid-step past the grace: the step is handed back, run by another worker once, exit 0', async () => {
  const w = startChild({ MODE: 'hang', GRACE_MS: '500' });
  await w.seen('READY');
  const jobId = await generate('Drain hand back');
  await w.seen('STARTED');
  const signalledAt = Date.now();
  w.child.kill('SIGTERM');
  assert.equal(await w.exited, 0);
  assert.match(w.output(), /ABORTED[\s\S]*DRAINED/);
  assert.notEqual(await jobStatus(jobId), 'failed', 'a handed back step is not a failure');

  let runs = 0;
  const real = new ProceduralConnector();
  await p.startWorker(() => ({
    kind: 'counting',
    generate: async (req: any, onProgress: any, signal?: AbortSignal) => {
      runs++;
      return real.generate({ ...req, width: 64, height: 64 }, onProgress, signal);
    },
  }));
  await waitFor('job completed', async () => ((await jobStatus(jobId)) === 'completed' ? true : undefined), 60_000);
  // The child's lock would have lasted 30 s: sooner means the step was handed back, not found stalled.
  assert.ok(Date.now() - signalledAt < 20_000, `completed ${Date.now() - signalledAt} ms after SIGTERM`);
  await new Promise((r) => setTimeout(r, 1000));
  assert.equal(runs, 1);
  await completedOnce(jobId);
});

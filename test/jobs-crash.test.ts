/**
 * BullMQ mode: a worker process SIGKILLed in the middle of a step. BullMQ's stalled check hands
 * the step to another worker, which runs it again; the job completes exactly once (one
 * `completed` history entry, one completed output, one completed step row).
 * Needs PostgreSQL (two processes share the database): DATABASE_URL, else the local test server.
 */
process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { eq } from 'drizzle-orm';
import { jobHistory, outputs } from '../src/db/schema/index.ts';
import { ProceduralConnector } from '../src/generation/connectors/index.ts';
import { client, svc } from './helpers/content.ts';
import { readSteps, REDIS_URL, startJobsPlatform, waitFor, type JobsPlatform } from './helpers/jobs.ts';
import { sampleData } from './helpers/platform.ts';

let p: JobsPlatform;
before(async () => {
  p = await startJobsPlatform('bullmq', { worker: false });
});
after(() => p?.close());

test('SIGKILLed worker mid-step: the step is taken up again and the job completes exactly once', async () => {
  const api = client(p);
  const c = await api('/nft/collections', svc('creator'), { body: { title: 'Crash', data: sampleData() } });
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./jobs/crash-worker.ts', import.meta.url))], {
    env: { ...process.env, DATABASE_URL: p.database.url!, REDIS_URL, QUEUE_PREFIX: p.prefix },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_c, s) => r(s)));
  let out = '';
  const started = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('STARTED')) resolve();
    });
    child.on('exit', () => reject(new Error(`child exited early: ${out}`)));
  });
  const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);

  const res = await api(`/api/collections/${c.body.data.collection.id}/generate`, svc('creator'), {
    body: { variables: { animal: 'phoenix' } },
  });
  assert.equal(res.status, 202);
  const jobId = res.body.data.jobId as string;
  await started;
  clearTimeout(guard);
  const mid = (await api(`/api/jobs/${jobId}`, svc())).body.data;
  assert.equal(mid.status, 'processing');
  assert.ok(mid.progress > 0 && mid.progress < 100, `progress ${mid.progress}`);

  child.kill('SIGKILL');
  assert.equal(await exited, 'SIGKILL');

  // Survivors: two workers (as two processes would be), counting how often the step really runs.
  let runs = 0;
  const real = new ProceduralConnector();
  const counting = () => ({
    kind: 'counting',
    generate: async (req: any, onProgress: any, signal?: AbortSignal) => {
      runs++;
      return real.generate({ ...req, width: 128, height: 128 }, onProgress, signal);
    },
  });
  await p.startWorker(counting);
  await p.startWorker(counting);

  const done = await waitFor('job completed', async () => {
    const j = (await api(`/api/jobs/${jobId}`, svc())).body.data;
    return j.status === 'completed' ? j : undefined;
  });
  // Give a duplicate run every chance to show up: several more stall checks.
  await new Promise((r) => setTimeout(r, 2500));
  assert.equal(runs, 1);
  const hist = await p.database.db.select().from(jobHistory).where(eq(jobHistory.job_id, jobId));
  assert.equal(hist.filter((h) => h.status === 'completed').length, 1);
  assert.equal(hist.filter((h) => h.status === 'failed').length, 0);
  const steps = await readSteps(p.database.db, jobId);
  assert.equal(steps.length, 1);
  assert.equal(steps[0]!.status, 'completed');
  const [o] = await p.database.db.select().from(outputs).where(eq(outputs.id, done.output_id));
  assert.equal(o!.status, 'completed');
  assert.equal(o!.url, done.workflow_output);
  assert.equal((await api(`/api/jobs/${jobId}`, svc())).body.data.status, 'completed');
});

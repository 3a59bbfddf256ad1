/**
 * One-step jobs (docs/jobs.md "One-step jobs"): the job is its step, without a job_steps row.
 * What the section promises stays as it was, looked at from the edges: retries (each attempt's
 * step with its own times), the failsafes, the reconciler (lost, failed, completed, and a job that
 * completes while the reconciler looks at it), re-delivery, the metrics and a reorg's cancel.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { staleOneStepJobs } from '../src/db/jobs.ts';
import { pendingSteps } from '../src/db/metrics.ts';
import { cancelPurchase, type PurchaseRow } from '../src/db/sale-purchases.ts';
import { jobHistory, jobSteps, jobs } from '../src/db/schema/index.ts';
import { claimStep } from '../src/db/step-runs.ts';
import { planClaim } from '../src/generation/job-events.ts';
import { applyJobEvent } from '../src/generation/job-store.ts';
import { buildStepPayload, type StepPayload } from '../src/generation/pipeline.ts';
import { startGenerationWorker } from '../src/generation/runtime.ts';
import { createStepHandler, reconcileStaleSteps } from '../src/generation/worker.ts';
import { InProcessQueue, type WorkQueue } from '../src/queue/index.ts';
import { client, svc } from './helpers/content.ts';
import { readSteps, startJobsPlatform, waitFor, type JobsPlatform } from './helpers/jobs.ts';
import { sampleData } from './helpers/platform.ts';

let p: JobsPlatform;
let api: ReturnType<typeof client>;
let collectionId: string;

before(async () => {
  p = await startJobsPlatform('in-process', { worker: false });
  api = client(p);
  collectionId = (await api('/nft/collections', svc('creator'), { body: { title: 'One step', data: sampleData() } })).body.data.collection
    .id;
});
after(() => p.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const generate = async () => {
  const res = await api(`/api/collections/${collectionId}/generate`, svc('creator'), { body: { variables: {} } });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  return res.body.data.jobId as string;
};
const jobRow = async (id: string) => (await p.database.db.select().from(jobs).where(eq(jobs.id, id)))[0]!;
const forensics = async (id: string) => (await api(`/api/jobs/${id}/forensics`, svc())).body.data;
const history = (id: string) => p.database.db.select().from(jobHistory).where(eq(jobHistory.job_id, id));

/** node_started of the job's step in `attempt`, as a worker's claim applies it. */
async function claim(jobId: string, attempt: number) {
  const job = await jobRow(jobId);
  const claimed = await claimStep(
    p.database.db,
    planClaim(
      jobId,
      { type: 'node_started', stepOrder: 0, retryAttempt: attempt, totalSteps: 1, stepName: 'image', outputId: job.output_id! },
      { workflowId: null, withJobData: false },
    ),
  );
  assert.equal(claimed?.started, true);
}
const fail = (jobId: string, attempt: number, message: string) =>
  applyJobEvent(p.database.db, jobId, { type: 'error', message, stepOrder: 0, retryAttempt: attempt, source: 'worker' });
const retry = async (jobId: string) => {
  const r = await api(`/api/jobs/${jobId}/retry`, svc('creator'), { method: 'POST' });
  assert.equal(r.status, 200, JSON.stringify(r.body));
};
/** The queued payload of the job's step, as a queue job (a re-delivery). */
async function delivery(jobId: string, attempt: number) {
  const job = await jobRow(jobId);
  const payload = buildStepPayload(job, 0, attempt);
  return { id: `${jobId}-s0-r${attempt}`, payload, attempt: 1, reportProgress: async () => {} };
}

test("retried twice: forensics shows each attempt's step with its own times, and the pending one has not started", async () => {
  const jobId = await generate();
  // An old job: its attempts' steps are not as old as the job.
  await p.database.db.execute(sql`update jobs set created_at = now() - interval '1 hour' where id = ${jobId}`);
  await claim(jobId, 0);
  await fail(jobId, 0, 'first exploded');
  await sleep(20);
  const retriedAt = Date.now();
  await retry(jobId);

  let f = await forensics(jobId);
  assert.deepEqual(
    f.steps.map((s: any) => [s.retry_attempt, s.status, s.queue_job_id]),
    [
      [0, 'failed', `${jobId}-s0-r0`],
      [1, 'pending', `${jobId}-s0-r1`],
    ],
  );
  const [first, second] = f.steps;
  assert.match(first.error_message, /first exploded/);
  assert.ok(first.started_at, 'attempt 0 started');
  assert.equal(second.started_at, null, 'the new attempt has not started: its step shows no start');
  assert.ok(Date.parse(second.created_at) >= retriedAt - 1000, `the new attempt's step is created by the retry (${second.created_at})`);

  await sleep(20);
  await claim(jobId, 1);
  await fail(jobId, 1, 'second exploded');
  await sleep(20);
  await retry(jobId);

  f = await forensics(jobId);
  assert.deepEqual(
    f.steps.map((s: any) => [s.retry_attempt, s.status]),
    [
      [0, 'failed'],
      [1, 'failed'],
      [2, 'pending'],
    ],
  );
  assert.equal(new Set(f.steps.map((s: any) => s.id)).size, 3, 'one step id per attempt');
  assert.match(f.steps[1].error_message, /second exploded/);
  assert.ok(Date.parse(f.steps[1].started_at) > Date.parse(f.steps[0].started_at), "attempt 1's step started when attempt 1 did");
  assert.ok(Date.parse(f.steps[1].created_at) >= retriedAt - 1000, "attempt 1's step was created by the first retry");
  assert.equal(f.steps[2].started_at, null);
  assert.equal(f.history.filter((h: any) => h.status === 'failed').length, 2);
});

test("metrics: a pending one-step job is queue depth, and its age is its attempt's, not the job's", async () => {
  const jobId = await generate();
  await p.database.db.execute(sql`update jobs set created_at = now() - interval '1 hour' where id = ${jobId}`);
  await fail(jobId, 0, 'exploded');
  await retry(jobId);
  const before = await pendingSteps(p.database.db);
  assert.ok(before.n >= 1);
  // Every other pending step here is seconds old: a 1-hour age is the retried job's creation.
  assert.ok(before.oldest_s < 600, `oldest pending step ${before.oldest_s} s: the retried step waits since the retry`);
  await claim(jobId, 1);
  assert.equal((await pendingSteps(p.database.db)).n, before.n - 1, 'a started one-step job is not queue depth');
  // A hand-made job whose steps are not an array is no one-step job, and breaks neither the
  // metrics nor a reconciler pass.
  const odd = await generate();
  await p.database.db.execute(sql`update jobs set data = jsonb_set(data, '{steps}', 'null'::jsonb) where id = ${odd}`);
  assert.equal((await pendingSteps(p.database.db)).n, before.n - 1);
  const stale = await staleOneStepJobs(p.database.db, 0);
  assert.ok(!stale.some((j) => j.id === odd), 'not read as a one-step job by the reconciler');
});

test('failsafes on a one-step job: complete before it ran (the late delivery is skipped), fail after it completed', async () => {
  const jobId = await generate();
  const done = await api(`/api/jobs/${jobId}/complete`, svc(), { body: { workflow_output: 'https://cdn.example/f.png' } });
  assert.equal(done.status, 200, JSON.stringify(done.body));
  let [step] = await readSteps(p.database.db, jobId);
  assert.equal(step!.status, 'completed', 'a job completed by the failsafe shows its step completed');
  const handler = createStepHandler({ db: p.database.db, queue: p.queue, storage: p.storage, config: p.config });
  assert.deepEqual(await handler(await delivery(jobId, 0)), { skipped: 'job completed' });
  assert.equal((await history(jobId)).filter((h) => h.status === 'completed').length, 1);

  const other = await generate();
  const failed = await api(`/api/jobs/${other}/failed`, svc(), { body: { error_message: 'operator says no' } });
  assert.equal(failed.status, 200);
  [step] = await readSteps(p.database.db, other);
  assert.deepEqual([step!.status, step!.error_message], ['failed', 'operator says no']);
  assert.equal((await p.database.db.select().from(jobSteps).where(eq(jobSteps.job_id, other))).length, 0, 'still no row');
});

test('reconciler: a one-step job that completes while the reconciler asks the queue keeps its step completed', async () => {
  const jobId = await generate();
  await claim(jobId, 0);
  await sleep(20);
  // The worker finishes between the reconciler's read of stale jobs and its question to the queue,
  // which then (rightly) says completed.
  const added: string[] = [];
  const racing = {
    getState: async (id: string) => {
      if (!id.startsWith(jobId)) return 'waiting';
      await applyJobEvent(p.database.db, jobId, { type: 'complete', workflowOutput: 'https://cdn.example/r.png', source: 'failsafe' });
      return 'completed';
    },
    add: async (id: string) => void added.push(id),
  } as unknown as WorkQueue<StepPayload>;
  await reconcileStaleSteps({ db: p.database.db, queue: racing }, { staleMs: 0 });
  const [job, steps] = [await jobRow(jobId), await readSteps(p.database.db, jobId)];
  assert.equal(job.status, 'completed');
  assert.deepEqual(
    steps.map((s) => [s.retry_attempt, s.status]),
    [[0, 'completed']],
    "the completed job's step is not shown pending (a row made for a re-run it no longer needs)",
  );
});

test('reconciler: queue says completed, the database does not: a new id, a row naming it, the job completes once', async () => {
  const jobId = await generate();
  await claim(jobId, 0);
  await sleep(20);
  const fresh = new InProcessQueue<StepPayload>('generation');
  const own = `${jobId}-s0-r0`;
  const queue = new Proxy(fresh, {
    get(target, prop, receiver) {
      if (prop === 'getState') return async (id: string) => (id === own ? 'completed' : target.getState(id));
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  const r = await reconcileStaleSteps({ db: p.database.db, queue }, { staleMs: 0 });
  assert.ok(r.requeued >= 1, JSON.stringify(r));
  const [row] = await p.database.db.select().from(jobSteps).where(eq(jobSteps.job_id, jobId));
  assert.match(row!.queue_job_id!, new RegExp(`^${jobId}-s0-r0-rc\\d+$`));
  const w = await startGenerationWorker({ config: p.config, database: p.database, storage: p.storage, queue: fresh, reconcile: false });
  await waitFor('re-run completes', async () => ((await jobRow(jobId)).status === 'completed' ? true : undefined));
  await w.close();
  await fresh.close();
  const steps = await readSteps(p.database.db, jobId);
  assert.deepEqual(
    steps.map((s) => [s.retry_attempt, s.status]),
    [[0, 'completed']],
  );
  assert.equal((steps[0]!.output_data as { url?: string } | null)?.url, (await jobRow(jobId)).workflow_output);
  assert.equal((await history(jobId)).filter((h) => h.status === 'completed').length, 1);
});

test('a re-delivered step after the job completed is skipped: nothing written twice', async () => {
  const jobId = await generate();
  const fresh = new InProcessQueue<StepPayload>('generation');
  const handler = createStepHandler({ db: p.database.db, queue: fresh, storage: p.storage, config: p.config });
  const d = await delivery(jobId, 0);
  const first = (await handler(d)) as { completed?: string };
  assert.ok(first.completed, JSON.stringify(first));
  // A worker killed after the step ran but before the queue heard: the step comes again, twice.
  const [h1, j1] = [(await history(jobId)).length, await jobRow(jobId)];
  assert.deepEqual(await handler(d), { skipped: 'job completed' });
  assert.deepEqual(await handler(await delivery(jobId, 0)), { skipped: 'job completed' });
  const j2 = await jobRow(jobId);
  assert.equal((await history(jobId)).length, h1);
  assert.deepEqual([j2.updated_at, j2.step_output], [j1.updated_at, j1.step_output]);
  const hist = await history(jobId);
  assert.deepEqual(
    hist.filter((h) => (h.data as { event?: string } | null)?.event !== 'node_progress').map((h) => h.message),
    ['job created', 'step 1/1 started: image', 'job completed'],
  );
  await fresh.close();
});

test("a reorg's cancel of a purchase's one-step job shows its step failed", async () => {
  const jobId = await generate();
  const job = await jobRow(jobId);
  await cancelPurchase(p.database.db, {
    id: '00000000-0000-4000-8000-000000000001',
    job_id: jobId,
    deck_id: null,
    token_id: 1,
    collection_id: job.collection_id,
  } as unknown as PurchaseRow);
  const [step] = await readSteps(p.database.db, jobId);
  assert.equal(step!.status, 'failed');
  assert.match(step!.error_message ?? '', /chain reorganization/);
});

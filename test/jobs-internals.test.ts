/**
 * Job internals: step-completion writes (and the last step's completion with the finish) retried
 * with 1 s / 2 s / 4 s backoff then verified,
 * stale step reconciliation against the queue store, and the job.submit / job.process spans.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { asc, desc, eq } from 'drizzle-orm';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import type { Db } from '../src/db/client.ts';
import { jobHistory, jobs, outputs } from '../src/db/schema/index.ts';
import { claimStep } from '../src/db/step-runs.ts';
import { errorMessage } from '../src/generation/errors.ts';
import { planClaim, planLastStep } from '../src/generation/job-events.ts';
import { applyJobEvent, finishGeneration } from '../src/generation/job-store.ts';
import type { StepPayload } from '../src/generation/pipeline.ts';
import { startGenerationWorker } from '../src/generation/runtime.ts';
import { reconcileStaleSteps } from '../src/generation/worker.ts';
import { InProcessQueue, type WorkQueue } from '../src/queue/index.ts';
import { initTelemetry, shutdownTelemetry } from '../src/telemetry.ts';
import { client, svc } from './helpers/content.ts';
import { readSteps, startJobsPlatform, waitFor, type JobsPlatform } from './helpers/jobs.ts';
import { sampleData } from './helpers/platform.ts';

let p: JobsPlatform;
let api: ReturnType<typeof client>;
let collectionId: string;
/** A collection of two steps: its steps have rows, and step 0's completion is a write of its own. */
let twoStepId: string;
const exporter = new InMemorySpanExporter();

before(async () => {
  initTelemetry({ serviceName: 'test', exporter });
  p = await startJobsPlatform('in-process', { worker: false });
  api = client(p);
  collectionId = (await api('/nft/collections', svc('creator'), { body: { title: 'Internals', data: sampleData() } })).body.data.collection
    .id;
  const two = sampleData();
  two.steps.push({ id: 2, nodeName: 'refine', nodePayload: { intent: 'refined', user_image: null, optional_ref_image: null, seed: null } });
  twoStepId = (await api('/nft/collections', svc('creator'), { body: { title: 'Two steps', data: two } })).body.data.collection.id;
});
after(async () => {
  await p.close();
  await shutdownTelemetry();
});

const generate = async (collection = collectionId) => {
  const res = await api(`/api/collections/${collection}/generate`, svc('creator'), { body: { variables: {} } });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  return res.body.data.jobId as string;
};
const jobOf = async (id: string) => (await api(`/api/jobs/${id}`, svc())).body.data;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The database, except that its first `n` statements (execute) throw. */
function failingStatements(db: Db, n: number): Db {
  let left = n;
  return new Proxy(db, {
    get(target, prop, receiver) {
      if (prop === 'execute') {
        return (...args: unknown[]) => {
          if (left > 0) {
            left--;
            return Promise.reject(new Error('connection reset'));
          }
          return (target.execute as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return Reflect.get(target, prop, receiver);
    },
  });
}

test('step completion write: retried after 1 s and 2 s, verified; gives up after 1, 2, 4 s', async () => {
  const jobId = await generate(twoStepId); // no worker: the step stays pending
  const delays: number[] = [];
  const sleepSpy = async (ms: number) => void delays.push(ms);
  const ev = { type: 'node_completed' as const, stepOrder: 0, retryAttempt: 0, totalSteps: 2, stepName: 'image', output: { url: 'x' } };

  const r = await applyJobEvent(failingStatements(p.database.db, 2), jobId, ev, { sleep: sleepSpy });
  assert.equal(r.applied, true);
  assert.deepEqual(delays, [1000, 2000]);
  const [step] = await readSteps(p.database.db, jobId);
  assert.equal(step!.status, 'completed');

  delays.length = 0;
  const again = await applyJobEvent(p.database.db, jobId, ev, { sleep: sleepSpy });
  assert.equal(again.applied, false, 'a second completion changes nothing');
  assert.deepEqual(delays, []);

  const other = await generate(twoStepId);
  await assert.rejects(applyJobEvent(failingStatements(p.database.db, 4), other, ev, { sleep: sleepSpy }), /connection reset/);
  assert.deepEqual(delays, [1000, 2000, 4000]);
});

/** The database, except that its first `n` named statements (the worker's, db/prepared.ts) throw. */
function failingNamedStatements(db: Db, n: number): Db {
  let left = n;
  const client = (db as unknown as { $client: object }).$client;
  const failing = new Proxy(client, {
    get(target, prop) {
      const v = Reflect.get(target, prop, target);
      if (prop !== 'query') return typeof v === 'function' ? v.bind(target) : v;
      return (...args: unknown[]) => {
        if (left > 0) {
          left--;
          return Promise.reject(new Error('connection reset'));
        }
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return new Proxy(db, { get: (target, prop, receiver) => (prop === '$client' ? failing : Reflect.get(target, prop, receiver)) });
}

test('last step: completion and finish in one statement, retried after 1 s and 2 s when it throws, applied once, history in order', async () => {
  const jobId = await generate(); // no worker: the step stays pending
  const job = await jobOf(jobId);
  const claimed = await claimStep(
    p.database.db,
    planClaim(
      jobId,
      { type: 'node_started', stepOrder: 0, retryAttempt: 0, totalSteps: 1, stepName: 'image', outputId: job.output_id },
      {
        workflowId: null,
        withJobData: false,
      },
    ),
  );
  assert.equal(claimed?.started, true);
  assert.equal(claimed?.step, null, 'a one-step job has no step row: the job is its step');
  const statement = planLastStep(
    jobId,
    {
      type: 'node_completed',
      stepOrder: 0,
      retryAttempt: 0,
      totalSteps: 1,
      stepName: 'image',
      output: { key: 'k.png', url: 'http://x/k.png' },
    },
    {
      outputId: job.output_id,
      file: { key: 'k.png', url: 'http://x/k.png', mimeType: 'image/png', size: 3, ownerId: null, relType: 'generation' },
      thumbnailUrl: null,
      outputMetadata: {},
    },
  );
  const delays: number[] = [];
  const sleep = async (ms: number) => void delays.push(ms);
  assert.deepEqual(await finishGeneration(failingNamedStatements(p.database.db, 2), statement, { sleep }), { applied: true });
  assert.deepEqual(delays, [1000, 2000]);
  const done = await jobOf(jobId);
  assert.equal(done.status, 'completed');
  assert.equal(done.workflow_output, 'http://x/k.png');
  const [step] = await readSteps(p.database.db, jobId);
  assert.equal(step!.status, 'completed');
  const [o] = await p.database.db.select().from(outputs).where(eq(outputs.id, job.output_id));
  assert.deepEqual([o!.status, o!.url], ['completed', 'http://x/k.png']);
  const events = (await p.database.db.select().from(jobHistory).where(eq(jobHistory.job_id, jobId)).orderBy(asc(jobHistory.id))).map(
    (h) => h.message,
  );
  assert.deepEqual(events, ['job created', 'step 1/1 started: image', 'job completed']);
  // One entry for the step's completion and the job's (docs/jobs.md "One-step jobs").
  const [last] = await p.database.db.select().from(jobHistory).where(eq(jobHistory.job_id, jobId)).orderBy(desc(jobHistory.id)).limit(1);
  assert.deepEqual(last!.data, {
    event: 'complete',
    node_completed: { step_order: 0, retry_attempt: 0, message: 'step 1/1 completed: image' },
    workflow_output: 'http://x/k.png',
  });
  assert.deepEqual(
    (await readSteps(p.database.db, jobId))[0]!.output_data,
    { key: 'k.png', url: 'http://x/k.png' },
    'the step output is kept',
  );

  // Again (a re-delivered step): nothing changes, nothing is written twice.
  delays.length = 0;
  assert.deepEqual(await finishGeneration(p.database.db, statement, { sleep }), { applied: false, skipped: 'job completed' });
  assert.equal((await p.database.db.select().from(jobHistory).where(eq(jobHistory.job_id, jobId))).length, 3);

  // A database that stays down: 1, 2 and 4 s, then the error (the queue retries the step).
  const other = await generate();
  const otherJob = await jobOf(other);
  await assert.rejects(
    finishGeneration(
      failingNamedStatements(p.database.db, 4),
      { ...statement, step: { ...statement.step, jobId: other }, outputId: otherJob.output_id },
      { sleep },
    ),
    /connection reset/,
  );
  assert.deepEqual(delays, [1000, 2000, 4000]);
  assert.equal((await jobOf(other)).status, 'pending');
});

test('reconciliation: waiting steps are left, lost ones re-queued (and then complete), failed ones fail the job', async () => {
  const jobId = await generate();
  await sleep(30);
  const waiting = await reconcileStaleSteps({ db: p.database.db, queue: p.queue }, { staleMs: 0 });
  assert.equal(waiting.requeued, 0);
  assert.ok(waiting.running >= 1);
  // Fresh steps are not stale.
  assert.equal((await reconcileStaleSteps({ db: p.database.db, queue: p.queue })).checked, 0);

  // The queue store lost everything (an in-process queue after a restart).
  const fresh = new InProcessQueue<StepPayload>('generation');
  const lost = await reconcileStaleSteps({ db: p.database.db, queue: fresh }, { staleMs: 0 });
  assert.ok(lost.requeued >= 1, JSON.stringify(lost));
  const w = await startGenerationWorker({ config: p.config, database: p.database, storage: p.storage, queue: fresh, reconcile: false });
  await waitFor('re-queued job completes', async () => ((await jobOf(jobId)).status === 'completed' ? true : undefined));
  await w.close();
  await fresh.close();

  // A worker runtime started over a queue store that lost its steps re-queues them at start-up,
  // without waiting for the first interval (docs/jobs.md "Crash safety and reconciliation").
  const lostAgain = await generate();
  await sleep(30);
  const empty = new InProcessQueue<StepPayload>('generation');
  const started = await startGenerationWorker({
    config: p.config,
    database: p.database,
    storage: p.storage,
    queue: empty,
    reconcile: { staleMs: 0, intervalMs: 600_000 },
  });
  await waitFor('the start-up pass re-queues the lost step; the job completes', async () =>
    (await jobOf(lostAgain)).status === 'completed' ? true : undefined,
  );
  await started.close();
  await empty.close();

  // The queue store says the step failed for good.
  const doomed = await generate();
  await sleep(30);
  const failedQueue = { getState: async () => 'failed' } as unknown as WorkQueue<StepPayload>;
  const r = await reconcileStaleSteps({ db: p.database.db, queue: failedQueue }, { staleMs: 0 });
  assert.ok(r.failed >= 1);
  const j = await jobOf(doomed);
  assert.equal(j.status, 'failed');
  const [o] = await p.database.db.select().from(outputs).where(eq(outputs.id, j.output_id));
  assert.equal(o!.status, 'failed');
  const [s] = await readSteps(p.database.db, doomed);
  assert.equal(s!.status, 'failed');
});

test("a retried one-step job's new attempt shows no step output; the replaced attempt's step keeps it", async () => {
  const jobId = await generate();
  // The attempt ended with an image and was then failed (the failsafe after a lost delivery).
  const old = { key: 'generations/x/old.png', url: 'https://cdn.example/old.png', mime_type: 'image/png', size: 1, connector: 'noop' };
  await p.database.db
    .update(jobs)
    .set({ status: 'failed', step_output: old, error_message: 'delivery lost', updated_at: new Date() })
    .where(eq(jobs.id, jobId));
  const retry = await api(`/api/jobs/${jobId}/retry`, svc('creator'), { method: 'POST' });
  assert.equal(retry.status, 200, JSON.stringify(retry.body));
  const f = (await api(`/api/jobs/${jobId}/forensics`, svc())).body.data;
  assert.deepEqual(
    f.steps.map((s: any) => [s.retry_attempt, s.status, s.output_data?.url ?? null]),
    [
      [0, 'failed', old.url],
      [1, 'pending', null],
    ],
  );
});

test("a generator's error with NUL characters fails the job (stored without them), never leaves it open", async () => {
  // PostgreSQL text refuses NUL: the failure write was rejected and the job stayed pending.
  const jobId = await generate();
  const failed = await applyJobEvent(p.database.db, jobId, {
    type: 'error',
    message: errorMessage(new Error('generator said: bad\u0000bytes')),
    stepOrder: 0,
    retryAttempt: 0,
    source: 'worker',
  });
  assert.equal(failed.applied, true);
  const j = await jobOf(jobId);
  assert.equal(j.status, 'failed');
  assert.equal(j.error_message, 'generator said: badbytes');
  // Any other source of the event too (job-events owns what is written).
  const other = await generate();
  await applyJobEvent(p.database.db, other, { type: 'error', message: 'x\u0000y', source: 'failsafe', force: true });
  assert.equal((await jobOf(other)).error_message, 'xy');
});

test('spans: job.submit on generate, job.process in the worker', async () => {
  exporter.reset();
  await p.startWorker();
  const jobId = await generate();
  await waitFor('completed', async () => ((await jobOf(jobId)).status === 'completed' ? true : undefined));
  const spans = exporter.getFinishedSpans();
  const submit = spans.find((s) => s.name === 'job.submit' && s.attributes['job.id'] === jobId)!;
  assert.ok(submit);
  assert.equal(submit.attributes['job.type'], 'collection_generation');
  assert.equal(typeof submit.attributes['job.workflow_id'], 'string');
  const proc = spans.find((s) => s.name === 'job.process' && s.attributes['job.id'] === jobId)!;
  assert.ok(proc);
  assert.equal(proc.attributes['job.service_required'], 'basic');
  assert.equal(proc.attributes.error, false);
});

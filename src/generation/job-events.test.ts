import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../domain/errors.ts';
import type { JobRecord, LastStepResult, StepCompletionStatement } from '../domain/ports/job-statements.ts';
import {
  applyEvent,
  finishWithRetry,
  overallProgress,
  planClaim,
  planJobEvent,
  planLastStep,
  planRetry,
  retryRefusal,
  type JobEventStore,
} from './job-events.ts';
import { MAX_JOB_RETRIES } from './pipeline.ts';

describe('the rules', () => {
  test('node_started: open job and step → processing; the output moves from pending; history names the step', () => {
    const plan = planJobEvent('j', {
      type: 'node_started',
      stepOrder: 1,
      retryAttempt: 2,
      totalSteps: 3,
      stepName: 'upscale',
      outputId: 'o',
    });
    assert.equal(plan.kind, 'start');
    if (plan.kind !== 'start') return;
    const s = plan.statement;
    assert.deepEqual([...s.jobFrom], ['pending', 'processing']);
    assert.deepEqual([...s.stepFrom], ['pending', 'processing']);
    assert.equal(s.outputFrom, 'pending');
    assert.equal(s.to, 'processing');
    assert.equal(s.retryAttempt, 2);
    assert.equal(s.outputId, 'o');
    assert.equal(s.queueJobId, null);
    assert.equal(s.history.message, 'step 2/3 started: upscale');
  });

  test('node_progress: overall progress across steps, only while processing', () => {
    const plan = planJobEvent('j', { type: 'node_progress', stepOrder: 1, retryAttempt: 0, totalSteps: 4, progress: 50 });
    assert.equal(plan.kind, 'progress');
    if (plan.kind !== 'progress') return;
    assert.equal(plan.statement.progress, 37.5);
    assert.equal(plan.statement.jobIn, 'processing');
    assert.equal(plan.statement.history.message, 'progress 37.5%');
    const withMessage = planJobEvent('j', {
      type: 'node_progress',
      stepOrder: 0,
      retryAttempt: 0,
      totalSteps: 1,
      progress: 10,
      message: 'sampling',
    });
    assert.equal(withMessage.kind === 'progress' && withMessage.statement.history.message, 'step 1/1: sampling');
  });

  test('overall progress is clamped and rounded', () => {
    assert.equal(overallProgress(0, 3, 100), 33.3);
    assert.equal(overallProgress(2, 3, 250), 100);
    assert.equal(overallProgress(0, 0, -5), 0);
  });

  test('complete: applied once (from any status but completed); failsafe says so in its history', () => {
    const plan = planJobEvent('j', { type: 'complete', workflowOutput: 'u', outputs: [1], source: 'failsafe' });
    assert.equal(plan.kind, 'complete');
    if (plan.kind !== 'complete') return;
    assert.equal(plan.statement.to, 'completed');
    assert.deepEqual(plan.statement.data, { outputs: [1] });
    assert.equal(plan.statement.history.message, 'job completed (failsafe)');
    const worker = planJobEvent('j', { type: 'complete', workflowOutput: 'u', source: 'worker' });
    assert.equal(worker.kind === 'complete' && worker.statement.history.message, 'job completed');
    assert.deepEqual(worker.kind === 'complete' && worker.statement.data, {});
  });

  test('error: only open jobs fail, except by failsafe (force), which fails a completed job too', () => {
    const open = planJobEvent('j', { type: 'error', message: 'boom', stepOrder: 0, retryAttempt: 1, source: 'worker' });
    assert.equal(open.kind, 'fail');
    if (open.kind !== 'fail') return;
    assert.deepEqual([...open.statement.jobNotIn].sort(), ['completed', 'failed']);
    assert.deepEqual(open.statement.step, { order: 0, retryAttempt: 1, notIn: ['completed'] });
    const forced = planJobEvent('j', { type: 'error', message: 'x', force: true, details: { a: 1 }, source: 'failsafe' });
    assert.equal(forced.kind, 'fail');
    if (forced.kind !== 'fail') return;
    assert.deepEqual([...forced.statement.jobNotIn], ['failed']);
    assert.deepEqual(forced.statement.step, { openIn: ['pending', 'processing'] });
    assert.deepEqual(forced.statement.history.data, { event: 'error', source: 'failsafe', details: { a: 1 } });
  });

  test('error messages are bounded: 10,000 characters on the job, 2,000 in the history', () => {
    const plan = planJobEvent('j', { type: 'error', message: 'x'.repeat(20_000), source: 'reconciler' });
    assert.equal(plan.kind, 'fail');
    if (plan.kind !== 'fail') return;
    assert.equal(plan.statement.message.length, 10_000);
    assert.equal(plan.statement.history.message.length, 2000);
  });

  test('claim: node_started while the job and the step are open; reads the job data only for a next step', () => {
    const c = planClaim(
      'j',
      { type: 'node_started', stepOrder: 0, retryAttempt: 1, totalSteps: 2, stepName: 'image', outputId: 'o' },
      { workflowId: 'w', withJobData: true },
    );
    assert.deepEqual([...c.start.jobFrom], ['pending', 'processing']);
    assert.deepEqual([...c.start.stepFrom], ['pending', 'processing']);
    assert.equal(c.start.outputFrom, 'pending');
    assert.equal(c.start.to, 'processing');
    assert.equal(c.start.retryAttempt, 1);
    assert.equal(c.start.history.message, 'step 1/2 started: image');
    assert.deepEqual([c.workflowId, c.withJobData], ['w', true]);
    assert.equal(c.oneStep, false, 'a job of two steps has a row per step');
    const lone = planClaim('j', { type: 'node_started', stepOrder: 0, retryAttempt: 0, totalSteps: 1, stepName: 'image' }, c);
    assert.equal(lone.oneStep, true, 'a one-step job is its own step: no row to find');
  });

  test('last step: the step completes, the output only while open, the job once and only while open in its attempt', () => {
    const f = planLastStep('j', lastStep, {
      outputId: 'o',
      file: { key: 'k', url: 'u', mimeType: 'image/png', size: 1, ownerId: null, relType: 'generation' },
      thumbnailUrl: null,
      outputMetadata: {},
    });
    assert.equal(f.step.to, 'completed');
    assert.equal(f.step.progress, 100);
    assert.equal(f.step.history.message, 'step 1/1 completed: image');
    assert.deepEqual([...f.jobIn], ['pending', 'processing']);
    assert.deepEqual([...f.outputFrom], ['pending', 'processing']);
    assert.equal(f.outputTo, 'completed');
    assert.equal(f.jobTo, 'completed');
    assert.equal(f.history.message, 'job completed');
    // One entry for both: the job's completion carries the step's.
    assert.deepEqual(f.history.data, {
      event: 'complete',
      node_completed: { step_order: 0, retry_attempt: 0, message: 'step 1/1 completed: image' },
    });
    assert.equal(f.oneStep, true);
  });
});

describe('retry rules', () => {
  const now = new Date('2030-01-01T00:10:00Z');
  const job = (status: string, retry_count: number, minutesAgo: number) => ({
    id: 'j',
    status,
    retry_count,
    updated_at: new Date(now.getTime() - minutesAgo * 60_000),
  });
  const stuckMs = 10 * 60_000;

  test('failed jobs retry; stuck open jobs retry; moving and completed ones do not', () => {
    assert.equal(retryRefusal(job('failed', 0, 0), now, stuckMs), null);
    assert.equal(retryRefusal(job('processing', 1, 11), now, stuckMs), null);
    assert.match(retryRefusal(job('processing', 0, 1), now, stuckMs)!.message, /still moving/);
    assert.match(retryRefusal(job('completed', 0, 60), now, stuckMs)!.message, /is completed/);
  });

  test('the refusal names the stuck threshold as configured (30 s is not "1 minutes")', () => {
    assert.match(retryRefusal(job('processing', 0, 0), now, stuckMs)!.message, /has not changed for 10 minutes$/);
    assert.match(retryRefusal(job('processing', 0, 0), now, 30_000)!.message, /has not changed for 30 s$/);
    assert.match(retryRefusal(job('pending', 0, 0), now, 60_000)!.message, /has not changed for 1 minute$/);
  });

  test(`after ${MAX_JOB_RETRIES} retries: 409 MAX_RETRIES_REACHED`, () => {
    const refusal = retryRefusal(job('failed', MAX_JOB_RETRIES, 0), now, stuckMs);
    assert.ok(refusal instanceof AppError);
    assert.equal(refusal.kind, 'conflict');
    assert.equal(refusal.extra?.code, 'MAX_RETRIES_REACHED');
    assert.equal(refusal.message, `Job has reached the maximum retry limit of ${MAX_JOB_RETRIES}`);
  });

  test('the reset applies only to the state that was read, and reopens the output', () => {
    const current = { status: 'failed', retry_count: 1, data: {}, error_message: 'e', workflow_output: null };
    const s = planRetry(current, 'j');
    assert.equal(s.to, 'pending');
    assert.equal(s.current, current);
    assert.equal(s.maxRetries, MAX_JOB_RETRIES);
    assert.ok(!s.outputFrom.includes('completed'), 'a completed output is left as it is');
    assert.equal(s.history(2).message, `retry 2 of ${MAX_JOB_RETRIES} queued`);
  });
});

/** A store whose step-completion write throws `failures` times, then records the step as `finalStatus`. */
function fakeStore(failures: number, finalStatus: string | null = 'completed') {
  const calls: string[] = [];
  let left = failures;
  let status: string | null = 'pending';
  const store: JobEventStore = {
    startStep: async () => true,
    recordProgress: async () => true,
    completeStep: async (s: StepCompletionStatement) => {
      calls.push('write');
      if (left-- > 0) throw new Error('connection reset');
      status = finalStatus;
      return s.to === finalStatus;
    },
    stepStatus: async () => {
      calls.push('verify');
      return status;
    },
    completeJob: async () => true,
    failJob: async () => ({ id: 'j' }) as JobRecord,
    finishLastStep: async () => {
      throw new Error('not used');
    },
  };
  return { store, calls };
}

const lastStep = {
  type: 'node_completed' as const,
  stepOrder: 0,
  retryAttempt: 0,
  totalSteps: 1,
  stepName: 'image',
  output: { url: 'u' },
};

const completed = {
  type: 'node_completed' as const,
  stepOrder: 0,
  retryAttempt: 0,
  totalSteps: 1,
  stepName: 'image',
  output: { url: 'u' },
};

describe('step completion write', () => {
  test('retried after 1 s and 2 s when it throws; a write that changed the row needs no read-back', async () => {
    const { store, calls } = fakeStore(2);
    const delays: number[] = [];
    const r = await applyEvent(store, 'j', completed, { sleep: async (ms) => void delays.push(ms) });
    assert.equal(r.applied, true);
    assert.deepEqual(delays, [1000, 2000]);
    assert.deepEqual(calls, ['write', 'write', 'write']);
  });

  test('a write that changed nothing is verified by a read (a step already completed is done)', async () => {
    const { store, calls } = fakeStore(0);
    const r = await applyEvent(
      { ...store, completeStep: async () => (calls.push('write'), false), stepStatus: async () => (calls.push('verify'), 'completed') },
      'j',
      completed,
    );
    assert.equal(r.applied, false);
    assert.deepEqual(calls, ['write', 'verify']);
  });

  test('gives up after 1, 2 and 4 s, with the last error', async () => {
    const { store } = fakeStore(4);
    const delays: number[] = [];
    await assert.rejects(applyEvent(store, 'j', completed, { sleep: async (ms) => void delays.push(ms) }), /connection reset/);
    assert.deepEqual(delays, [1000, 2000, 4000]);
  });

  test('a write that succeeds but does not read back completed is tried again', async () => {
    const { store, calls } = fakeStore(0, 'processing');
    await assert.rejects(
      applyEvent(store, 'j', completed, { stepWriteBackoffMs: [1], sleep: async () => undefined }),
      /is processing after/,
    );
    assert.deepEqual(calls, ['write', 'verify', 'write', 'verify']);
  });

  test('an error event reports the failed job; an event that changed nothing is not applied', async () => {
    const { store } = fakeStore(0);
    const failed = await applyEvent(store, 'j', { type: 'error', message: 'm', source: 'worker' });
    assert.equal(failed.applied, true);
    assert.equal(failed.job?.id, 'j');
    const none = await applyEvent({ ...store, failJob: async () => null }, 'j', { type: 'error', message: 'm', source: 'worker' });
    assert.deepEqual(none, { applied: false });
  });
});

describe('last step completion and finish', () => {
  const statement = planLastStep('j', lastStep, {
    outputId: 'o',
    file: { key: 'k', url: 'u', mimeType: 'image/png', size: 1, ownerId: null, relType: 'generation' },
    thumbnailUrl: null,
    outputMetadata: {},
  });
  const seen = (over: Partial<LastStepResult>): LastStepResult => ({
    stepChanged: true,
    stepStatus: 'processing',
    jobCompleted: true,
    jobStatus: 'processing',
    jobRetryCount: 0,
    ...over,
  });
  /** A store whose finish statement answers `answers` in turn (an Error is thrown). */
  function store(answers: Array<LastStepResult | Error>, readBack: string | null = 'completed') {
    const calls: string[] = [];
    const { store: base } = fakeStore(0);
    const s: JobEventStore = {
      ...base,
      finishLastStep: async () => {
        calls.push('write');
        const a = answers.shift()!;
        if (a instanceof Error) throw a;
        return a;
      },
      stepStatus: async () => (calls.push('verify'), readBack),
    };
    return { s, calls };
  }

  test('a statement whose RETURNING shows the step changed needs no read-back', async () => {
    const { s, calls } = store([seen({})]);
    assert.deepEqual(await finishWithRetry(s, statement), { applied: true });
    assert.deepEqual(calls, ['write']);
  });

  test('a step its own read saw completed (a re-delivery) is verified without a read-back; the job still completes', async () => {
    const { s, calls } = store([seen({ stepChanged: false, stepStatus: 'completed' })]);
    assert.deepEqual(await finishWithRetry(s, statement), { applied: true });
    assert.deepEqual(calls, ['write']);
  });

  test('retried after 1 s, 2 s and 4 s when it throws, then the last error', async () => {
    const delays: number[] = [];
    const sleep = async (ms: number) => void delays.push(ms);
    const ok = store([new Error('connection reset'), new Error('connection reset'), seen({})]);
    assert.deepEqual(await finishWithRetry(ok.s, statement, { sleep }), { applied: true });
    assert.deepEqual(delays, [1000, 2000]);
    delays.length = 0;
    const down = store([1, 2, 3, 4].map(() => new Error('connection reset')));
    await assert.rejects(finishWithRetry(down.s, statement, { sleep }), /connection reset/);
    assert.deepEqual(delays, [1000, 2000, 4000]);
  });

  test('a job failed, completed or retried meanwhile is left as it is (nothing written, no retry)', async () => {
    for (const [over, why] of [
      [{ jobStatus: 'failed' }, 'job failed'],
      [{ jobStatus: 'completed' }, 'job completed'],
      [{ jobRetryCount: 1 }, 'superseded by a retry'],
      [{ jobStatus: null }, 'job not found'],
    ] as const) {
      const { s, calls } = store([seen({ ...over, stepChanged: false, jobCompleted: false })]);
      assert.deepEqual(await finishWithRetry(s, statement), { applied: false, skipped: why });
      assert.deepEqual(calls, ['write']);
    }
  });

  test('changed nothing although its read saw the step open (a concurrent writer): read back; not completed → tried again', async () => {
    const racing = store([seen({ stepChanged: false, jobCompleted: false })], 'completed');
    assert.deepEqual(await finishWithRetry(racing.s, statement), { applied: false });
    assert.deepEqual(racing.calls, ['write', 'verify']);
    const wrong = store([seen({ stepChanged: false }), seen({ stepChanged: false })], 'processing');
    await assert.rejects(
      finishWithRetry(wrong.s, statement, { stepWriteBackoffMs: [1], sleep: async () => undefined }),
      /is processing after/,
    );
    assert.deepEqual(wrong.calls, ['write', 'verify', 'write', 'verify']);
  });
});

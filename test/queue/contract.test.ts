/**
 * One contract, two implementations: every test below runs against the in-process queue and
 * against BullMQ on the local Redis (REDIS_TEST_URL, default redis://127.0.0.1:6379), under a
 * key prefix unique to this run that is deleted afterwards.
 */
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import {
  BullMqQueue,
  InProcessQueue,
  QueueInputError,
  createQueue,
  toBullPriority,
  type QueueEvent,
  type WorkQueue,
} from '../../src/queue/index.ts';

const REDIS_URL = process.env.REDIS_TEST_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = `atelier-test-${randomUUID().slice(0, 8)}`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(cond: () => boolean | Promise<boolean>, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await cond()) return;
    await sleep(10);
  }
  throw new Error(`timed out waiting for ${what}`);
}

type Factory = (name: string) => WorkQueue<{ n: number; tag?: string }>;

const factories: Array<[string, Factory]> = [
  ['in-process', (name) => new InProcessQueue(name)],
  [
    'bullmq',
    (name) =>
      new BullMqQueue(name, {
        redisUrl: REDIS_URL,
        prefix: PREFIX,
        drainDelaySeconds: 1, // so worker.close() does not wait out a 5 s block
        lockDurationMs: 5000,
        stalledIntervalMs: 5000,
      }),
  ],
];

after(async () => {
  // Remove every key this run created, whatever the tests left behind.
  const redis = new Redis(REDIS_URL);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${PREFIX}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
  await redis.quit();
});

for (const [kind, make] of factories) {
  describe(`WorkQueue contract: ${kind}`, () => {
    const open: WorkQueue<{ n: number; tag?: string }>[] = [];
    const q = (label: string) => {
      const queue = make(`${label}-${randomUUID().slice(0, 6)}`);
      open.push(queue);
      return queue;
    };
    after(async () => {
      await Promise.all(open.map((x) => x.close()));
    });

    test('runs a job, reports progress and completion, tracks state', async () => {
      const queue = q('basic');
      const events: QueueEvent[] = [];
      await queue.subscribe((e) => events.push(e));
      assert.equal(await queue.getState('job-a'), 'unknown');
      await queue.add('job-a', { n: 2 });
      assert.equal(await queue.getState('job-a'), 'waiting');
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const seen: Array<{ id: string; n: number; attempt: number }> = [];
      const worker = queue.process(
        async (job) => {
          seen.push({ id: job.id, n: job.payload.n, attempt: job.attempt });
          await job.reportProgress(40);
          await job.reportProgress(250); // clamped
          await gate;
          return { doubled: job.payload.n * 2 };
        },
        { concurrency: 1 },
      );
      await waitFor(async () => (await queue.getState('job-a')) === 'active', 5000, 'active');
      release();
      await waitFor(() => events.some((e) => e.type === 'completed'), 5000, 'completed event');
      assert.equal(await queue.getState('job-a'), 'completed');
      assert.deepEqual(seen, [{ id: 'job-a', n: 2, attempt: 1 }]);
      const progress = events.filter((e) => e.type === 'progress').map((e) => (e as { progress: number }).progress);
      assert.deepEqual(progress, [40, 100]);
      const done = events.find((e) => e.type === 'completed') as { result: unknown };
      assert.deepEqual(done.result, { doubled: 4 });
      await worker.close();
    });

    test('higher priority first, ties in the order added', async () => {
      const queue = q('prio');
      const order: string[] = [];
      await queue.add('low', { n: 1 }, { priority: 1 });
      await queue.add('mid-a', { n: 2 }, { priority: 50 });
      await queue.add('high', { n: 3 }, { priority: 100 });
      await queue.add('mid-b', { n: 4 });
      await queue.add('mid-c', { n: 5 }, { priority: 50 });
      const worker = queue.process(async (job) => void order.push(job.id), { concurrency: 1 });
      await waitFor(() => order.length === 5, 5000, 'five jobs');
      assert.deepEqual(order, ['high', 'mid-a', 'mid-b', 'mid-c', 'low']);
      await worker.close();
    });

    test('concurrency bounds parallel jobs', async () => {
      const queue = q('conc');
      let running = 0;
      let peak = 0;
      let done = 0;
      for (let i = 0; i < 6; i++) await queue.add(`c-${i}`, { n: i });
      const worker = queue.process(
        async () => {
          running++;
          peak = Math.max(peak, running);
          await sleep(80);
          running--;
          done++;
        },
        { concurrency: 3 },
      );
      await waitFor(() => done === 6, 5000, 'six jobs');
      assert.equal(peak, 3);
      await worker.close();
    });

    test('retries with backoff until success, then counts attempts', async () => {
      const queue = q('retry');
      const attempts: Array<{ attempt: number; at: number }> = [];
      await queue.add('flaky', { n: 1 }, { attempts: 3, backoffMs: 50 });
      const worker = queue.process(
        async (job) => {
          attempts.push({ attempt: job.attempt, at: Date.now() });
          if (job.attempt < 3) throw new Error(`try ${job.attempt} failed`);
          return 'ok';
        },
        { concurrency: 1 },
      );
      await waitFor(async () => (await queue.getState('flaky')) === 'completed', 5000, 'completed');
      assert.deepEqual(
        attempts.map((a) => a.attempt),
        [1, 2, 3],
      );
      // Exponential backoff: ≥ 50 ms before the 2nd try, ≥ 100 ms before the 3rd.
      assert.ok(attempts[1]!.at - attempts[0]!.at >= 45, 'first backoff');
      assert.ok(attempts[2]!.at - attempts[1]!.at >= 95, 'second backoff');
      await worker.close();
    });

    test('fails for good after the last attempt', async () => {
      const queue = q('fail');
      const events: QueueEvent[] = [];
      await queue.subscribe((e) => events.push(e));
      let calls = 0;
      await queue.add('doomed', { n: 1 }, { attempts: 2, backoffMs: 10 });
      const worker = queue.process(
        async () => {
          calls++;
          throw new Error('generator exploded');
        },
        { concurrency: 1 },
      );
      await waitFor(() => events.some((e) => e.type === 'failed'), 5000, 'failed event');
      assert.equal(await queue.getState('doomed'), 'failed');
      assert.equal(calls, 2);
      const failed = events.filter((e) => e.type === 'failed');
      assert.equal(failed.length, 1);
      assert.deepEqual(failed[0], { type: 'failed', jobId: 'doomed', error: 'generator exploded' });
      await worker.close();
    });

    test('add is idempotent by job id, before and after completion', async () => {
      const queue = q('dedup');
      let calls = 0;
      await queue.add('once', { n: 1 });
      await queue.add('once', { n: 2 });
      const worker = queue.process(
        async (job) => {
          calls++;
          assert.equal(job.payload.n, 1);
        },
        { concurrency: 2 },
      );
      await waitFor(async () => (await queue.getState('once')) === 'completed', 5000, 'completed');
      await queue.add('once', { n: 3 });
      await sleep(150);
      assert.equal(calls, 1);
      assert.equal(await queue.getState('once'), 'completed');
      await worker.close();
    });

    test('rejects bad input naming the field', async () => {
      const queue = q('input');
      await assert.rejects(
        queue.add('x', { n: 1 }, { priority: 0 }),
        (e: unknown) => e instanceof QueueInputError && e.field === 'priority',
      );
      await assert.rejects(queue.add('x', { n: 1 }, { priority: 101 }), QueueInputError);
      await assert.rejects(
        queue.add('x', { n: 1 }, { attempts: 0 }),
        (e: unknown) => e instanceof QueueInputError && e.field === 'attempts',
      );
      await assert.rejects(queue.add('', { n: 1 }), (e: unknown) => e instanceof QueueInputError && e.field === 'jobId');
      await assert.rejects(queue.add('123', { n: 1 }), QueueInputError);
      await assert.rejects(queue.add('a:b', { n: 1 }), QueueInputError);
    });
  });
}

describe('createQueue and priority mapping', () => {
  test('picks BullMQ with a Redis URL, in-process without', async () => {
    const a = createQueue('pick-a');
    const b = createQueue('pick-b', { redisUrl: REDIS_URL, prefix: PREFIX });
    assert.ok(a instanceof InProcessQueue);
    assert.ok(b instanceof BullMqQueue);
    await a.close();
    await b.close();
  });

  test('1..100 maps onto BullMQ 100..1 (lower runs first there)', () => {
    assert.equal(toBullPriority(100), 1);
    assert.equal(toBullPriority(50), 51);
    assert.equal(toBullPriority(1), 100);
  });
});

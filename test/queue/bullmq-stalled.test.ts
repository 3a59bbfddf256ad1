/**
 * A worker process killed mid-job (SIGKILL: no cleanup, its lock is simply never renewed) loses
 * the job to another worker through BullMQ's stalled-job check, and the job completes once.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { BullMqQueue, type QueueEvent } from '../../src/queue/index.ts';

const REDIS_URL = process.env.REDIS_TEST_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = `atelier-test-${randomUUID().slice(0, 8)}`;
const NAME = 'stall';
const LOCK_MS = 1000;
const STALLED_MS = 300;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const open: BullMqQueue<{ n: number }>[] = [];
const make = () => {
  const q = new BullMqQueue<{ n: number }>(NAME, {
    redisUrl: REDIS_URL,
    prefix: PREFIX,
    lockDurationMs: LOCK_MS,
    stalledIntervalMs: STALLED_MS,
    drainDelaySeconds: 1,
  });
  open.push(q);
  return q;
};

after(async () => {
  await Promise.all(open.map((q) => q.close()));
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${PREFIX}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

test('SIGKILLed worker: another worker takes the job up and completes it exactly once', async () => {
  const producer = make();
  const events: QueueEvent[] = [];
  await producer.subscribe((e) => events.push(e));

  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./stall-worker.ts', import.meta.url))], {
    env: { ...process.env, REDIS_URL, QUEUE_PREFIX: PREFIX, QUEUE_NAME: NAME, LOCK_MS: String(LOCK_MS), STALLED_MS: String(STALLED_MS) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_code, signal) => r(signal)));
  let out = '';
  const started = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('STARTED')) resolve();
    });
    child.on('exit', () => reject(new Error(`child exited early: ${out}`)));
  });

  await producer.add('gen-1', { n: 7 });
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000); // a child that never starts fails the test, not hangs it
  await started;
  clearTimeout(timer);
  assert.match(out, /STARTED gen-1 1/);
  assert.equal(await producer.getState('gen-1'), 'active');

  child.kill('SIGKILL');
  assert.equal(await exited, 'SIGKILL');

  // Two more workers (separate connections, as two processes would have) race for the stalled job.
  const runs: string[] = [];
  for (const label of ['w1', 'w2']) {
    make().process(
      async (job) => {
        runs.push(`${label}:${job.id}:${job.payload.n}`);
        await job.reportProgress(100);
        return 'rendered';
      },
      { concurrency: 2 },
    );
  }

  const deadline = Date.now() + 15_000;
  while ((await producer.getState('gen-1')) !== 'completed') {
    if (Date.now() > deadline) throw new Error('job was not taken up again');
    await sleep(50);
  }
  // Give a duplicate execution every chance to show up: several more stall checks.
  await sleep(LOCK_MS + 4 * STALLED_MS);
  assert.equal(runs.length, 1, `ran ${JSON.stringify(runs)}`);
  assert.match(runs[0]!, /^w[12]:gen-1:7$/);
  assert.equal(events.filter((e) => e.type === 'completed').length, 1);
  assert.equal(events.filter((e) => e.type === 'failed').length, 0);
});

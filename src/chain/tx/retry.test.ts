/** The retry schedule: which failures are retried, how often, and how long each wait is. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { HttpRequestError, RpcRequestError, TransactionRejectedRpcError } from 'viem';
import { pollDelay, retryDelay, withRetry } from './retry.ts';

const URL = 'http://127.0.0.1:8545';
const unavailable = () => new HttpRequestError({ url: URL, status: 503, details: 'Service Unavailable' });
const refused = () =>
  new TransactionRejectedRpcError(
    new RpcRequestError({ url: URL, body: {}, error: { code: -32003, message: 'insufficient funds for gas * price + value' } }),
  );

/** fn fails with `errors` in turn, then answers 'done'; records calls and waits. */
function scripted(errors: Error[]) {
  const waits: number[] = [];
  const retries: Array<{ attempt: number; delayMs: number }> = [];
  let calls = 0;
  const fn = async () => {
    calls++;
    const err = errors.shift();
    if (err) throw err;
    return 'done';
  };
  const opts = {
    retries: 6,
    baseMs: 200,
    maxMs: 5_000,
    sleep: async (ms: number) => void waits.push(ms),
    onRetry: (_e: unknown, attempt: number, delayMs: number) => void retries.push({ attempt, delayMs }),
  };
  return { fn, opts, waits, retries, calls: () => calls };
}

describe('retryDelay', () => {
  test('doubles from baseMs, capped at maxMs', () => {
    const o = { baseMs: 200, maxMs: 5_000 };
    // random 0.5 → jitter factor exactly 1
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5, 6].map((a) => retryDelay(a, o, 0.5)),
      [200, 400, 800, 1600, 3200, 5000, 5000],
    );
  });

  test('jitter stays within ±25 %', () => {
    const o = { baseMs: 200, maxMs: 5_000 };
    assert.equal(retryDelay(2, o, 0), 600);
    assert.ok(retryDelay(2, o, 0.999_999) < 1000 && retryDelay(2, o, 0.999_999) > 999);
    assert.equal(retryDelay(9, o, 0), 3750);
  });
});

describe('pollDelay', () => {
  test('the poll interval while the RPC answers; backoff after failures, capped', () => {
    assert.equal(pollDelay(0, 50, 5_000), 50);
    assert.deepEqual(
      [1, 2, 3, 6, 7].map((f) => pollDelay(f, 50, 5_000)),
      [100, 200, 400, 3200, 5000],
    );
    // the exponent stops at 10 (no overflow towards Infinity with a huge cap)
    assert.equal(pollDelay(50, 1, Number.MAX_SAFE_INTEGER), 1024);
  });
});

describe('withRetry', () => {
  test('retries transient failures on the schedule, then answers', async () => {
    const s = scripted([unavailable(), unavailable(), unavailable()]);
    assert.equal(await withRetry(s.fn, s.opts), 'done');
    assert.equal(s.calls(), 4);
    assert.deepEqual(
      s.retries.map((r) => r.attempt),
      [1, 2, 3],
    );
    s.waits.forEach((ms, i) => {
      const nominal = 200 * 2 ** i;
      assert.ok(ms >= nominal * 0.75 && ms < nominal * 1.25, `wait ${i} = ${ms}`);
      assert.equal(s.retries[i]!.delayMs, Math.round(ms));
    });
  });

  test('a permanent failure is rethrown at once, without waiting', async () => {
    const s = scripted([refused()]);
    await assert.rejects(withRetry(s.fn, s.opts), (e: unknown) => e instanceof TransactionRejectedRpcError);
    assert.equal(s.calls(), 1);
    assert.deepEqual(s.waits, []);
  });

  test('gives up after `retries` retries and rethrows the last failure', async () => {
    const last = unavailable();
    const s = scripted([unavailable(), unavailable(), last]);
    await assert.rejects(withRetry(s.fn, { ...s.opts, retries: 2 }), (e: unknown) => e === last);
    assert.equal(s.calls(), 3);
    assert.equal(s.waits.length, 2);
  });

  test('a transient failure after retries 0 is not retried', async () => {
    const s = scripted([unavailable()]);
    await assert.rejects(withRetry(s.fn, { ...s.opts, retries: 0 }));
    assert.equal(s.calls(), 1);
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { defaultConfirmations, headerNumbers, isRangeError, isRecent, nextRange, RangeSize, retryDelay, statusAt } from './plan.ts';

describe('range planning', () => {
  test('the next range starts after the last indexed block and stops at the safe head', () => {
    assert.deepEqual(nextRange(99, 10_000, 5000), { from: 100, to: 5099 });
    assert.deepEqual(nextRange(99, 120, 5000), { from: 100, to: 120 });
    assert.deepEqual(nextRange(-1, 0, 5000), { from: 0, to: 0 });
    assert.equal(nextRange(120, 120, 5000), undefined);
    assert.equal(nextRange(130, 120, 5000), undefined); // the head went back (a reorg): nothing to index yet
    assert.deepEqual(nextRange(5, 100, 0), { from: 6, to: 6 });
  });

  test('headers: every block near the head, first and last deeper', () => {
    assert.equal(isRecent(100, 120, 64), true);
    assert.equal(isRecent(56, 120, 64), false);
    assert.deepEqual(headerNumbers(5, 8, true), [5, 6, 7, 8]);
    assert.deepEqual(headerNumbers(5, 8, false), [5, 8]);
    assert.deepEqual(headerNumbers(5, 5, false), [5]);
  });

  test('the range size halves on a provider limit, not on other errors, and grows back after small ranges', () => {
    const size = new RangeSize(5000);
    assert.equal(size.shrink(new Error('query returned more than 10000 results')), true);
    assert.equal(size.current, 2500);
    assert.equal(size.shrink(new Error('execution reverted')), false);
    assert.equal(size.current, 2500);
    size.grow(10_000); // a big range: stays
    assert.equal(size.current, 2500);
    size.grow(10);
    assert.equal(size.current, 5000);
    size.grow(10);
    assert.equal(size.current, 5000); // never above the maximum
    const one = new RangeSize(1);
    assert.equal(one.shrink(new Error('block range too large')), false);
    for (const m of ['block range is too wide', 'Log response size exceeded', 'request timed out', 'limit exceeded']) {
      assert.equal(isRangeError(new Error(m)), true, m);
    }
    assert.equal(isRangeError('range'), false);
  });

  test('status: idle at the safe head; below it reindexing stays, anything else is indexing', () => {
    assert.equal(statusAt('indexing', 100, 100), 'idle');
    assert.equal(statusAt('reindexing', 100, 100), 'idle');
    assert.equal(statusAt('reindexing', 50, 100), 'reindexing');
    assert.equal(statusAt('idle', 50, 100), 'indexing');
    assert.equal(statusAt('indexing', 50, 100), 'indexing');
  });

  test('retry delay: the poll interval, then 0.5 s doubling up to 30 s; confirmations by chain', () => {
    assert.equal(retryDelay(0, 1000), 1000);
    assert.deepEqual(
      [1, 2, 3, 7, 20].map((f) => retryDelay(f, 1000)),
      [500, 1000, 2000, 30_000, 30_000],
    );
    assert.equal(defaultConfirmations(31337), 0);
    assert.equal(defaultConfirmations(42161), 12);
  });
});

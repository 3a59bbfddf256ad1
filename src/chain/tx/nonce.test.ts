/** Which nonce the sender signs with, given the chain's count, the records and its own counter. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chooseNonce, nextAfter, suspectsReset } from './nonce.ts';

describe('chooseNonce', () => {
  test('the highest of chain pending count, recorded + 1 and the local counter', () => {
    assert.deepEqual(chooseNonce({ pending: 5, recordedNext: 3, localNext: 0, dev: false }), { nonce: 5 });
    // signed rows not yet broadcast: the records are ahead of the node
    assert.deepEqual(chooseNonce({ pending: 5, recordedNext: 8, localNext: 0, dev: false }), { nonce: 8 });
    // this process handed out nonces the database does not show yet
    assert.deepEqual(chooseNonce({ pending: 5, recordedNext: 6, localNext: 9, dev: false }), { nonce: 9 });
  });

  test('a real chain whose node lags behind the records: the records win, nothing is dropped', () => {
    const i = { pending: 2, recordedNext: 40, localNext: 40, dev: false };
    assert.equal(suspectsReset(i), false);
    assert.deepEqual(chooseNonce(i), { nonce: 40 });
  });

  test('dev chain reset (records above the chain, nothing in flight): restart from the chain, drop the rows above it', () => {
    const i = { pending: 3, recordedNext: 40, localNext: 40, dev: true, inFlightNext: 0 };
    assert.equal(suspectsReset(i), true);
    assert.deepEqual(chooseNonce(i), { nonce: 3, dropFrom: 3 });
  });

  test('dev chain reset seen only by the local counter: restart from the chain, nothing to drop', () => {
    assert.deepEqual(chooseNonce({ pending: 0, recordedNext: 0, localNext: 12, dev: true, inFlightNext: 0 }), { nonce: 0 });
  });

  test('dev chain with rows in flight above the chain: not a reset, the records win', () => {
    assert.deepEqual(chooseNonce({ pending: 3, recordedNext: 6, localNext: 6, dev: true, inFlightNext: 6 }), { nonce: 6 });
  });

  test('dev chain in step with the records: no reset suspected', () => {
    const i = { pending: 7, recordedNext: 7, localNext: 7, dev: true };
    assert.equal(suspectsReset(i), false);
    assert.deepEqual(chooseNonce(i), { nonce: 7 });
  });

  test('a suspected reset without the in-flight answer is a programming error', () => {
    assert.throws(() => chooseNonce({ pending: 0, recordedNext: 5, localNext: 0, dev: true }), /inFlightNext/);
  });
});

test('nextAfter: the nonce after the highest recorded one; 0 when none is', () => {
  assert.equal(nextAfter(null), 0);
  assert.equal(nextAfter(0), 1);
  assert.equal(nextAfter(41), 42);
});

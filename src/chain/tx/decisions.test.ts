/**
 * The sender's decisions given what is recorded and what the chain answered: after a broadcast,
 * on each receipt-loop tick, when a nonce is used without a receipt, and on reconcile.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Hex } from 'viem';
import {
  afterBroadcast,
  afterRebroadcast,
  decideConsumed,
  planReconcile,
  planRestore,
  recordedHashes,
  summarize,
  watchStep,
} from './decisions.ts';

const h = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex;

describe('afterBroadcast (a freshly signed transaction, nonce 7)', () => {
  test('accepted or already known: sent, the counter moves on', () => {
    assert.deepEqual(afterBroadcast('ok', 7), { do: 'mark-sent', next: 8 });
    assert.deepEqual(afterBroadcast('already-known', 7), { do: 'mark-sent', next: 8 });
  });

  test('outcome unknown after retries: the nonce is kept (the loop rebroadcasts the stored bytes)', () => {
    assert.deepEqual(afterBroadcast('transient', 7), { do: 'keep', next: 8 });
  });

  test('nonce used by something else: sign again with the next nonce', () => {
    assert.deepEqual(afterBroadcast('nonce-too-low', 7), { do: 'resign', next: 8, refreshFees: false });
    assert.deepEqual(afterBroadcast('underpriced', 7), { do: 'resign', next: 8, refreshFees: false });
  });

  test('fees below the base fee: the same nonce with fresh fees', () => {
    assert.deepEqual(afterBroadcast('fee-too-low', 7), { do: 'resign', next: 7, refreshFees: true });
  });

  test('a permanent refusal fails the row and gives the nonce back', () => {
    const error = new Error('insufficient funds');
    assert.deepEqual(afterBroadcast({ error }, 7), { do: 'fail', next: 7, error });
  });
});

test('afterRebroadcast: sent when the node has it or ours holds the nonce; retry when it may still; else refused', () => {
  assert.equal(afterRebroadcast('ok'), 'sent');
  assert.equal(afterRebroadcast('already-known'), 'sent');
  assert.equal(afterRebroadcast('underpriced'), 'sent');
  assert.equal(afterRebroadcast('transient'), 'retry');
  assert.equal(afterRebroadcast('nonce-too-low'), 'retry');
  assert.equal(afterRebroadcast('permanent'), 'refused');
  assert.equal(afterRebroadcast('fee-too-low'), 'refused');
});

describe('watchStep (stuck after 10 s)', () => {
  const now = 100_000;
  const w = { nonce: 4, needsBroadcast: false, lastSignedAt: now - 1_000 };

  test('nonce below the mined count: resolve from a receipt, whatever else holds', () => {
    assert.equal(watchStep({ ...w, needsBroadcast: true, lastSignedAt: 0 }, 5, now, 10_000), 'resolve');
  });

  test('not mined and maybe unknown to the node: rebroadcast', () => {
    assert.equal(watchStep({ ...w, needsBroadcast: true }, 4, now, 10_000), 'rebroadcast');
  });

  test('not mined for stuckAfterMs: replace; before that: wait', () => {
    assert.equal(watchStep(w, 4, now, 10_000), 'wait');
    assert.equal(watchStep({ ...w, lastSignedAt: now - 10_000 }, 4, now, 10_000), 'replace');
  });
});

describe('decideConsumed (nonce used on chain, no receipt for any watched hash)', () => {
  const watched = { nonce: 3, hashes: [h(1), h(2)] };
  const row = { status: 'sent', hash: h(2), raw_tx: '0xraw2', replaced_hashes: [h(1)] };
  const grace = 60_000;

  test('the row was finished elsewhere: answer from the row', () => {
    for (const status of ['mined', 'reverted', 'failed', 'dropped']) {
      assert.deepEqual(decideConsumed(watched, { ...row, status }, 0, grace), { do: 'settle-from-row' });
    }
  });

  test('another process recorded a replacement: follow its hashes and raw bytes', () => {
    const replaced = { ...row, hash: h(3), raw_tx: '0xraw3', replaced_hashes: [h(1), h(2)] };
    assert.deepEqual(decideConsumed(watched, replaced, 0, grace), { do: 'follow', hashes: [h(1), h(2), h(3)], raw: '0xraw3' });
  });

  test('first seen: wait for the grace period (a lagging node may not have the receipt yet)', () => {
    assert.deepEqual(decideConsumed(watched, row, 5_000, grace), { do: 'wait', consumedSince: 5_000 });
    assert.deepEqual(decideConsumed({ ...watched, consumedSince: 5_000 }, row, 64_999, grace), { do: 'wait', consumedSince: 5_000 });
  });

  test('still no receipt after the grace period: a transaction this sender never recorded used the nonce', () => {
    const d = decideConsumed({ ...watched, consumedSince: 5_000 }, row, 65_000, grace);
    assert.equal(d.do, 'fail');
    assert.match((d as { message: string }).message, /nonce 3 was used by a transaction this sender did not record/);
  });

  test('signed rows count as in flight too', () => {
    assert.equal(decideConsumed(watched, { ...row, status: 'signed' }, 0, grace).do, 'wait');
  });
});

test('recordedHashes: replaced ones first, the current one last', () => {
  assert.deepEqual(recordedHashes({ hash: h(9), replaced_hashes: [h(7), h(8)] }), [h(7), h(8), h(9)]);
  assert.deepEqual(recordedHashes({ hash: h(9), replaced_hashes: [] }), [h(9)]);
});

describe('planReconcile', () => {
  test('queued rows are signed; signed and sent rows are watched; order kept', () => {
    const rows = [
      { id: 'a', status: 'sent' },
      { id: 'b', status: 'queued' },
      { id: 'c', status: 'signed' },
      { id: 'd', status: 'queued' },
    ];
    const plan = planReconcile(rows);
    assert.deepEqual(
      plan.sign.map((r) => r.id),
      ['b', 'd'],
    );
    assert.deepEqual(
      plan.watch.map((r) => r.id),
      ['a', 'c'],
    );
  });

  test('finished rows are left alone', () => {
    const plan = planReconcile(['mined', 'reverted', 'failed', 'dropped'].map((status) => ({ status })));
    assert.deepEqual(plan, { sign: [], watch: [] });
  });
});

test('summarize: mined, reverted, and rejections counted as failed', () => {
  const settled: Array<PromiseSettledResult<{ status: 'mined' | 'reverted' }>> = [
    { status: 'fulfilled', value: { status: 'mined' } },
    { status: 'fulfilled', value: { status: 'mined' } },
    { status: 'fulfilled', value: { status: 'reverted' } },
    { status: 'rejected', reason: new Error('failed') },
  ];
  assert.deepEqual(summarize(5, settled), { pending: 5, mined: 2, reverted: 1, failed: 1 });
});

describe('planRestore: bring the chain back to the recorded nonces', () => {
  const row = (nonce: number, status: string, raw: string | null = '0xraw') => ({ id: `r${nonce}`, nonce, status, raw_tx: raw });
  test('rows in flight above the chain, no gap: nothing to do (they are being mined)', () => {
    assert.deepEqual(planRestore(5, [row(5, 'sent'), row(6, 'signed')], 100).steps, []);
  });
  test('a finished row above the chain: the chain went back; everything from its nonce is resent in order', () => {
    const plan = planRestore(5, [row(6, 'sent'), row(5, 'mined')], 100);
    assert.deepEqual(
      plan.steps.map((s) => (s.do === 'fill' ? `fill ${s.nonce}` : `${s.do} ${s.row.nonce}`)),
      ['resend 5', 'resend 6'],
    );
    assert.equal(plan.lost, true);
  });
  test('a failed row is dropped (never sent again) and a missing nonce filled', () => {
    const plan = planRestore(5, [row(5, 'mined'), row(6, 'failed'), row(8, 'reverted')], 100);
    assert.deepEqual(
      plan.steps.map((s) => (s.do === 'fill' ? `fill ${s.nonce}` : `${s.do} ${s.row.nonce}`)),
      ['resend 5', 'drop 6', 'fill 7', 'resend 8'],
    );
  });
  test('a gap below rows in flight is filled only when asked (the periodic pass waits to see it twice)', () => {
    assert.deepEqual(planRestore(5, [row(6, 'sent')], 100, false).steps, []);
    assert.equal(planRestore(5, [row(6, 'sent')], 100, false).gap, true);
    assert.deepEqual(
      planRestore(5, [row(6, 'sent')], 100, true).steps.map((s) => s.do),
      ['fill', 'resend'],
    );
  });
  test('more lost rows than the bound: a reset chain, not a lost tail', () => {
    assert.equal(planRestore(0, [row(0, 'mined'), row(1, 'mined'), row(2, 'mined')], 2).tooMany, true);
  });
});

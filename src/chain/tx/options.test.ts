/** The sender's defaults per chain and the floor on the fee bump. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolveOptions } from './options.ts';

const dev = { dev: true, pollingIntervalMs: 50 };
const arbitrum = { dev: false, pollingIntervalMs: 500 };

test('defaults: the chain poll interval; stuck after 10 s on the dev chain, 120 s elsewhere', () => {
  const d = resolveOptions({}, dev);
  assert.equal(d.pollIntervalMs, 50);
  assert.equal(d.stuckAfterMs, 10_000);
  assert.equal(resolveOptions({}, arbitrum).stuckAfterMs, 120_000);
  assert.equal(resolveOptions({}, arbitrum).pollIntervalMs, 500);
  assert.deepEqual(
    [d.feeBumpPermille, d.gasMarginPercent, d.retries, d.retryBaseMs, d.retryMaxMs, d.autoReconcile],
    [200, 120, 6, 200, 5_000, true],
  );
  // Crash recovery: bounded bumps, catch-up period (2 s dev, 5 s elsewhere), queued deadline, restore bound.
  assert.deepEqual([d.maxFeeMultiplier, d.catchUpIntervalMs, d.queuedDeadlineMs, d.restoreMaxTxs], [3, 2_000, 120_000, 5_000]);
  assert.equal(resolveOptions({}, arbitrum).catchUpIntervalMs, 5_000);
  assert.equal(resolveOptions({ maxFeeMultiplier: 1 }, dev).maxFeeMultiplier, 1.2, 'a multiplier below one bump is raised');
  assert.equal(d.maxFeePerGasCap, undefined);
});

test('given values win; a fee bump below +12.5 % is raised to it (nodes refuse less)', () => {
  const o = resolveOptions({ stuckAfterMs: 1, feeBumpPermille: 50, maxFeePerGasCap: 7n, autoReconcile: false }, dev);
  assert.equal(o.stuckAfterMs, 1);
  assert.equal(o.feeBumpPermille, 125);
  assert.equal(o.maxFeePerGasCap, 7n);
  assert.equal(o.autoReconcile, false);
  assert.equal(resolveOptions({ feeBumpPermille: 300 }, dev).feeBumpPermille, 300);
});

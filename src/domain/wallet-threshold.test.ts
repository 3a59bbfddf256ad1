import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GAS_PER_MINT, lowBalanceThreshold, parseThresholds, thresholdFor } from './wallet-threshold.ts';

test('the default threshold is N mints at the current gas price; a fixed one wins', () => {
  assert.equal(lowBalanceThreshold({ mints: 10, gasPriceWei: 2n }), 10n * GAS_PER_MINT * 2n);
  assert.equal(lowBalanceThreshold({ fixedWei: 7n, mints: 10, gasPriceWei: 2n }), 7n);
});

test('WALLET_LOW_BALANCE_WEI: one amount, or amounts per chain; bad parts are named', () => {
  assert.equal(thresholdFor(parseThresholds('500'), 8453), 500n);
  const per = parseThresholds('8453:200, 31337:1000');
  assert.equal(thresholdFor(per, 8453), 200n);
  assert.equal(thresholdFor(per, 1), undefined);
  assert.equal(thresholdFor(parseThresholds(undefined), 1), undefined);
  assert.throws(() => parseThresholds('1.5'), /"1.5" is not an amount in wei/);
  assert.throws(() => parseThresholds('8453=200'), /is not an amount in wei/);
  assert.throws(() => parseThresholds('8453:200,x:1'), /"x:1" is not <chainId>:<wei>/);
});

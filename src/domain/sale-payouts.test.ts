import assert from 'node:assert/strict';
import { test } from 'node:test';
import { splitPayouts } from './sale-config.ts';

test('splitPayouts: shares rounded down, the last takes the remainder, the sum is the amount', () => {
  const a = '0x00000000000000000000000000000000000000a1';
  const b = '0x00000000000000000000000000000000000000b2';
  assert.deepEqual(
    splitPayouts(1000n, [
      { address: a, bps: 7000 },
      { address: b, bps: 3000 },
    ]),
    [
      { address: a, amount: '700' },
      { address: b, amount: '300' },
    ],
  );
  const odd = splitPayouts(10n, [
    { address: a, bps: 3333 },
    { address: b, bps: 6667 },
  ]);
  assert.deepEqual(
    odd.map((p) => p.amount),
    ['3', '7'],
  );
  assert.deepEqual(splitPayouts(5n, []), []);
});

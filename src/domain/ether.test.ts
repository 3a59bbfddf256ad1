import assert from 'node:assert/strict';
import { test } from 'node:test';
import { weiToEther } from './ether.ts';

test('weiToEther: exact decimal ether, trailing zeros dropped', () => {
  assert.equal(weiToEther('0'), '0');
  assert.equal(weiToEther('1'), '0.000000000000000001');
  assert.equal(weiToEther('1000000000000000000'), '1');
  assert.equal(weiToEther('1234500000000000'), '0.0012345');
  assert.equal(weiToEther('123456789012345678901234567890'), '123456789012.34567890123456789');
  assert.equal(weiToEther('00250000000000000000000'), '250');
  assert.throws(() => weiToEther('1.5'), /not a wei amount/);
});

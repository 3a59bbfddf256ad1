import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addressProblem, isAcceptedAddress } from './address.ts';

/** anvil account #1, checksummed; the same with its last digit's case flipped. */
const GOOD = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const TYPO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C9';

test('lower case, upper case and a correct checksum are accepted', () => {
  for (const a of [GOOD, GOOD.toLowerCase(), `0x${GOOD.slice(2).toUpperCase()}`]) assert.equal(addressProblem(a), null, a);
});

test('a mixed-case address with a wrong checksum is refused, naming the checksummed form', () => {
  const problem = addressProblem(TYPO);
  assert.match(problem!, /^checksum mismatch: did you mean 0x[0-9a-fA-F]{40}\?$/);
  assert.equal(problem!.slice(-43, -1).toLowerCase(), TYPO.toLowerCase());
  // One letter's case changed is refused too.
  assert.equal(isAcceptedAddress(GOOD.replace('C51812', 'c51812')), false);
});

test('what is not an address says what is expected', () => {
  for (const a of ['0x1234', '70997970C51812dc3A010C7d01b50e0d17dc79C8', `${GOOD}0`, '0xZZ997970C51812dc3A010C7d01b50e0d17dc79C8'])
    assert.equal(addressProblem(a), 'expected a 0x-prefixed 20-byte hex address', a);
});

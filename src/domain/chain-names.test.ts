import assert from 'node:assert/strict';
import { test } from 'node:test';
import { blockchainOf, chainName } from './chain-names.ts';

test('chains by name: the dev chain says its id, the others their name', () => {
  assert.equal(chainName(31337), 'Local dev chain (31337)');
  assert.equal(chainName(8453), 'Base');
  assert.equal(chainName(42161), 'Arbitrum One');
  assert.equal(chainName(421614), 'Arbitrum Sepolia');
  assert.equal(chainName(10), 'Chain 10');
  assert.equal(blockchainOf(42161), 'ARBITRUM');
  assert.equal(blockchainOf(31337), 'ARBITRUM');
  assert.equal(blockchainOf(8453), 'BASE');
});

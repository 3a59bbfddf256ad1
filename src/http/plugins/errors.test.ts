import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clientSafe } from './errors.ts';

test('a dependency error keeps its first line, without the node URL or the request body', () => {
  const viem = [
    'chain 31337: could not read the receipt of 0x22: HTTP request failed.',
    '',
    'URL: https://arb-mainnet.example.com/v2/SECRET-KEY',
    'Request body: {"method":"eth_getTransactionReceipt"}',
  ].join('\n');
  assert.equal(clientSafe(viem), 'chain 31337: could not read the receipt of 0x22: HTTP request failed.');
  assert.equal(
    clientSafe('backend unreachable at http://user:pw@10.0.0.5:3000/x: ECONNREFUSED'),
    'backend unreachable at <url> ECONNREFUSED',
  );
  assert.equal(clientSafe('\n'), 'a dependency failed');
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseVerifyArgs, VerifyArgsError } from './args.ts';

const addr = '0x5fbdb2315678afecb367f032d93f642f64180aa3';

test('verify arguments: --rpc, --from-block and one <chainId>:<address>', () => {
  assert.deepEqual(parseVerifyArgs(['--rpc', 'http://127.0.0.1:8545', `31337:${addr}`]), {
    rpc: 'http://127.0.0.1:8545',
    chainId: 31337,
    address: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    fromBlock: 0n,
  });
  assert.equal(parseVerifyArgs([`8453:${addr}`, '--rpc=https://rpc.example', '--from-block=12']).fromBlock, 12n);
  for (const bad of [
    [`31337:${addr}`],
    ['--rpc', 'http://x'],
    ['--rpc', 'ftp://x', `1:${addr}`],
    ['--rpc', 'http://x', addr],
    ['--rpc', 'http://x', '1:0x123'],
    ['--rpc', 'http://x', `0:${addr}`],
    ['--rpc', 'http://x', '--from-block', 'soon', `1:${addr}`],
    ['--rpc', 'http://x', '--verbose', `1:${addr}`],
    ['--rpc', 'http://x', `1:${addr}`, `2:${addr}`],
  ]) {
    assert.throws(() => parseVerifyArgs(bad), VerifyArgsError, bad.join(' '));
  }
});

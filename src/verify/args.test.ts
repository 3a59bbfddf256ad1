import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseVerifyArgs, VerifyArgsError } from './args.ts';
import { throughGateway } from './fetch.ts';

const addr = '0x5fbdb2315678afecb367f032d93f642f64180aa3';

test('verify arguments: --rpc, --from-block and one <chainId>:<address>', () => {
  assert.deepEqual(parseVerifyArgs(['--rpc', 'http://127.0.0.1:8545', `31337:${addr}`]), {
    rpc: 'http://127.0.0.1:8545',
    chainId: 31337,
    address: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    fromBlock: 0n,
    gateway: 'https://ipfs.io',
  });
  assert.equal(parseVerifyArgs([`8453:${addr}`, '--rpc=https://rpc.example', '--from-block=12']).fromBlock, 12n);
  assert.equal(parseVerifyArgs(['--rpc', 'http://x', '--gateway', 'http://127.0.0.1:3000/', `1:${addr}`]).gateway, 'http://127.0.0.1:3000');
  for (const bad of [
    [`31337:${addr}`],
    ['--rpc', 'http://x'],
    ['--rpc', 'ftp://x', `1:${addr}`],
    ['--rpc', 'http://x', addr],
    ['--rpc', 'http://x', '1:0x123'],
    ['--rpc', 'http://x', `0:${addr}`],
    ['--rpc', 'http://x', '--from-block', 'soon', `1:${addr}`],
    ['--rpc', 'http://x', '--verbose', `1:${addr}`],
    ['--rpc', 'http://x', '--gateway', 'ipfs://x', `1:${addr}`],
    ['--rpc', 'http://x', `1:${addr}`, `2:${addr}`],
  ]) {
    assert.throws(() => parseVerifyArgs(bad), VerifyArgsError, bad.join(' '));
  }
});

test('ipfs:// URLs go through the gateway as <gateway>/ipfs/<cid>/<path>; others are left alone', () => {
  const cid = 'bafybeihkoviema7g3gxyt6la7vd5ho32ictqbilu3wnlo3rs7ewhnp7lly';
  assert.equal(throughGateway(`ipfs://${cid}/metadata/1`, 'http://127.0.0.1:3000/'), `http://127.0.0.1:3000/ipfs/${cid}/metadata/1`);
  assert.equal(throughGateway(`ipfs://ipfs/${cid}/3.png`, 'https://ipfs.io'), `https://ipfs.io/ipfs/${cid}/3.png`);
  assert.equal(throughGateway('https://a.example/tokens/1', 'https://ipfs.io'), 'https://a.example/tokens/1');
});

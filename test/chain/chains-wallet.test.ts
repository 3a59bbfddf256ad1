/** Chains by id, RPC URL resolution, and the platform wallet's dev-key rule. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testConfig } from '../../src/config.ts';
import { CHAINS, publicClientFor, rpcUrlFor, UnsupportedChainError } from '../../src/chain/chains.ts';
import { platformAccount } from '../../src/chain/signers/signer.ts';
import { DEV_ADDRESS, MissingPrivateKeyError } from '../../src/chain/wallet.ts';

test('chains: the five supported ids carry matching viem chains', () => {
  assert.deepEqual(
    Object.keys(CHAINS)
      .map(Number)
      .sort((a, b) => a - b),
    [1, 8453, 31337, 42161, 421614],
  );
  for (const [id, info] of Object.entries(CHAINS)) assert.equal(info.chain.id, Number(id));
  assert.throws(() => rpcUrlFor(5, testConfig()), UnsupportedChainError);
});

test('rpcUrlFor: dev chain defaults to the embedded anvil; NFT_RPC_URL only for NFT_CHAIN_ID', () => {
  assert.equal(rpcUrlFor(31337, testConfig({ DEV_CHAIN_PORT: '9545' })), 'http://127.0.0.1:9545');
  assert.equal(rpcUrlFor(31337, testConfig({ NFT_RPC_URL: 'http://node:8545' })), 'http://node:8545');
  const arbViaNft = testConfig({ NFT_RPC_URL: 'https://arb.example', NFT_CHAIN_ID: '421614' });
  assert.equal(rpcUrlFor(421614, arbViaNft), 'https://arb.example');
  // NFT_RPC_URL points at Arbitrum Sepolia here: the dev chain must not use it.
  assert.equal(rpcUrlFor(31337, arbViaNft), 'http://127.0.0.1:8545');
  assert.equal(rpcUrlFor(8453, testConfig({ BASE_RPC_URL: 'https://base.example' })), 'https://base.example');
  assert.equal(
    rpcUrlFor(42161, testConfig({ ARBITRUM_ONE_RPC_URL: 'https://one.example', NFT_RPC_URL: 'https://x.example', NFT_CHAIN_ID: '42161' })),
    'https://one.example',
  );
  assert.throws(() => rpcUrlFor(1, testConfig()), /ETHEREUM_RPC_URL/);
  assert.throws(() => rpcUrlFor(42161, testConfig({ NFT_RPC_URL: 'https://x.example' })), /ARBITRUM_ONE_RPC_URL/);
  assert.equal(publicClientFor(31337, testConfig()).chain?.id, 31337);
});

test('platformAccount: the configured key; the dev key on 31337 only, with a warning; else a clear error', () => {
  const key = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
  const logged: string[] = [];
  const logger = {
    info() {},
    error() {},
    warn: (o: object, m?: string) => logged.push(JSON.stringify(o) + (m ?? '')),
  };
  const configured = platformAccount(421614, testConfig({ NFT_DEPLOYER_PRIVATE_KEY: key }), logger);
  assert.equal(configured.address, '0x70997970C51812dc3A010C7d01b50e0d17dc79C8');
  assert.equal(logged.length, 0);

  const dev = platformAccount(31337, testConfig(), logger);
  assert.equal(dev.address, DEV_ADDRESS);
  assert.equal(logged.length, 1);
  assert.match(logged[0]!, /NFT_DEPLOYER_PRIVATE_KEY is not set/);
  assert.ok(!logged[0]!.includes('ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'), 'never logs a key');

  for (const id of [421614, 42161, 8453, 1]) {
    assert.throws(
      () => platformAccount(id, testConfig()),
      (e: unknown) =>
        e instanceof MissingPrivateKeyError && e.message === `NFT_DEPLOYER_PRIVATE_KEY is not set; it is required for chain ${id}`,
    );
  }
});

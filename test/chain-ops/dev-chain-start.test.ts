/**
 * `atelier start` with the embedded dev chain (DEV_CHAIN=true): anvil on DEV_CHAIN_PORT, the
 * platform deployed on first start, chain URL and factory printed, and a restart that keeps every
 * contract (anvil state in <dataDir>/chain) without deploying again.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { freePort } from '../../src/chain/anvil.ts';
import { startCli, stopAllClis, stopCli } from '../helpers/cli.ts';
import { call } from '../helpers/platform.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-devchain-'));
after(async () => {
  await stopAllClis();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const startDevCli = (env: Record<string, string>) => startCli({ DEV_CHAIN: 'true', ...env });

test('npm start runs anvil, deploys on first start, and a restart keeps every contract', { timeout: 150_000 }, async () => {
  const [port, adminPort, chainPort] = [await freePort(), await freePort(), await freePort()];
  const env = { DATA_DIR: dataDir, PORT: String(port), ADMIN_PORT: String(adminPort), DEV_CHAIN_PORT: String(chainPort) };
  const first = await startDevCli(env);
  const admin = `http://127.0.0.1:${adminPort}`;
  let factory: string;
  let collection: string;
  let stablecoin: string;
  try {
    assert.match(first.output, new RegExp(`chain +http://127\\.0\\.0\\.1:${chainPort}`));
    const m = /factory +(0x[0-9a-fA-F]{40})/.exec(first.output);
    assert.ok(m, first.output);
    factory = m[1]!;
    const key = fs.readFileSync(path.join(dataDir, 'api-key'), 'utf8').trim();
    const h = { 'x-api-key': key };
    const record = JSON.parse(fs.readFileSync(path.join(dataDir, 'deployments', '31337.json'), 'utf8'));
    assert.equal(record.contracts.DiamondFactory, factory);
    assert.match(record.contracts.Stablecoin, /^0x[0-9a-fA-F]{40}$/, 'the stablecoin test token is deployed on the dev chain');
    stablecoin = record.contracts.Stablecoin;
    const d = await call(`${admin}/api/nft/deploy`, { headers: h });
    assert.equal(d.status, 200, JSON.stringify(d.body));
    assert.equal(d.body.stale, false);
    const created = await call(`${admin}/api/nft/collections`, {
      headers: h,
      body: { chainId: 31337, name: 'Persisted', symbol: 'PST', baseURI: 'https://x/t/', contractURI: 'https://x/c.json', maxSupply: '7' },
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    collection = created.body.collection.address;
  } finally {
    await stopCli(first.child);
  }
  assert.ok(fs.existsSync(path.join(dataDir, 'chain', 'anvil-state.json')), 'anvil wrote its state on shutdown');
  // anvil inherits the owner-only umask: its state file is 0600 like everything else in DATA_DIR.
  assert.equal((fs.statSync(path.join(dataDir, 'chain', 'anvil-state.json')).mode & 0o777).toString(8), '600');
  assert.equal((fs.statSync(path.join(dataDir, 'chain')).mode & 0o777).toString(8), '700');

  const second = await startDevCli(env);
  try {
    const m = /factory +(0x[0-9a-fA-F]{40})/.exec(second.output);
    assert.equal(m?.[1], factory, 'the same factory: nothing redeployed');
    // anvil wrote its state at the stop: the sender had nothing to broadcast again (a kill -9
    // would have lost the last second, restored by test/crash-kill9.test.ts's path).
    assert.doesNotMatch(second.output, /lost recorded transactions/, 'a normal stop loses nothing');
    const record = JSON.parse(fs.readFileSync(path.join(dataDir, 'deployments', '31337.json'), 'utf8'));
    assert.equal(record.contracts.Stablecoin, stablecoin, 'the same stablecoin after a restart');
    const key = fs.readFileSync(path.join(dataDir, 'api-key'), 'utf8').trim();
    const h = { 'x-api-key': key };
    const d = await call(`${admin}/api/nft/deploy`, { headers: h });
    assert.equal(d.body.stale, false);
    const read = await call(`${admin}/api/nft/collections?addresses=${collection}`, { headers: h });
    assert.equal(read.status, 200);
    assert.equal(read.body.collections.length, 1, JSON.stringify(read.body));
    assert.equal(read.body.collections[0].name, 'Persisted');
    assert.equal(read.body.collections[0].maxSupply, '7');
    const f = await call(`${admin}/api/nft/factory`, { headers: h });
    assert.equal(f.body.factory.collectionCount, '1');
  } finally {
    await stopCli(second.child);
  }
});

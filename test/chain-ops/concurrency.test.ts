/**
 * 100 concurrent deploy and admin requests through the admin proxy and the one TxSender: all
 * land, no nonce error, each recorded once with its own nonce. Real concurrency, real anvil.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { privateKeyToAccount } from 'viem/accounts';
import { ANVIL_PRIVATE_KEYS } from '../../src/chain/anvil.ts';
import { chainTransactions } from '../../src/db/schema/index.ts';
import { adminCall, collectionParams, deployFactory, startChainPlatform, type ChainPlatform } from './helpers.ts';

describe('100 concurrent chain writes through the admin proxy', { timeout: 120_000 }, () => {
  let p: ChainPlatform;
  const targets: string[] = [];
  before(async () => {
    p = await startChainPlatform();
    await deployFactory(p);
    for (let i = 0; i < 5; i++) {
      const r = await adminCall(p, '/api/nft/collections', collectionParams(100 + i));
      assert.equal(r.status, 200, JSON.stringify(r.body));
      targets.push(r.body.collection.address);
    }
  });
  after(async () => {
    await p?.close();
  });

  test('40 createCollection + 60 admin actions at once: all 200, 100 distinct nonces, one row each', async () => {
    const before = new Set((await p.database.db.select({ id: chainTransactions.id }).from(chainTransactions)).map((r) => r.id));
    const minters = ANVIL_PRIVATE_KEYS.map((k) => privateKeyToAccount(k).address);
    const requests: Array<() => Promise<any>> = [];
    for (let i = 0; i < 40; i++) requests.push(() => adminCall(p, '/api/nft/collections', collectionParams(1000 + i)));
    const actions: Array<[string, (i: number) => unknown]> = [
      ['setMintActive', (i) => i % 2 === 0],
      ['setMinter', (i) => minters[i % minters.length]],
      ['setMaxSupply', (i) => String(5000 + i)],
      ['setBaseURI', (i) => `https://meta.example/c/${i}/tokens/`],
      ['setContractURI', (i) => `https://meta.example/c/${i}/metadata.json`],
    ];
    for (let i = 0; i < 60; i++) {
      const [action, value] = actions[i % actions.length]!;
      requests.push(() =>
        adminCall(p, '/api/nft/admin', { chainId: 31337, collectionAddress: targets[i % targets.length], action, value: value(i) }),
      );
    }
    const started = performance.now();
    const replies = await Promise.all(requests.map((f) => f()));
    const elapsed = performance.now() - started;
    for (const r of replies) assert.equal(r.status, 200, JSON.stringify(r.body));
    const hashes = replies.map((r) => r.body.txHash as string);
    assert.equal(new Set(hashes).size, 100, 'one transaction per request');

    const rows = (await p.database.db.select().from(chainTransactions)).filter((r) => !before.has(r.id));
    assert.equal(rows.length, 100, 'each request recorded once');
    assert.ok(
      rows.every((r) => r.status === 'mined'),
      JSON.stringify(rows.filter((r) => r.status !== 'mined').map((r) => r.error)),
    );
    assert.ok(
      rows.every((r) => r.attempts === 1),
      'no re-signing',
    );
    assert.ok(rows.every((r) => !/nonce/i.test(r.error ?? '')));
    const nonces = rows.map((r) => r.nonce!).sort((a, b) => a - b);
    assert.equal(new Set(nonces).size, 100);
    assert.equal(nonces[99]! - nonces[0]!, 99, 'contiguous');
    assert.deepEqual(new Set(rows.map((r) => r.hash)), new Set(hashes));
    assert.equal(rows.filter((r) => r.purpose === 'create-collection').length, 40);
    // 40 new collections, distinct addresses, all readable.
    const created = replies.slice(0, 40).map((r) => r.body.collection.address as string);
    assert.equal(new Set(created).size, 40);
    const read = await adminCall(p, `/api/nft/collections?addresses=${created.join(',')}`);
    assert.equal(read.body.collections.length, 40);
    assert.equal(read.body.invalidAddresses.length, 0);
    // Salts match the creations even when the prediction lost the race.
    const factory = await adminCall(p, '/api/nft/factory');
    assert.equal(factory.body.factory.collectionCount, String(5 + 40));
    assert.equal(new Set(replies.slice(0, 40).map((r) => r.body.salt)).size, 40);
    process.stdout.write(
      `# 100 concurrent deploy/admin requests: ${Math.round(elapsed)} ms (${p.database.url ? 'PostgreSQL' : 'PGlite'})\n`,
    );
  });
});

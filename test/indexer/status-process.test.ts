/**
 * The indexer status says where the indexer runs and when none does (docs/indexer.md "Where the indexer runs"): a backend
 * without an indexer of its own reads the chain's indexer lease (src/duties/runner.ts), so a status
 * persisted by an indexer that died is not shown as live.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { DUTY } from '../../src/duties/runner.ts';
import { acquireLease, releaseLease } from '../../src/db/leases.ts';
import { asService, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';

let p: TestPlatform;
before(async () => {
  p = await startTestPlatform({ NFT_CHAIN_ID: '31337' });
});
after(() => p?.close());

const status = async () => {
  const res = await p.request('backend', '/nft/indexer/status', { headers: asService() });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data;
};

test('no indexer anywhere: down; another process holding the lease: running there; released: down again', async () => {
  const none = await status();
  assert.equal(none.down, true);
  assert.equal(none.running, false);
  assert.deepEqual(none.indexer_process, { running_in: 'none', holder: null });

  const holder = 'indexer-host:4242:abcd1234';
  assert.equal(await acquireLease(p.database.db, DUTY.indexer(31337), holder, 60_000), true);
  const elsewhere = await status();
  assert.equal(elsewhere.down, false);
  assert.equal(elsewhere.running, true);
  assert.deepEqual(elsewhere.indexer_process, { running_in: 'other', holder });

  await releaseLease(p.database.db, DUTY.indexer(31337), holder);
  assert.equal((await status()).down, true);
});

test('a lease that expired (its holder died without releasing it) reads as down', async () => {
  assert.equal(await acquireLease(p.database.db, DUTY.indexer(31337), 'dead-host:1:deadbeef', 1), true);
  await new Promise((r) => setTimeout(r, 20));
  const s = await status();
  assert.equal(s.down, true);
  assert.equal(s.indexer_process.running_in, 'none');
});

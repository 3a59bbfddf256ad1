/**
 * The purchase follower's SQL on the real database (src/db/sale-purchases.ts; docs/minting.md
 * "On-chain sale"): jsonb refuses the escapes of NUL and of an unpaired surrogate, and
 * `tryInsertPurchases` answers that as `refused` (the follower then records the purchase without
 * its choices) instead of throwing out of the pass; `unclaimedMintTxs` leaves out the
 * transactions the follower holds back, so they do not fill its window.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { collections, transfers } from '../../src/db/schema/index.ts';
import { type NewPurchase, tryInsertPurchases, unclaimedMintTxs } from '../../src/db/sale-purchases.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase();
});
after(async () => {
  await database?.close();
});

const address = '0x00000000000000000000000000000000000000dd';
const txHash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

test('a value jsonb refuses is `refused`, nothing of it is stored, and the same purchase without it is', async () => {
  const db = database.db;
  const base: NewPurchase = {
    chain_id: 31337,
    tx_hash: txHash(0xaa),
    log_index: 1,
    token_id: 1,
    block_number: 9,
    block_hash: txHash(0xbb),
    collection_id: '00000000-0000-4000-8000-000000000001',
    buyer: address,
    recipient: address,
    choices_status: 'buyer',
  };
  for (const choices of [
    { motto: '\u0000' },
    { motto: '\ud800' },
    { motto: 'a\udc00' },
    { '\u0000': 1 },
    { reason: 'variables.\u0000: x' },
  ]) {
    const r = await tryInsertPurchases(db, [base, { ...base, token_id: 2, choices }]);
    assert.ok('refused' in r, JSON.stringify(choices));
    assert.match(r.refused, /Unicode|json/i);
  }
  const stored = await tryInsertPurchases(db, [
    base,
    { ...base, token_id: 2, choices_status: 'invalid', choices: { reason: 'data could not be stored' } },
  ]);
  assert.ok('inserted' in stored);
  assert.deepEqual(
    stored.inserted.map((p) => [p.token_id, p.choices_status]),
    [
      [1, 'buyer'],
      [2, 'invalid'],
    ],
  );
  // The unique key: the same purchase again inserts nothing.
  const again = await tryInsertPurchases(db, [base]);
  assert.ok('inserted' in again);
  assert.equal(again.inserted.length, 0);
});

test('the transactions the follower holds back leave its window to the ones after them', async () => {
  const db = database.db;
  const [c] = await db
    .insert(collections)
    .values({ title: 'Window', data: {}, contract_address: address, chain_id: 31338 })
    .returning({ id: collections.id });
  await db.insert(transfers).values(
    [1, 2, 3].map((n) => ({
      chain_id: 31338,
      collection_address: address,
      token_id: String(n),
      from_address: '0x0000000000000000000000000000000000000000',
      to_address: address,
      block_number: n,
      block_hash: txHash(0x100 + n),
      tx_hash: txHash(n),
      log_index: 0,
      timestamp: new Date(),
    })),
  );
  const hashes = async (skip?: string[], limit?: number) =>
    (await unclaimedMintTxs(db, 31338, skip, limit)).map((m) => [m.tx_hash, m.collection_id]);
  assert.deepEqual(await hashes(), [
    [txHash(1), c!.id],
    [txHash(2), c!.id],
    [txHash(3), c!.id],
  ]);
  assert.deepEqual(await hashes([txHash(1), txHash(2).toUpperCase().replace('0X', '0x')], 1), [[txHash(3), c!.id]]);
});

/**
 * When a sale counts as sold out for the reveals (docs/fairness.md "Exact counts"): at
 * max_supply (else editions), and for an exact collection at min(max_supply, editions), where the
 * platform's mints stop — a contract deployed with max_supply above editions must not keep an
 * exact collection's secret (and its offset) waiting for mints that never come.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { createCollection } from '../../src/db/collections.ts';
import { soldOutUnrevealed } from '../../src/db/fairness.ts';
import { collections, seedSecrets } from '../../src/db/schema/index.ts';
import { normalizeGenerationData } from '../../src/domain/generation-data.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { sampleData } from '../helpers/platform.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase();
});
after(() => database.close());

const HASH = `0x${'ab'.repeat(32)}`;

/** A deployed collection of 30 editions on a contract of max_supply 40, its secret committed, 30 minted. */
async function deployedAt30of40(title: string, data: Record<string, unknown>, n: number) {
  const db = database.db;
  const { id } = await createCollection(db, {
    title,
    description: '',
    editions: 30,
    price: 0,
    blockchain: 'ARBITRUM',
    data: normalizeGenerationData(data),
    userId: 'creator',
  });
  const address = `0x${n.toString(16).padStart(40, '0')}`;
  await db
    .update(collections)
    .set({ contract_address: address, chain_id: 31337, max_supply: 40, tokens_minted: 30, status: 'deployed' })
    .where(eq(collections.id, id));
  await db
    .insert(seedSecrets)
    .values({ collection_id: id, chain_id: 31337, contract_address: address, secret: HASH, commitment: HASH, commit_tx_hash: HASH });
  return id;
}

test('an exact collection is sold out at its editions even when the contract allows more; a weighted one at max_supply', async () => {
  const exact = await deployedAt30of40('Exact 30 of 40', { ...sampleData(), distribution: 'exact' }, 1);
  const weighted = await deployedAt30of40('Weighted 30 of 40', sampleData(), 2);
  const due = async () => new Set((await soldOutUnrevealed(database.db)).map((r) => r.id));

  let ids = await due();
  assert.ok(ids.has(exact), 'the exact collection ends at its 30 editions: its secret is due');
  assert.ok(!ids.has(weighted), 'a weighted collection with 10 more on the contract is still on sale');

  await database.db.update(collections).set({ tokens_minted: 40 }).where(eq(collections.id, weighted));
  ids = await due();
  assert.ok(ids.has(weighted), 'sold out at max_supply');
});

/**
 * Crash repair (src/services/crash-repair.ts, docs/minting.md): a mint whose request died after the chain
 * write and before the deck existed gets its decks from the stored receipt, once.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { mintTokens } from '../../src/chain/mint.ts';
import { repairMints } from '../../src/services/crash-repair.ts';
import { repairPortsOf } from '../../src/services/wire-nft.ts';
import { releaseDecksOfUnlandedMints } from '../../src/db/minting.ts';
import { chainTransactions, collections, decks, idempotencyKeys } from '../../src/db/schema/index.ts';
import { asService, call } from '../helpers/platform.ts';
import { startMintingPlatform, type MintingPlatform } from './helpers.ts';

describe('crash repair', () => {
  let mp: MintingPlatform;
  before(async () => {
    mp = await startMintingPlatform({ worker: false });
  });
  after(async () => {
    await mp.close();
  });
  // The mint half of the repair pass (deploys are test/chain-ops/admin.test.ts's).
  const ports = () => repairPortsOf(mp.database.db, mp.backendUrl, async () => ({ finished: 0, released: 0 }));

  test('a mined mint without decks gets one deck per token; a second run creates nothing', async () => {
    const { id, address } = await mp.deployedCollection({ title: 'Crashed Mint' });
    const recipient = mp.wallet(3).account.address;
    // What the route does first, without an Idempotency-Key; the request then "crashes".
    const minted = await mintTokens(mp.chain, {
      chainId: 31337,
      collection: address,
      recipient,
      quantity: 2,
      idempotencyKey: `mint:${randomUUID()}`,
    });
    assert.deepEqual(minted.tokenIds, [1, 2]);
    const doc = (t: number) => fetch(`${mp.backendUrl}/collections/${id}/tokens/${t}`);
    assert.equal((await doc(1)).status, 404, 'token without a deck');
    // Within the grace period the request may still be writing: nothing is touched.
    assert.equal(await repairMints(ports()), 0);

    assert.equal(await repairMints(ports(), { graceMs: 0 }), 2);
    const rows = await mp.database.db.select().from(decks).where(eq(decks.collection_id, id));
    assert.deepEqual(rows.map((d) => d.token_id).sort(), [1, 2]);
    for (const d of rows) {
      assert.equal(d.mint_status, 'minted');
      assert.equal(d.mint_tx_hash, minted.txHash);
      assert.equal(d.mint_recipient, recipient);
      assert.equal(d.metadata_uri, `${mp.backendUrl}/collections/${id}/tokens/${d.token_id}`);
      assert.equal(d.cover_output_id, null);
    }
    assert.equal((await doc(1)).status, 200);
    assert.equal((await doc(2)).status, 200);
    const [c] = await mp.database.db.select().from(collections).where(eq(collections.id, id));
    assert.equal(c!.tokens_minted, 2);

    assert.equal(await repairMints(ports(), { graceMs: 0 }), 0);
    assert.equal((await mp.database.db.select().from(decks).where(eq(decks.collection_id, id))).length, 2);
  });

  test('a mint whose decks the route made is left alone', async () => {
    const { id } = await mp.deployedCollection({ title: 'Healthy Mint' });
    const r = await call(`${mp.backendUrl}/nft/collections/${id}/mint`, {
      body: { recipient: mp.wallet(3).account.address, quantity: 2 },
      headers: asService(),
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(await repairMints(ports(), { graceMs: 0 }), 0);
    assert.equal((await mp.database.db.select().from(decks).where(eq(decks.collection_id, id))).length, 2);
  });

  test('a mint whose block vanished (reorg / chain gone back) is sent again: same hash, same token, the id is never reused', async () => {
    const { id } = await mp.deployedCollection({ title: 'Reorged Mint' });
    const recipient = mp.wallet(3).account.address;
    const snapshot = await mp.anvil.rpc<string>('evm_snapshot');
    const first = await call(`${mp.backendUrl}/nft/collections/${id}/mint`, { body: { recipient, quantity: 1 }, headers: asService() });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const hash = (first.body as { data: { txHash?: string; tx_hash?: string } }).data;
    const txHash = (hash.txHash ?? hash.tx_hash) as `0x${string}`;
    await mp.anvil.rpc('evm_revert', [snapshot]);
    const gone = await mp.client.getTransactionReceipt({ hash: txHash }).then(
      () => false,
      () => true,
    );
    assert.ok(gone, 'the mint left the chain');
    // The sender's periodic catch-up sends the recorded raw transaction again, with no request.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const back = await mp.client.getTransactionReceipt({ hash: txHash }).then(
        (r) => r.status === 'success',
        () => false,
      );
      if (back) break;
      assert.ok(Date.now() < deadline, 'the mint came back within 30 s');
      await new Promise((r) => setTimeout(r, 200));
    }
    const second = await call(`${mp.backendUrl}/nft/collections/${id}/mint`, { body: { recipient, quantity: 1 }, headers: asService() });
    assert.equal(second.status, 201, JSON.stringify(second.body));
    const rows = await mp.database.db.select().from(decks).where(eq(decks.collection_id, id));
    assert.deepEqual(rows.map((d) => d.token_id).sort(), [1, 2], 'token 1 kept its deck; the next mint got 2');
    assert.equal(rows.find((d) => d.token_id === 1)!.mint_tx_hash?.toLowerCase(), txHash.toLowerCase());
  });

  test('a mint that can never land (dropped) has its deck released, never left "minted"', async () => {
    const { id } = await mp.deployedCollection({ title: 'Dropped Mint' });
    const r = await call(`${mp.backendUrl}/nft/collections/${id}/mint`, {
      body: { recipient: mp.wallet(3).account.address, quantity: 1 },
      headers: asService(),
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const [deck] = await mp.database.db.select().from(decks).where(eq(decks.collection_id, id));
    // What the restore pass records when the node refuses the lost transaction for good.
    await mp.database.db
      .update(chainTransactions)
      .set({ status: 'dropped', nonce: null })
      .where(eq(chainTransactions.hash, deck!.mint_tx_hash!));
    assert.deepEqual(await releaseDecksOfUnlandedMints(mp.database.db), [deck!.id]);
    const [after] = await mp.database.db.select().from(decks).where(eq(decks.id, deck!.id));
    assert.equal(after!.token_id, null);
    assert.equal(after!.mint_status, null);
    const [c] = await mp.database.db.select().from(collections).where(eq(collections.id, id));
    assert.equal(c!.tokens_minted, 0);
    assert.deepEqual(await releaseDecksOfUnlandedMints(mp.database.db), [], 'once');
  });

  test('an Idempotency-Key left in progress by a dead holder is taken over after the lease and resolved from the recorded mint, never minted twice', async () => {
    const { id, address } = await mp.deployedCollection({ title: 'Leased Mint' });
    const body = { recipient: mp.wallet(3).account.address, quantity: 1 };
    const key = `lease-${randomUUID()}`;
    const first = await call(`${mp.backendUrl}/nft/collections/${id}/mint`, { body, headers: asService({ 'idempotency-key': key }) });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    // As if the process died after the mint and before storing the answer: the key stays in
    // progress, last renewed a minute ago (past the 30 s lease).
    await mp.database.db
      .update(idempotencyKeys)
      .set({ status: 'in_progress', status_code: null, updated_at: sql`now() - interval '60 seconds'` })
      .where(eq(idempotencyKeys.key, key));
    const t0 = Date.now();
    const retry = await call(`${mp.backendUrl}/nft/collections/${id}/mint`, { body, headers: asService({ 'idempotency-key': key }) });
    assert.equal(retry.status, 201, JSON.stringify(retry.body));
    assert.ok(Date.now() - t0 < 10_000, 'taken over at once: the lease was over');
    assert.equal(retry.headers.get('idempotent-replayed'), null, 'run again (not a stored answer)');
    assert.deepEqual(retry.body.data, first.body.data, 'the same mint: answered from the recorded transaction');
    const supply = await mp.client.readContract({
      address,
      abi: (await import('../../contracts/abi/index.ts')).collectionAbi,
      functionName: 'totalSupply',
    });
    assert.equal(supply, 1n, 'no second mint');
    assert.equal((await mp.database.db.select().from(decks).where(eq(decks.collection_id, id))).length, 1);
    const [row] = await mp.database.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, key));
    assert.equal(row!.status, 'completed');
  });
});

/**
 * The ownership indexer on a real anvil: mints and transfers indexed exactly once, also after a
 * restart in the middle, a rewind, two kinds of reorg (evm_revert + different txs, anvil_reorg) and
 * a full reindex; decks linked to their transfers; status transitions; the watchdog.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import type { Address } from 'viem';
import { collectionAbi } from '../../contracts/abi/index.ts';
import { rows } from '../../src/db/client.ts';
import { readIndexerState as readState } from '../../src/db/indexer-store.ts';
import type { Indexer } from '../../src/indexer/indexer.ts';
import { createIndexer } from '../../src/indexer/service.ts';
import { IndexerEvents, type IndexerEvent } from '../../src/indexer/events.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { setupChain, defaultParams, createCollection, write, type ChainContext, type Wallet } from '../contracts/fixture.ts';

const ZERO = '0x0000000000000000000000000000000000000000';

describe('indexer', () => {
  let ctx: ChainContext;
  let database: TestDatabase;
  let w: Wallet[];
  let owner: Wallet, alice: Wallet, bob: Wallet, carol: Wallet;
  let c1: Address;
  const indexers: Indexer[] = [];

  const rpc = (method: string, params: unknown[] = []) => ctx.anvil.rpc(method, params);

  const makeIndexer = (extra: Partial<Parameters<typeof createIndexer>[0]> = {}) => {
    const ix = createIndexer({
      database,
      chainId: ctx.anvil.chainId,
      rpcUrl: ctx.anvil.rpcUrl,
      factoryAddress: ctx.deployment.contracts.DiamondFactory,
      startBlock: ctx.deployment.blockNumber,
      confirmations: 0,
      pollIntervalMs: 20,
      ...extra,
    });
    indexers.push(ix);
    return ix;
  };

  const transfersOf = (collection: Address) =>
    rows<{
      token_id: string;
      from_address: string;
      to_address: string;
      tx_hash: string;
      log_index: number;
      block_hash: string;
      deck_id: string | null;
    }>(
      database.db,
      sql`SELECT token_id::text, from_address, to_address, tx_hash, log_index, block_hash, deck_id FROM transfers
          WHERE collection_address = ${collection} ORDER BY block_number, log_index`,
    );

  const assertNoDuplicates = async () => {
    const [d] = await rows<{ n: number }>(
      database.db,
      sql`SELECT count(*)::int AS n FROM (SELECT tx_hash, log_index FROM transfers GROUP BY 1, 2 HAVING count(*) > 1) x`,
    );
    assert.equal(d!.n, 0, 'a log was stored twice');
  };

  const deckOwner = async (collectionId: string, tokenId: number) => {
    const [d] = await rows<{ current_owner: string | null; last_transfer_at: unknown }>(
      database.db,
      sql`SELECT current_owner, last_transfer_at FROM decks WHERE collection_id = ${collectionId} AND token_id = ${tokenId}`,
    );
    return d;
  };

  let collectionId: string;

  before(async () => {
    ctx = await setupChain();
    database = await createTestDatabase();
    w = ctx.wallets;
    [owner, alice, bob, carol] = [w[0]!, w[1]!, w[2]!, w[3]!];
    ({ address: c1 } = await createCollection(ctx, defaultParams(owner.account.address, owner.account.address)));
    // The platform's record of the collection, with decks for tokens 1..3 (token 4 gets one later).
    const [col] = await rows<{ id: string }>(
      database.db,
      sql`INSERT INTO collections (title, data, contract_address, chain_id) VALUES ('Indexed', '{}'::jsonb, ${c1.toLowerCase()}, ${ctx.anvil.chainId}) RETURNING id`,
    );
    collectionId = col!.id;
    for (const t of [1, 2, 3]) {
      await database.db.execute(sql`INSERT INTO decks (collection_id, token_id, mint_status) VALUES (${collectionId}, ${t}, 'minted')`);
    }
  });

  after(async () => {
    for (const ix of indexers) await ix.stop();
    await database?.close();
    await ctx?.stop();
  });

  test('mints and transfers are indexed once; mints are transfers from the zero address', async () => {
    await write(ctx, owner, c1, 'mintTo', [alice.account.address, 12n]);
    await write(ctx, alice, c1, 'transferFrom', [alice.account.address, bob.account.address, 3n]);
    await write(ctx, bob, c1, 'transferFrom', [bob.account.address, carol.account.address, 3n]);
    const ix = makeIndexer();
    await ix.syncOnce();
    await ix.syncOnce();

    const list = await transfersOf(c1);
    assert.equal(list.length, 14);
    const mints = list.filter((t) => t.from_address === ZERO);
    assert.deepEqual(
      mints.map((m) => m.token_id),
      Array.from({ length: 12 }, (_, i) => String(i + 1)),
    );
    assert.ok(mints.every((m) => m.to_address === alice.account.address));
    await assertNoDuplicates();

    // One mint call = one app_token_mints row (start id and quantity).
    const runs = await rows<{ start_token_id: string; quantity: number; to_address: string }>(
      database.db,
      sql`SELECT start_token_id::text, quantity, to_address FROM app_token_mints WHERE app_address = ${c1}`,
    );
    assert.deepEqual(runs, [{ start_token_id: '1', quantity: 12, to_address: alice.account.address }]);

    // Decks: owners and link.
    assert.equal((await deckOwner(collectionId, 3))!.current_owner, carol.account.address);
    assert.equal((await deckOwner(collectionId, 1))!.current_owner, alice.account.address);
    assert.ok((await deckOwner(collectionId, 3))!.last_transfer_at);
    assert.ok(list.filter((t) => ['1', '2', '3'].includes(t.token_id)).every((t) => t.deck_id !== null));
    assert.ok(list.filter((t) => t.token_id === '4').every((t) => t.deck_id === null));

    // The app, its owner token (OwnershipTransferred from zero at creation) and its DiamondCut.
    const [app] = await rows<{ name: string; creator: string }>(database.db, sql`SELECT name, creator FROM apps WHERE address = ${c1}`);
    assert.equal(app!.name, 'Atelier Dreamscapes');
    const owners = await rows<{ from_address: string; to_address: string }>(
      database.db,
      sql`SELECT from_address, to_address FROM owner_token_transfers WHERE app_address = ${c1}`,
    );
    assert.deepEqual(owners, [{ from_address: ZERO, to_address: owner.account.address }]);
    const [cuts] = await rows<{ n: number }>(
      database.db,
      sql`SELECT count(*)::int AS n FROM contract_upgrades WHERE contract_address = ${c1}`,
    );
    assert.equal(cuts!.n, 1);

    const state = await readState(database.db, ctx.anvil.chainId);
    assert.equal(state!.status, 'idle');
    assert.equal(state!.last_indexed_block, Number(await rpc('eth_blockNumber')));
  });

  test('a deck created after its transfers is linked and gets its owner', async () => {
    await database.db.execute(sql`INSERT INTO decks (collection_id, token_id, mint_status) VALUES (${collectionId}, 4, 'minted')`);
    const ix = makeIndexer();
    await ix.linkDecks(true);
    assert.equal((await deckOwner(collectionId, 4))!.current_owner, alice.account.address);
    const linked = (await transfersOf(c1)).filter((t) => t.token_id === '4');
    assert.ok(linked.length === 1 && linked[0]!.deck_id !== null);
  });

  test('a restart in the middle, and re-running indexed ranges, never duplicate', async () => {
    // Ten blocks with one transfer each.
    for (let t = 5; t <= 9; t++) {
      await write(ctx, alice, c1, 'transferFrom', [alice.account.address, bob.account.address, BigInt(t)]);
      await write(ctx, bob, c1, 'transferFrom', [bob.account.address, carol.account.address, BigInt(t)]);
    }
    const before = (await readState(database.db, ctx.anvil.chainId))!.last_indexed_block;
    const first = makeIndexer({ maxBlockRange: 2 });
    first.start();
    // Stop it after some progress: the range in flight finishes or never commits.
    for (let i = 0; i < 500; i++) {
      const s = await readState(database.db, ctx.anvil.chainId);
      if (s!.last_indexed_block > before) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    await first.stop();
    const mid = (await readState(database.db, ctx.anvil.chainId))!.last_indexed_block;
    assert.ok(mid > before);

    const second = makeIndexer({ maxBlockRange: 3 });
    await second.syncOnce();
    assert.equal((await transfersOf(c1)).length, 24);
    await assertNoDuplicates();

    // Rewind the state as if the last commits were lost: the same ranges again, nothing doubled.
    await database.db.execute(
      sql`UPDATE indexer_state SET last_indexed_block = ${ctx.deployment.blockNumber - 1}, last_indexed_hash = NULL`,
    );
    await makeIndexer().syncOnce();
    assert.equal((await transfersOf(c1)).length, 24);
    await assertNoDuplicates();
    assert.equal((await deckOwner(collectionId, 3))!.current_owner, carol.account.address);
  });

  test('reorg by snapshot/revert: the old block’s rows are gone, the new ones are there once', async () => {
    const events = new IndexerEvents();
    const heard: IndexerEvent[] = [];
    events.subscribe((e) => heard.push(e));
    const ix = makeIndexer({ events });
    await ix.syncOnce();
    const snapshot = await rpc('evm_snapshot');
    // Old branch: token 10 to bob, token 1 (deck) to bob.
    await write(ctx, alice, c1, 'transferFrom', [alice.account.address, bob.account.address, 10n]);
    await write(ctx, alice, c1, 'transferFrom', [alice.account.address, bob.account.address, 1n]);
    await ix.syncOnce();
    assert.equal((await deckOwner(collectionId, 1))!.current_owner, bob.account.address);
    const oldRows = (await transfersOf(c1)).filter((t) => t.token_id === '10' && t.from_address === alice.account.address);
    assert.equal(oldRows.length, 1);

    // New branch at the same heights and beyond: different transfers.
    await rpc('evm_revert', [snapshot]);
    await write(ctx, alice, c1, 'transferFrom', [alice.account.address, carol.account.address, 11n]);
    await write(ctx, alice, c1, 'transferFrom', [alice.account.address, carol.account.address, 12n]);
    await rpc('evm_mine');
    await ix.syncOnce();

    const all = await transfersOf(c1);
    assert.equal(all.filter((t) => t.tx_hash === oldRows[0]!.tx_hash).length, 0, 'transfer of the abandoned branch still stored');
    assert.equal(all.filter((t) => t.from_address === alice.account.address && t.token_id === '1').length, 0);
    assert.equal(all.filter((t) => t.token_id === '11' && t.to_address === carol.account.address).length, 1);
    assert.equal(all.filter((t) => t.token_id === '12' && t.to_address === carol.account.address).length, 1);
    await assertNoDuplicates();
    // Socket.io clients told of the abandoned branch's transfers are told they vanished.
    const retracted = heard
      .filter((e) => e.name === 'emprops:appToken:transfer_retracted')
      .map((e) => e.payload as { tokenId: string; to: string; txHash: string });
    assert.deepEqual(
      retracted.map((r) => [r.tokenId, r.to.toLowerCase()]),
      [
        ['10', bob.account.address.toLowerCase()],
        ['1', bob.account.address.toLowerCase()],
      ],
    );
    assert.equal(retracted[0]!.txHash, oldRows[0]!.tx_hash);
    // The deck's owner was recomputed from what is left.
    assert.equal((await deckOwner(collectionId, 1))!.current_owner, alice.account.address);
    const state = await readState(database.db, ctx.anvil.chainId);
    const head = (await rpc('eth_getBlockByNumber', ['latest', false])) as { hash: string; number: string };
    assert.equal(state!.last_indexed_hash, head.hash);
    assert.equal(state!.status, 'idle');
  });

  test('reorg by anvil_reorg at the same height: rows move to the new block hashes, once each', async () => {
    const ix = makeIndexer();
    await write(ctx, carol, c1, 'transferFrom', [carol.account.address, bob.account.address, 11n]);
    await ix.syncOnce();
    const beforeRows = (await transfersOf(c1)).filter((t) => t.token_id === '11' && t.to_address === bob.account.address);
    assert.equal(beforeRows.length, 1);
    const height = Number(await rpc('eth_blockNumber'));
    await rpc('anvil_reorg', [2, []]);
    assert.equal(Number(await rpc('eth_blockNumber')), height);
    await ix.syncOnce();
    const all = await transfersOf(c1);
    const blocks = new Map<string, string>();
    for (const b of await rows<{ block_number: string; block_hash: string }>(
      database.db,
      sql`SELECT DISTINCT block_number::text, block_hash FROM transfers WHERE collection_address = ${c1}`,
    )) {
      assert.ok(!blocks.has(b.block_number), `block ${b.block_number} stored with two hashes`);
      blocks.set(b.block_number, b.block_hash);
    }
    // Every stored hash is canonical now.
    for (const [n, h] of blocks) {
      const blk = (await rpc('eth_getBlockByNumber', [`0x${Number(n).toString(16)}`, false])) as { hash: string };
      assert.equal(blk.hash, h, `block ${n}`);
    }
    // The rows follow the new branch: the transfer is stored once if its transaction is still on
    // chain, not at all if the reorg dropped it; the owner matches ownerOf.
    const receipt = await rpc('eth_getTransactionReceipt', [beforeRows[0]!.tx_hash]);
    assert.equal(all.filter((t) => t.tx_hash === beforeRows[0]!.tx_hash).length, receipt ? 1 : 0);
    const onChain = (await ctx.publicClient.readContract({
      address: c1,
      abi: collectionAbi,
      functionName: 'ownerOf',
      args: [11n],
    })) as string;
    assert.equal(all.filter((t) => t.token_id === '11').at(-1)!.to_address, onChain);
    await assertNoDuplicates();
  });

  test('full reindex: status reindexing, then the same rows, then idle', async () => {
    const ix = makeIndexer();
    await ix.syncOnce();
    const count = (await transfersOf(c1)).length;
    const owner3 = (await deckOwner(collectionId, 3))!.current_owner;
    await ix.resetForReindex();
    const s1 = await readState(database.db, ctx.anvil.chainId);
    assert.equal(s1!.status, 'reindexing');
    assert.equal((await transfersOf(c1)).length, 0);
    assert.equal((await deckOwner(collectionId, 3))!.current_owner, null);
    await ix.syncOnce();
    assert.equal((await transfersOf(c1)).length, count);
    assert.equal((await deckOwner(collectionId, 3))!.current_owner, owner3);
    assert.equal((await readState(database.db, ctx.anvil.chainId))!.status, 'idle');
    await assertNoDuplicates();
  });

  test('watchdog: reports lag behind the head and a stalled loop', async () => {
    const warnings: string[] = [];
    const ix = makeIndexer({
      watchdog: { maxLagBlocks: 2, maxStallMs: 1 },
      logger: { info() {}, error() {}, warn: (_o, m) => warnings.push(m) },
    });
    await ix.syncOnce();
    for (let i = 0; i < 4; i++) await rpc('evm_mine');
    const s = await ix.checkWatchdog();
    assert.equal(s.behind, true);
    assert.ok(s.lag_blocks! >= 4);
    assert.ok(warnings.some((m) => m.includes('behind')));
    await ix.syncOnce();
    const s2 = await ix.checkWatchdog();
    assert.equal(s2.behind, false);
  });
});

/**
 * The engine over an in-memory chain and store (its two ports): ranges, confirmations, reorgs,
 * provider limits, a failed commit, the full reindex and deck links, without a database or a node.
 * test/indexer/ runs the same behaviour on anvil and PostgreSQL/PGlite.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { getAddress } from 'viem';
import {
  ALICE,
  BOB,
  CAROL,
  collectionCreatedLog,
  diamondCutLog,
  FACTORY,
  MemoryChain,
  ownershipLog,
  transferLog,
  ZERO,
} from '../../test/indexer/memory-chain.ts';
import { MemoryStore } from '../../test/indexer/memory-store.ts';
import { type IndexerEvent, IndexerEvents } from './events.ts';
import { Indexer, type IndexerOptions } from './indexer.ts';

const C1 = '0xc011ec7100000000000000000000000000000001';

/** A chain where the factory creates C1 in block 1 and mints tokens 1..3 to Alice in block 2. */
function setup(extra: Partial<IndexerOptions> = {}) {
  const chain = new MemoryChain();
  chain.mine([
    collectionCreatedLog(FACTORY, C1, 'One', 'ONE', ALICE),
    { ...ownershipLog(C1, ZERO, ALICE), tx: 1 },
    { ...diamondCutLog(C1, BOB, 0, ['0x01020304']), tx: 1 },
  ]);
  chain.mine([1n, 2n, 3n].map((id) => ({ ...transferLog(C1, ZERO, ALICE, id), tx: 1 })));
  const store = new MemoryStore(31337);
  const events = new IndexerEvents();
  const got: IndexerEvent[] = [];
  events.subscribe((e) => got.push(e));
  const indexer = new Indexer({ chainId: 31337, store, source: chain, factoryAddress: FACTORY, startBlock: 1, events, ...extra });
  return { chain, store, indexer, got };
}

const owners = (store: MemoryStore) => store.transfers.map((t) => [t.token_id, t.to_address]);

describe('indexer engine', () => {
  test('a backfill indexes the factory’s collection and its logs once, announces them once, ends idle', async () => {
    const { chain, store, indexer, got } = setup();
    chain.mine([transferLog(C1, ALICE, BOB, 2n)]);
    await indexer.syncOnce();
    assert.equal(store.apps.length, 1);
    assert.deepEqual(owners(store), [
      ['1', getAddress(ALICE)],
      ['2', getAddress(ALICE)],
      ['3', getAddress(ALICE)],
      ['2', getAddress(BOB)],
    ]);
    assert.deepEqual(
      store.mints.map((m) => [m.start_token_id, m.quantity]),
      [['1', 3]],
    );
    assert.equal(store.owners.length, 1);
    assert.equal(store.upgrades.length, 1);
    const state = await store.state();
    assert.deepEqual([state!.status, state!.last_indexed_block, state!.last_indexed_hash], ['idle', 3, chain.hashOf(3)]);
    assert.deepEqual(
      got.map((e) => e.name),
      [
        'emprops:app:created',
        'emprops:ownerToken:minted',
        'emprops:contract:upgraded',
        'emprops:appToken:minted',
        'emprops:appToken:transferred',
      ],
    );
    // Nothing new: nothing written, nothing announced.
    const commits = store.commits;
    await indexer.syncOnce();
    assert.equal(store.commits, commits);
    assert.equal(got.length, 5);
  });

  test('nothing above head − confirmations is indexed or announced', async () => {
    const { chain, store, indexer, got } = setup({ confirmations: 2 });
    chain.mine([transferLog(C1, ALICE, BOB, 1n)]); // block 3: not confirmed yet
    chain.mine(); // 4
    await indexer.syncOnce();
    assert.equal((await store.state())!.last_indexed_block, 2);
    assert.equal(store.transfers.length, 3);
    assert.ok(got.every((e) => e.name !== 'emprops:appToken:transferred'));
    chain.mine(); // 5: block 3 has its confirmations
    await indexer.syncOnce();
    assert.equal(store.transfers.length, 4);
    assert.equal(got.filter((e) => e.name === 'emprops:appToken:transferred').length, 1);
  });

  test('a reorg: the abandoned branch’s rows go, the new branch’s come once, deck owners follow', async () => {
    const { chain, store, indexer } = setup();
    store.decks.push({ id: 'deck-1', collection_address: C1, token_id: '1', current_owner: null, last_transfer_at: null });
    chain.mine([transferLog(C1, ALICE, BOB, 1n)]); // 3
    chain.mine([transferLog(C1, BOB, CAROL, 1n)]); // 4
    await indexer.syncOnce();
    assert.equal(store.decks[0]!.current_owner, getAddress(CAROL));

    chain.reorg(2); // blocks 3 and 4 are gone
    chain.mine([transferLog(C1, ALICE, CAROL, 3n)]);
    chain.mine();
    chain.mine();
    await indexer.syncOnce();
    assert.deepEqual(owners(store), [
      ['1', getAddress(ALICE)],
      ['2', getAddress(ALICE)],
      ['3', getAddress(ALICE)],
      ['3', getAddress(CAROL)],
    ]);
    assert.equal(store.decks[0]!.current_owner, getAddress(ALICE)); // back to its mint
    const state = await store.state();
    assert.deepEqual([state!.last_indexed_block, state!.last_indexed_hash, state!.status], [5, chain.hashOf(5), 'idle']);
    assert.deepEqual(
      [...store.blocks.values()].filter((b) => b.block_number > 2).map((b) => b.block_hash),
      [3, 4, 5].map((n) => chain.hashOf(n)),
    );
  });

  test('a reorg: clients told of the vanished transfers get a retraction each, in chain order, in the room', async () => {
    const { chain, indexer, got } = setup();
    chain.mine([transferLog(C1, ALICE, BOB, 1n)]); // 3
    chain.mine([transferLog(C1, BOB, CAROL, 1n)]); // 4
    await indexer.syncOnce();
    const told = got.filter((e) => e.name === 'emprops:appToken:transferred').map((e) => e.payload);
    assert.equal(told.length, 2);

    chain.reorg(2);
    chain.mine([transferLog(C1, ALICE, CAROL, 3n)]);
    chain.mine();
    chain.mine();
    await indexer.syncOnce();
    const retracted = got.filter((e) => e.name === 'emprops:appToken:transfer_retracted');
    assert.deepEqual(
      retracted.map((e) => e.room),
      [`app:${C1.toLowerCase()}`, `app:${C1.toLowerCase()}`],
    );
    assert.deepEqual(
      retracted.map((e) => {
        const p = e.payload as { tokenId: string; from: string; to: string; txHash: string; blockNumber: number };
        return [p.tokenId, getAddress(p.from), getAddress(p.to), p.blockNumber];
      }),
      [
        ['1', getAddress(ALICE), getAddress(BOB), 3],
        ['1', getAddress(BOB), getAddress(CAROL), 4],
      ],
    );
    assert.deepEqual(
      retracted.map((e) => (e.payload as { txHash: string }).txHash),
      told.map((p) => (p as { txHash: string }).txHash),
      'the very transfers announced',
    );
    // A reorg that removed nothing retracts nothing.
    const before = got.length;
    chain.reorg(5);
    chain.mine();
    await indexer.syncOnce();
    assert.equal(got.slice(before).filter((e) => e.name === 'emprops:appToken:transfer_retracted').length, 0);
  });

  test('a reorg that keeps the height is found at rest (the last block’s hash changed)', async () => {
    const { chain, store, indexer } = setup();
    chain.mine([transferLog(C1, ALICE, BOB, 1n)]); // 3
    await indexer.syncOnce();
    chain.reorg(2);
    chain.mine([transferLog(C1, ALICE, CAROL, 2n)]); // a different block 3
    await indexer.syncOnce();
    assert.deepEqual(owners(store).slice(3), [['2', getAddress(CAROL)]]);
    assert.equal((await store.state())!.last_indexed_hash, chain.hashOf(3));
  });

  test('a provider’s range limit shrinks the ranges until they pass', async () => {
    const { chain, store, indexer } = setup({ maxBlockRange: 16 });
    for (let i = 0; i < 12; i++) chain.mine([transferLog(C1, i % 2 ? BOB : ALICE, i % 2 ? ALICE : BOB, 1n)]);
    chain.maxLogRange = 3;
    const ranges = await indexer.syncOnce();
    assert.equal(store.transfers.length, 15);
    assert.ok(ranges.every((r) => r.to - r.from + 1 <= 3));
    assert.equal(ranges.at(-1)!.to, chain.head);
  });

  test('a failed commit leaves the range unindexed; the next pass indexes it once', async () => {
    const { chain, store, indexer, got } = setup();
    await indexer.syncOnce();
    chain.mine([transferLog(C1, ALICE, BOB, 1n)]);
    store.failCommits = 1;
    await assert.rejects(indexer.syncOnce(), /connection lost/);
    assert.equal((await store.state())!.last_indexed_block, 2);
    await indexer.syncOnce();
    assert.equal(store.transfers.length, 4);
    assert.equal(got.filter((e) => e.name === 'emprops:appToken:transferred').length, 1);
  });

  test('full reindex: reindexing until caught up, then the same rows and idle', async () => {
    const { chain, store, indexer } = setup();
    chain.mine([transferLog(C1, ALICE, BOB, 1n)]);
    await indexer.syncOnce();
    const before = owners(store);
    await indexer.resetForReindex();
    assert.deepEqual([(await store.state())!.status, store.transfers.length], ['reindexing', 0]);
    await indexer.syncOnce();
    assert.deepEqual(owners(store), before);
    assert.equal((await store.state())!.status, 'idle');
  });

  test('a deck that appears after its transfers is linked and gets its owner', async () => {
    const { store, indexer } = setup();
    await indexer.syncOnce();
    assert.equal(store.transfers[1]!.deck_id, null);
    store.decks.push({ id: 'deck-2', collection_address: C1, token_id: '2', current_owner: null, last_transfer_at: null });
    await indexer.linkDecks(true);
    assert.equal(store.transfers[1]!.deck_id, 'deck-2');
    assert.equal(store.decks[0]!.current_owner, getAddress(ALICE));
  });

  test('the watchdog sees lag after the head moves and clears it after a pass', async () => {
    const { chain, indexer } = setup({ watchdog: { maxLagBlocks: 2 } });
    await indexer.syncOnce();
    chain.mineEmpty(3);
    const s = await indexer.checkWatchdog();
    assert.deepEqual([s.behind, s.lag_blocks], [true, 3]);
    assert.equal(s.warnings.length, 1);
    await indexer.syncOnce();
    assert.equal((await indexer.checkWatchdog()).behind, false);
  });
});

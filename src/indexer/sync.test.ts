import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { getAddress } from 'viem';
import { ALICE, BOB, collectionCreatedLog, FACTORY, MemoryChain, transferLog, ZERO } from '../../test/indexer/memory-chain.ts';
import type { RawBlock, RawLog } from './rpc.ts';
import { checkHeaders, checkLastIndexed, checkLogs, fetchRange, findCommonAncestor, normalizeAddresses, ReorgDetected } from './sync.ts';

const C1 = '0xc011ec7100000000000000000000000000000001';
const C2 = '0xc011ec7100000000000000000000000000000002';

const request = (from: number, to: number, extra: Partial<Parameters<typeof fetchRange>[1]> = {}) => ({
  from,
  to,
  prevHash: null,
  recent: true,
  factory: FACTORY,
  followed: [C1],
  addressChunk: 500,
  ...extra,
});

/** Stored hashes as the store would keep them: every block up to `to` of the chain as it is now. */
const storedFrom = (chain: MemoryChain, to: number) => {
  const blocks = Array.from({ length: to + 1 }, (_, n) => ({ number: n, hash: chain.hashOf(n) }));
  return async (below: number, limit: number) =>
    blocks
      .filter((b) => b.number < below)
      .reverse()
      .slice(0, limit);
};

const isReorgAt = (at: number) => (err: unknown) => err instanceof ReorgDetected && err.atBlock === at;

describe('sync', () => {
  test('a range: logs of followed collections and of collections the factory creates in it, in chain order', async () => {
    const chain = new MemoryChain();
    chain.mine([transferLog(C1, ZERO, ALICE, 1n)]);
    chain.mine([collectionCreatedLog(FACTORY, C2, 'Two', 'TWO', ALICE), transferLog(C2, ZERO, BOB, 1n), transferLog(C1, ALICE, BOB, 1n)]);
    chain.mine([transferLog('0xdead000000000000000000000000000000000000', ZERO, BOB, 9n)]); // not followed
    const r = await fetchRange(chain, request(1, 3));
    assert.deepEqual(
      r.logs.map((l) => [Number.parseInt(l.blockNumber, 16), Number.parseInt(l.logIndex, 16), getAddress(l.address)]),
      [
        [1, 0, getAddress(C1)],
        [2, 0, getAddress(FACTORY)],
        [2, 1, getAddress(C2)],
        [2, 2, getAddress(C1)],
      ],
    );
    assert.equal(r.lastHash, chain.hashOf(3));
    // Near the head every header is kept with its parent.
    assert.deepEqual(
      r.blocks.map((b) => [b.block_number, b.block_hash, b.parent_hash]).sort(),
      [1, 2, 3].map((n) => [n, chain.hashOf(n), chain.hashOf(n - 1)]),
    );
    assert.equal(r.timestamps.size, 3);
  });

  test('deep ranges check and keep the first and last header plus the blocks that have logs', async () => {
    const chain = new MemoryChain();
    chain.mineEmpty(3);
    chain.mine([transferLog(C1, ZERO, ALICE, 1n)]);
    chain.mineEmpty(5);
    const r = await fetchRange(chain, request(1, 9, { recent: false }));
    assert.deepEqual(
      r.blocks.map((b) => b.block_number).sort((a, b) => a - b),
      [1, 4, 9],
    );
    assert.equal(r.blocks.find((b) => b.block_number === 4)!.parent_hash, null);
  });

  test('the first block must follow the stored hash of the block before it', async () => {
    const chain = new MemoryChain();
    chain.mineEmpty(4);
    await assert.rejects(fetchRange(chain, request(3, 4, { prevHash: `0x${'1'.repeat(64)}` })), isReorgAt(2));
    const ok = await fetchRange(chain, request(3, 4, { prevHash: chain.hashOf(2) }));
    assert.equal(ok.lastHash, chain.hashOf(4));
  });

  test('near the head, a header that does not follow the previous one is a reorg at the previous one', () => {
    const h = (n: number, hash: string, parent: string): RawBlock => ({
      number: `0x${n.toString(16)}`,
      hash,
      parentHash: parent,
      timestamp: '0x1',
    });
    const headers = [h(5, '0xa5', '0xa4'), h(6, '0xa6', '0xa5'), h(7, '0xb7', '0xb6')];
    assert.throws(() => checkHeaders(headers, { from: 5, to: 7, prevHash: '0xa4', recent: true }), isReorgAt(6));
    // Deep ranges only check the link to the stored hash.
    assert.doesNotThrow(() => checkHeaders([headers[0]!, headers[2]!], { from: 5, to: 7, prevHash: '0xa4', recent: false }));
    assert.throws(() => checkHeaders([headers[0]!, null], { from: 5, to: 7, prevHash: null, recent: false }), isReorgAt(4));
  });

  test('a log from another branch than its header (a reorg during the fetch) is a reorg before the range', () => {
    const header: RawBlock = { number: '0x5', hash: '0xa5', parentHash: '0xa4', timestamp: '0x10' };
    const log = (blockHash: string, logIndex = '0x0'): RawLog => ({
      address: C1,
      topics: [],
      data: '0x',
      blockNumber: '0x5',
      blockHash,
      transactionHash: '0x01',
      logIndex,
    });
    const headers = new Map([[5, header]]);
    assert.throws(() => checkLogs([log('0xb5')], headers, 5), isReorgAt(4));
    assert.throws(() => checkLogs([log('0xb5'), log('0xc5', '0x1')], new Map(), 5), isReorgAt(4));
    const { timestamps, missing } = checkLogs([log('0xa5')], headers, 5);
    assert.equal(timestamps.get(5), 16);
    assert.deepEqual(missing, []);
  });

  test('timestamps come from the headers when logs lack blockTimestamp', async () => {
    const chain = new MemoryChain();
    chain.omitLogTimestamps = true;
    chain.mineEmpty(2);
    chain.mine([transferLog(C1, ZERO, ALICE, 1n)]);
    chain.mineEmpty(2);
    const r = await fetchRange(chain, request(1, 5, { recent: false }));
    const [header] = await chain.blocks([3]);
    assert.equal(r.timestamps.get(3), Number.parseInt(header!.timestamp, 16));
  });

  test('followed addresses are split into eth_getLogs calls of addressChunk', async () => {
    const chain = new MemoryChain();
    chain.mineEmpty(1);
    const followed = Array.from({ length: 5 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`);
    await fetchRange(chain, request(1, 1, { followed, factory: undefined, addressChunk: 2 }));
    assert.deepEqual(
      chain.getLogsCalls.map((c) => (c.address as string[]).length),
      [2, 2, 1],
    );
    assert.deepEqual(normalizeAddresses(['0xABC', C1, C1.toUpperCase().replace('0X', '0x')]), [getAddress(C1)]);
  });

  test('the last indexed block must still have its stored hash', async () => {
    const chain = new MemoryChain();
    chain.mineEmpty(3);
    await checkLastIndexed(chain, 3, chain.hashOf(3));
    await checkLastIndexed(chain, -1, null);
    const old = chain.hashOf(3);
    chain.reorg(1);
    chain.mineEmpty(2); // same height, other hashes
    await assert.rejects(checkLastIndexed(chain, 3, old), isReorgAt(3));
  });

  describe('common ancestor', () => {
    test('the newest stored block that is still canonical', async () => {
      const chain = new MemoryChain();
      chain.mineEmpty(100);
      const stored = storedFrom(chain, 100);
      chain.reorg(70);
      chain.mineEmpty(40);
      assert.deepEqual(await findCommonAncestor(chain, stored, 100, 1), { number: 70, hash: chain.hashOf(70) });
      // Walks down several batches.
      assert.deepEqual(await findCommonAncestor(chain, stored, 100, 1, 8), { number: 70, hash: chain.hashOf(70) });
    });

    test('sparse stored hashes: the newest canonical one among them', async () => {
      const chain = new MemoryChain();
      chain.mineEmpty(50);
      const sparse = [10, 20, 30, 40].map((n) => ({ number: n, hash: chain.hashOf(n) }));
      chain.reorg(35);
      chain.mineEmpty(20);
      const stored = async (below: number, limit: number) =>
        sparse
          .filter((b) => b.number < below)
          .reverse()
          .slice(0, limit);
      assert.deepEqual(await findCommonAncestor(chain, stored, 50, 1, 1), { number: 30, hash: chain.hashOf(30) });
    });

    test('nothing canonical left: the start block − 1, without a hash', async () => {
      const chain = new MemoryChain();
      chain.mineEmpty(10);
      const stored = storedFrom(chain, 10);
      chain.reorg(0);
      chain.mineEmpty(12);
      const all = await stored(11, 100);
      const below5 = async (below: number, limit: number) => (await stored(below, limit)).filter((b) => b.number >= 5);
      assert.ok(all.length > 0);
      assert.deepEqual(await findCommonAncestor(chain, below5, 10, 5), { number: 4, hash: null });
    });
  });
});

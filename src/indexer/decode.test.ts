import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { getAddress } from 'viem';
import {
  ALICE,
  BOB,
  collectionCreatedLog,
  diamondCutLog,
  FACTORY,
  MemoryChain,
  ownershipLog,
  type PendingLog,
  transferLog,
  ZERO,
} from '../../test/indexer/memory-chain.ts';
import { decodeLogs, TOPICS } from './decode.ts';

const C1 = '0xc011ec7100000000000000000000000000000001';

/** Mines the logs in one block and returns them as the node would, with the block's time. */
async function logsOf(pending: PendingLog[]) {
  const chain = new MemoryChain();
  const n = chain.mine(pending);
  const logs = await chain.getLogs({ fromBlock: n, toBlock: n });
  const [header] = await chain.blocks([n]);
  return { logs, timestamps: new Map([[n, Number.parseInt(header!.timestamp, 16)]]), n, hash: header!.hash };
}

describe('decode', () => {
  test('an ERC-721 Transfer becomes a transfer row; from zero is a mint; addresses are checksummed', async () => {
    const { logs, timestamps, n, hash } = await logsOf([transferLog(C1, ZERO, ALICE, 7n), transferLog(C1, ALICE, BOB, 2n ** 80n)]);
    const d = decodeLogs(logs, timestamps);
    assert.equal(d.transfers.length, 2);
    const [mint, move] = d.transfers;
    assert.deepEqual(
      { ...mint, timestamp: mint!.timestamp.toISOString() },
      {
        block_number: n,
        block_hash: hash,
        tx_hash: logs[0]!.transactionHash,
        log_index: 0,
        timestamp: new Date(timestamps.get(n)! * 1000).toISOString(),
        collection_address: getAddress(C1),
        from_address: ZERO,
        to_address: getAddress(ALICE),
        token_id: '7',
      },
    );
    assert.equal(move!.token_id, (2n ** 80n).toString());
    assert.equal(move!.from_address, getAddress(ALICE));
    assert.equal(move!.log_index, 1);
  });

  test('OwnershipTransferred, DiamondCut and the factory’s CollectionCreated', async () => {
    const { logs, timestamps } = await logsOf([
      collectionCreatedLog(FACTORY, C1, 'Neon Dreams', 'NEON', ALICE),
      ownershipLog(C1, ZERO, ALICE),
      diamondCutLog(C1, BOB, 1, ['0x12345678', '0xabcdef01']),
    ]);
    const d = decodeLogs(logs, timestamps, FACTORY);
    assert.deepEqual(
      d.apps.map((a) => [a.address, a.factory_address, a.name, a.symbol, a.creator]),
      [[getAddress(C1), getAddress(FACTORY), 'Neon Dreams', 'NEON', getAddress(ALICE)]],
    );
    assert.deepEqual(
      d.owners.map((o) => [o.app_address, o.from_address, o.to_address]),
      [[getAddress(C1), ZERO, getAddress(ALICE)]],
    );
    assert.equal(d.upgrades.length, 1);
    assert.deepEqual(d.upgrades[0]!.cuts, [
      { facetAddress: getAddress(BOB), action: 'replace', functionSelectors: ['0x12345678', '0xabcdef01'] },
    ]);
    assert.equal(d.upgrades[0]!.init_address, ZERO);
    assert.equal(d.upgrades[0]!.init_calldata, '0x');
    assert.deepEqual(d.skipped, []);
  });

  test('CollectionCreated from another address, ERC-20 Transfers (3 topics) and unknown events are ignored', async () => {
    const erc20 = transferLog(C1, ALICE, BOB, 1n);
    erc20.topics = erc20.topics.slice(0, 3);
    const { logs, timestamps } = await logsOf([
      collectionCreatedLog(BOB, C1, 'Fake', 'FAKE', ALICE),
      erc20,
      { address: C1, topics: [`0x${'ab'.repeat(32)}`], data: '0x' },
    ]);
    const d = decodeLogs(logs, timestamps, FACTORY);
    assert.deepEqual([d.apps.length, d.transfers.length, d.owners.length, d.upgrades.length], [0, 0, 0, 0]);
  });

  test('a DiamondCut whose data does not decode is reported as skipped, the rest still decodes', async () => {
    const { logs, timestamps } = await logsOf([
      { address: C1, topics: [TOPICS.DiamondCut], data: '0x1234' },
      transferLog(C1, ZERO, ALICE, 1n),
    ]);
    const d = decodeLogs(logs, timestamps);
    assert.equal(d.upgrades.length, 0);
    assert.equal(d.skipped.length, 1);
    assert.match(d.skipped[0]!.reason, /DiamondCut/);
    assert.equal(d.transfers.length, 1);
  });

  test('logs of one block share one timestamp; a block without a known time is an error', async () => {
    const { logs, timestamps } = await logsOf([transferLog(C1, ZERO, ALICE, 1n), transferLog(C1, ZERO, ALICE, 2n)]);
    const d = decodeLogs(logs, timestamps);
    assert.equal(d.transfers[0]!.timestamp, d.transfers[1]!.timestamp);
    assert.throws(() => decodeLogs(logs, new Map()), /no timestamp/);
  });
});

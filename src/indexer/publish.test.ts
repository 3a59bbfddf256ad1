import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AppRecord, OwnerTransferRecord, TransferRecord, UpgradeRecord } from '../domain/ports/indexer-rows.ts';
import { groupMints } from './projections.ts';
import { type Added, Announced, eventsOf, publishAll, type RangeRows } from './publish.ts';

const ZERO = '0x0000000000000000000000000000000000000000';
const C1 = '0xC011Ec7100000000000000000000000000000001';
const ALICE = '0xA11ce00000000000000000000000000000000001';
const BOB = '0xb0B0000000000000000000000000000000000002';
const at = (block: number, tx: string, log: number) => ({
  block_number: block,
  block_hash: `0xb${block}`,
  tx_hash: tx,
  log_index: log,
  timestamp: new Date(1_700_000_000_000),
});

const app: AppRecord = { ...at(5, '0x01', 0), address: C1, factory_address: BOB, name: 'One', symbol: 'ONE', creator: ALICE };
const owner: OwnerTransferRecord = { ...at(5, '0x01', 1), app_address: C1, from_address: ZERO, to_address: ALICE };
const upgrade: UpgradeRecord = {
  ...at(5, '0x01', 2),
  contract_address: C1,
  init_address: ZERO,
  init_calldata: '0x',
  cuts: [
    { facetAddress: BOB, action: 'add', functionSelectors: ['0x01020304'] },
    { facetAddress: ALICE, action: 'remove', functionSelectors: ['0x05060708'] },
  ],
};
const t = (block: number, tx: string, log: number, from: string, to: string, token: number): TransferRecord => ({
  ...at(block, tx, log),
  collection_address: C1,
  from_address: from,
  to_address: to,
  token_id: String(token),
});
const transfers = [t(6, '0x02', 0, ZERO, ALICE, 1), t(6, '0x02', 1, ZERO, ALICE, 2), t(7, '0x03', 0, ALICE, BOB, 1)];
const rows: RangeRows = { apps: [app], owners: [owner], upgrades: [upgrade], transfers, mints: groupMints(transfers) };
const keys = (list: readonly { tx_hash: string; log_index: number }[]) => list.map(({ tx_hash, log_index }) => ({ tx_hash, log_index }));
const everything: Added = {
  apps: keys(rows.apps),
  owners: keys(rows.owners),
  upgrades: keys(rows.upgrades),
  transfers: keys(rows.transfers),
  mints: keys(rows.mints),
};

describe('publish', () => {
  test('the events of a range in chain order, with the payloads and rooms of docs/api/nft.md §6.3', () => {
    const events = eventsOf(rows, everything, new Announced());
    assert.deepEqual(
      events.map((e) => [e.name, e.room]),
      [
        ['emprops:app:created', null],
        ['emprops:ownerToken:minted', `app:${C1.toLowerCase()}`],
        ['emprops:contract:upgraded', `app:${C1.toLowerCase()}`],
        ['emprops:contract:upgraded', `app:${C1.toLowerCase()}`],
        ['emprops:appToken:minted', `app:${C1.toLowerCase()}`],
        ['emprops:appToken:transferred', `app:${C1.toLowerCase()}`],
      ],
    );
    assert.deepEqual(events[0]!.payload, {
      appAddress: C1,
      ownerTokenId: C1,
      type: 'collection',
      name: 'One',
      symbol: 'ONE',
      owner: ALICE,
    });
    assert.deepEqual(events[2]!.payload, {
      contractType: 'collection',
      implementation: BOB,
      contractAddress: C1,
      action: 'add',
      selectors: ['0x01020304'],
    });
    assert.deepEqual(events[4]!.payload, { appAddress: C1, to: ALICE, startTokenId: '1', quantity: 2, txHash: '0x02' });
    assert.deepEqual(events[5]!.payload, { tokenId: '1', appAddress: C1, from: ALICE, to: BOB, txHash: '0x03' });
  });

  test('only rows the inserts added, and each log once per process', () => {
    const announced = new Announced();
    const onlyTransfer: Added = { apps: [], owners: [], upgrades: [], mints: [], transfers: [{ tx_hash: '0x03', log_index: 0 }] };
    assert.deepEqual(
      eventsOf(rows, onlyTransfer, announced).map((e) => e.name),
      ['emprops:appToken:transferred'],
    );
    assert.deepEqual(eventsOf(rows, onlyTransfer, announced), []); // the same log again (a re-run, a reorg re-including it)
    assert.equal(eventsOf(rows, everything, announced).length, 5);
    announced.clear();
    assert.equal(eventsOf(rows, everything, announced).length, 6);
  });

  test('an ownership transfer that is not from zero is announced as transferred', () => {
    const moved: OwnerTransferRecord = { ...owner, ...at(9, '0x09', 0), from_address: ALICE, to_address: BOB };
    const events = eventsOf({ ...rows, owners: [moved] }, { ...everything, owners: keys([moved]) }, new Announced());
    const e = events.find((x) => x.name === 'emprops:ownerToken:transferred');
    assert.deepEqual(e?.payload, { tokenId: C1, from: ALICE, to: BOB, contractAddress: C1 });
  });

  test('the announced set is bounded; a failing listener does not stop the others', () => {
    const announced = new Announced(2);
    for (let i = 0; i < 5; i++) announced.first('k', { tx_hash: `0x${i}`, log_index: 0 });
    announced.prune();
    assert.equal(announced.size, 2);
    assert.equal(announced.first('k', { tx_hash: '0x4', log_index: 0 }), false); // the newest are kept
    const got: string[] = [];
    const errors: string[] = [];
    let calls = 0;
    const sink = {
      publish: (e: { name: string }) => {
        if (calls++ === 0) throw new Error('listener broke');
        got.push(e.name);
      },
    };
    publishAll(sink, eventsOf(rows, everything, new Announced()), (err) => errors.push(err.message));
    assert.deepEqual(errors, ['listener broke']);
    assert.equal(got.length, 5);
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { TransferRecord } from '../domain/ports/indexer-rows.ts';
import type { DeckMatch } from '../db/ownership.ts';
import { deckLinks, groupMints, latestPerToken, ownersAfterRange, ownersAfterRollback, tokenKey } from './projections.ts';

const ZERO = '0x0000000000000000000000000000000000000000';
const C1 = '0xC011Ec7100000000000000000000000000000001';
const ALICE = '0xA11ce00000000000000000000000000000000001';
const BOB = '0xb0B0000000000000000000000000000000000002';

let seq = 0;
function transfer(from: string, to: string, token: number, tx: string, log: number, block = 10): TransferRecord {
  return {
    collection_address: C1,
    token_id: String(token),
    from_address: from,
    to_address: to,
    block_number: block,
    block_hash: `0xb${block}`,
    tx_hash: tx,
    log_index: log,
    timestamp: new Date(1_700_000_000_000 + ++seq * 1000),
  };
}

const deck = (id: string, token: number, createdAt = 0, address = C1): DeckMatch => ({
  deck_id: id,
  collection_address: address,
  token_id: String(token),
  collection_created_at: new Date(createdAt),
});

describe('projections', () => {
  test('mint runs: one per transaction, recipient and consecutive ids; other transfers break a run', () => {
    const list = [
      transfer(ZERO, ALICE, 1, '0x01', 0),
      transfer(ZERO, ALICE, 2, '0x01', 1),
      transfer(ZERO, ALICE, 3, '0x01', 2),
      transfer(ZERO, BOB, 4, '0x01', 3), // other recipient
      transfer(ZERO, BOB, 6, '0x01', 4), // gap in ids
      transfer(ALICE, BOB, 1, '0x02', 0),
      transfer(ZERO, BOB, 7, '0x03', 0), // other transaction
      transfer(ZERO, BOB, 8, '0x03', 1),
    ];
    assert.deepEqual(
      groupMints(list).map((m) => [m.tx_hash, m.to_address, m.start_token_id, m.quantity, m.log_index]),
      [
        ['0x01', ALICE, '1', 3, 0],
        ['0x01', BOB, '4', 1, 3],
        ['0x01', BOB, '6', 1, 4],
        ['0x03', BOB, '7', 2, 0],
      ],
    );
    assert.deepEqual(groupMints([transfer(ALICE, BOB, 1, '0x09', 0)]), []);
  });

  test('each token’s latest transfer of the range, any address case', () => {
    const a = transfer(ZERO, ALICE, 1, '0x01', 0, 10);
    const b = { ...transfer(ALICE, BOB, 1, '0x02', 0, 11), collection_address: C1.toLowerCase() };
    const c = transfer(ZERO, ALICE, 2, '0x03', 0, 11);
    assert.deepEqual(latestPerToken([a, b, c]), [b, c]);
  });

  test('a token links to the deck of the newest collection record with its address', () => {
    const links = deckLinks([deck('old', 1, 1000), deck('new', 1, 2000, C1.toLowerCase()), deck('two', 2, 1000)]);
    assert.equal(links.get(tokenKey({ collection_address: C1, token_id: '1' })), 'new');
    assert.equal(links.get(tokenKey({ collection_address: C1, token_id: '2' })), 'two');
    assert.equal(links.size, 2);
  });

  test('after a range every matching deck shows its token’s latest recipient and time', () => {
    const last = transfer(ALICE, BOB, 1, '0x02', 0, 11);
    const owners = ownersAfterRange([last], [deck('d1', 1), deck('d1b', 1, 5), deck('d2', 2)]);
    assert.deepEqual(owners, [
      { id: 'd1', current_owner: BOB, last_transfer_at: last.timestamp },
      { id: 'd1b', current_owner: BOB, last_transfer_at: last.timestamp },
    ]);
  });

  test('after a rollback a deck shows the latest remaining transfer, or no owner when none remains', () => {
    const at = new Date(1_700_000_000_000);
    const owners = ownersAfterRollback(
      [{ collection_address: C1, token_id: '1', to_address: ALICE, timestamp: at }],
      [deck('d1', 1), deck('d2', 2)],
    );
    assert.deepEqual(owners, [
      { id: 'd1', current_owner: ALICE, last_transfer_at: at },
      { id: 'd2', current_owner: null, last_transfer_at: null },
    ]);
  });
});

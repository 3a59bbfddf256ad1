/**
 * The exact-counts reveal's waiting rules (docs/fairness.md "Exact counts", step 4) over fake
 * ports: the offset is recorded and the deck marked assigned only once every minted token
 * 1..tokens_minted has its deck; a deck made late still gets its dealt artwork on a later pass.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Hex } from 'viem';
import type { CollectionRow } from '../db/collections.ts';
import type { ExactDeckRow } from '../db/fairness.ts';
import { createExactReveal, type ExactChain, type ExactStore, type MintedToken } from './exact-reveal.ts';

const ADDRESS = `0x${'ab'.repeat(20)}`;
const BLOCK_HASH = `0x${'cd'.repeat(32)}` as Hex;

function setup(minted: number[]) {
  const calls = { offsets: 0, assigned: 0, dealt: [] as number[] };
  const collection = { id: 'c1', chain_id: 31337, contract_address: ADDRESS, tokens_minted: 3, data: {} } as unknown as CollectionRow;
  const row = {
    chain_id: 31337,
    contract_address: ADDRESS,
    spec: { editions: 3 },
    deck: [{ metal: 'gold' }, { metal: 'iron' }, { metal: 'iron' }],
    provenance_hash: `0x${'ee'.repeat(32)}`,
    provenance_tx_hash: `0x${'01'.repeat(32)}`,
    reveal_offset: null as number | null,
    offset_block: null as number | null,
    assigned_at: null as Date | null,
  };
  const tokens = { ids: minted, dealt: new Set<number>() };
  const store = {
    getCollection: async () => collection,
    exactDeckOf: async () => ({ ...row }) as unknown as ExactDeckRow,
    mintedTokensOf: async (): Promise<MintedToken[]> =>
      tokens.ids.map((id) => ({
        token_id: id,
        mint_tx_hash: `0x${id.toString(16).padStart(64, '0')}`,
        mint_recipient: ADDRESS,
        cover_output_id: null,
        dealt: tokens.dealt.has(id),
        output_status: null,
      })),
    recordRevealOffset: async (_c: number, _a: string, o: { block: number; offset: number }) => {
      calls.offsets++;
      row.reveal_offset = o.offset;
      row.offset_block = o.block;
    },
    markDeckAssigned: async () => {
      calls.assigned++;
      row.assigned_at = new Date();
    },
  } as unknown as ExactStore;
  const chain = {
    minedBlockOf: async (_c: number, tx: Hex) => ({ blockNumber: Number(BigInt(tx)) + 10, blockHash: BLOCK_HASH }),
    confirmedBlock: async () => BLOCK_HASH,
  } as unknown as ExactChain;
  const reveal = createExactReveal({
    store,
    chain,
    startDealtArtwork: async (_c, t) => {
      calls.dealt.push(t.tokenId);
      tokens.dealt.add(t.tokenId);
    },
  });
  return { reveal, calls, tokens, row };
}

test('a sold-out sale with a token whose deck is missing waits: no offset, no artwork, not assigned', async () => {
  const { reveal, calls } = setup([1, 3]);
  assert.equal(await reveal.reveal('c1'), false);
  assert.deepEqual(calls, { offsets: 0, assigned: 0, dealt: [] });
});

test('once decks 1..tokens_minted exist the offset is recorded once, every token dealt, the deck assigned', async () => {
  const { reveal, calls, tokens } = setup([1, 3]);
  await reveal.reveal('c1');
  tokens.ids = [1, 2, 3];
  assert.equal(await reveal.reveal('c1'), true);
  assert.equal(calls.offsets, 1);
  assert.equal(calls.assigned, 1);
  assert.deepEqual(calls.dealt, [1, 2, 3]);
  // A later pass deals nothing again and records nothing new.
  await reveal.reveal('c1');
  assert.equal(calls.offsets, 1);
  assert.deepEqual(calls.dealt, [1, 2, 3]);
});

test('a token whose dealt artwork is missing after the assignment gets it on the next pass', async () => {
  const { reveal, calls, tokens } = setup([1, 2, 3]);
  await reveal.reveal('c1');
  tokens.dealt.delete(2);
  await reveal.reveal('c1');
  assert.deepEqual(calls.dealt, [1, 2, 3, 2]);
  assert.equal(calls.assigned, 1, 'assigned once');
});

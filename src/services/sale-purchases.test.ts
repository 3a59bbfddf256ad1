/**
 * The purchase follower's isolation (docs/minting.md "On-chain sale"), on a fake store and chain:
 * one purchase the database refuses, or one transaction whose receipt cannot be read, never stops
 * the purchases after it; a paid token is always recorded and started, with drawn variables when
 * its choices could not be stored.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeAbiParameters, encodeEventTopics, toHex, zeroAddress, type Hex, type PublicClient } from 'viem';
import { collectionAbi } from '../../contracts/abi/index.ts';
import type { NewPurchase, PurchaseRow, UnclaimedMint } from '../db/sale-purchases.ts';
import { createPurchaseFollower, type PurchaseStore, UNSTORED } from './sale-purchases.ts';

const COLLECTION = '0x00000000000000000000000000000000000000c0';
const BUYER = '0x00000000000000000000000000000000000000b1';
const hashOf = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex;

/** A purchase transaction's receipt: the Transfer from zero of each token, then the Purchase event. */
function receiptOf(tokenId: number, data: string) {
  const transfer = {
    address: COLLECTION,
    topics: encodeEventTopics({
      abi: collectionAbi,
      eventName: 'Transfer',
      args: { from: zeroAddress, to: BUYER, tokenId: BigInt(tokenId) },
    }),
    data: '0x' as Hex,
    logIndex: 0,
  };
  const purchase = {
    address: COLLECTION,
    topics: encodeEventTopics({ abi: collectionAbi, eventName: 'Purchase', args: { buyer: BUYER, to: BUYER } }),
    data: encodeAbiParameters(
      [{ type: 'uint256' }, { type: 'uint256' }, { type: 'address' }, { type: 'uint256' }, { type: 'bytes' }],
      [BigInt(tokenId), 1n, zeroAddress, 10n ** 15n, toHex(data)],
    ),
    logIndex: 1,
  };
  return { logs: [transfer, purchase], blockNumber: BigInt(tokenId), blockHash: hashOf(1000 + tokenId) };
}

/**
 * The store as PostgreSQL behaves for this duty: a row whose choices contain `refuse-me` is refused
 * as jsonb refuses `\u0000` (so is a NUL or an unpaired surrogate itself), the unique key makes an
 * insert idempotent, and a token whose row exists leaves the window.
 */
function fakes(txs: { hash: Hex; tokenId: number; data: string }[], opts: { brokenReceipt?: Hex; refuseAll?: Hex } = {}) {
  const rows: PurchaseRow[] = [];
  const skips: string[][] = [];
  const warnings: string[] = [];
  const started: { tokenId: number; variables: Record<string, unknown> }[] = [];
  const refuses = (r: NewPurchase) => {
    const json = JSON.stringify(r.choices);
    return json.includes('refuse-me') || /\\u0000|\\ud[89a-f]/.test(json) || r.tx_hash === opts.refuseAll;
  };
  const store = {
    unclaimedMintTxs: async (_chainId: number, skip: readonly string[] = []): Promise<UnclaimedMint[]> => {
      skips.push([...skip]);
      return txs
        .filter((t) => !skip.includes(t.hash.toLowerCase()) && !rows.some((r) => r.token_id === t.tokenId))
        .map((t) => ({ tx_hash: t.hash, block_number: t.tokenId, collection_id: 'c1', collection_address: COLLECTION }));
    },
    getCollection: async () => ({
      data: {
        variables: [
          { name: 'color', is_selectable: true },
          { name: 'motto', is_user_customizable: true },
        ],
      },
    }),
    tryInsertPurchases: async (values: NewPurchase[]) => {
      if (values.some(refuses)) return { refused: 'unsupported Unicode escape sequence' };
      const inserted = values
        .filter((v) => !rows.some((r) => r.tx_hash === v.tx_hash && r.log_index === v.log_index && r.token_id === v.token_id))
        .map((v) => ({ ...v, id: `p${v.token_id}`, deck_id: null, job_id: null, lease_until: null }) as PurchaseRow);
      rows.push(...inserted);
      return { inserted };
    },
    markScanned: async () => {},
    claimPurchases: async () => rows.filter((r) => r.deck_id === null),
    markStarted: async (id: string, deckId: string) => {
      rows.find((r) => r.id === id)!.deck_id = deckId;
    },
    markChoicesInvalid: async () => {},
    backOffPurchase: async () => {},
    reorgedPurchases: async () => [],
    cancelPurchase: async () => {},
  } as unknown as PurchaseStore;
  const client = {
    getTransactionReceipt: async ({ hash }: { hash: Hex }) => {
      if (hash === opts.brokenReceipt) throw new Error('the node did not answer');
      const t = txs.find((x) => x.hash === hash)!;
      return receiptOf(t.tokenId, t.data);
    },
    readContract: async () => {
      throw new Error('no saleConfig here');
    },
  } as unknown as PublicClient;
  const follower = createPurchaseFollower({
    store,
    chainId: 31337,
    client: () => client,
    minting: {
      startPurchasedArtwork: async (_c: string, p: { tokenId: number }, variables: Record<string, unknown>) => {
        started.push({ tokenId: p.tokenId, variables });
        return { deckId: `d${p.tokenId}`, jobId: `j${p.tokenId}`, outputId: '', tokenId: p.tokenId };
      },
    },
    log: { warn: (_o: object, msg: string) => warnings.push(msg), info: () => {} },
  });
  return { follower, rows, skips, warnings, started };
}

test('a purchase whose choices the database refuses is recorded without them and drawn; the purchases after it go on', async () => {
  const f = fakes([
    { hash: hashOf(1), tokenId: 1, data: JSON.stringify({ motto: 'refuse-me' }) },
    { hash: hashOf(2), tokenId: 2, data: String.raw`{"color":"red","motto":"\u0000"}` },
    { hash: hashOf(3), tokenId: 3, data: JSON.stringify({ color: 'red' }) },
  ]);
  assert.deepEqual(await f.follower.pass(), { cancelled: 0, added: 3, started: 3 });
  assert.deepEqual(
    f.rows.map((r) => [r.token_id, r.choices_status, r.choices]),
    [
      [1, 'invalid', { reason: UNSTORED }],
      [2, 'invalid', { reason: 'variables.motto: a value with a NUL character or an unpaired surrogate' }],
      [3, 'buyer', { color: 'red' }],
    ],
  );
  assert.deepEqual(f.started, [
    { tokenId: 1, variables: {} },
    { tokenId: 2, variables: {} },
    { tokenId: 3, variables: { color: 'red' } },
  ]);
  assert.equal(f.warnings.filter((w) => w.includes('could not be stored')).length, 1);
});

test('a transaction the follower cannot record is held back, and the transactions after it are recorded', async () => {
  const f = fakes(
    [
      { hash: hashOf(1), tokenId: 1, data: '' },
      { hash: hashOf(2), tokenId: 2, data: '' },
      { hash: hashOf(3), tokenId: 3, data: JSON.stringify({ color: 'red' }) },
    ],
    { brokenReceipt: hashOf(1), refuseAll: hashOf(2) },
  );
  assert.deepEqual(await f.follower.pass(), { cancelled: 0, added: 1, started: 1 });
  assert.deepEqual(
    f.rows.map((r) => r.token_id),
    [3],
  );
  assert.equal(f.warnings.filter((w) => w.includes('read again later')).length, 2);
  // The next pass leaves both out of the window (they do not take the places of later purchases) and warns no more.
  assert.deepEqual(await f.follower.pass(), { cancelled: 0, added: 0, started: 0 });
  assert.deepEqual(f.skips.at(-1), [hashOf(1), hashOf(2)]);
  assert.equal(f.warnings.filter((w) => w.includes('read again later')).length, 2);
});

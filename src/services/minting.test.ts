import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getAddress } from 'viem';
import type { CollectionRow } from '../db/collections.ts';
import type { DeckRow } from '../db/minting.ts';
import { AppError, invalid, notFound } from '../domain/errors.ts';
import type { GenerationPort } from './generation-port.ts';
import { createMintGate } from './mint-gate.ts';
import { createMintingService, type MintChain, type MintStore } from './minting.ts';
import { ALICE, BOB, OPERATOR, collectionRow, deckRow } from '../../test/helpers/service-records.ts';

const CONTRACT = getAddress('0x00000000000000000000000000000000000000c1');
const RECIPIENT = getAddress('0x00000000000000000000000000000000000000e1');
const WALLET_A = getAddress('0x00000000000000000000000000000000000000a1');
const TOKEN = getAddress('0x00000000000000000000000000000000000000c0');
const PAYOUT = getAddress('0x00000000000000000000000000000000000000f0');
const HASH = `0x${'ab'.repeat(32)}`;

/** Decks and collections in memory; a chain that mints sequential ids; a pipeline that records its calls. */
function world(c: CollectionRow, opts: { timeoutOnce?: string } = {}) {
  const decks: DeckRow[] = [];
  const covers: Array<{ deckId: string; outputId: string; meta: Record<string, unknown> }> = [];
  const mints: Array<{ key: string; quantity: number }> = [];
  const generations: Array<{ deckId?: string; jobType: string; mintState?: unknown }> = [];
  let collection = c;
  let nextTokenId = c.tokens_minted + 1;
  const byKey = new Map<string, { txHash: string; tokenIds: number[]; recipient: typeof RECIPIENT }>();
  const store: MintStore = {
    async getCollection(id) {
      if (id !== collection.id) throw notFound(`collection ${id}`);
      return collection;
    },
    findTokenDeck: async (cid, tokenId) => decks.find((d) => d.collection_id === cid && d.token_id === tokenId),
    async recordMinted(_cid, highest) {
      collection = { ...collection, tokens_minted: Math.max(collection.tokens_minted, highest) };
    },
    async createMintedDeck(m) {
      const d = deckRow({ collection_id: m.collectionId, token_id: m.tokenId, mint_status: 'minted', mint_tx_hash: m.txHash });
      decks.push(d);
      return d;
    },
    async setMintState(deckId, m) {
      const d = decks.find((x) => x.id === deckId)!;
      if (d.token_id !== null && d.token_id !== m.tokenId) return false;
      Object.assign(d, { token_id: m.tokenId, mint_status: 'minted' });
      return true;
    },
    getDeck: async (id) => decks.find((x) => x.id === id) ?? { id, token_id: null },
    async linkCover(deckId, outputId, meta) {
      covers.push({ deckId, outputId, meta: meta([{ trait_type: 'Color', value: 'Red' }]) });
      const d = decks.find((x) => x.id === deckId);
      if (d) d.cover_output_id = outputId;
    },
    getOutput: async (id) => ({ id, deck_id: null, collection_id: collection.id, job_id: `job-of-${id}`, user_id: null }),
    createDeck: async (input) => ({ id: `deck-for-${input.name}` }),
    avatarOfUser: async () => null,
    avatarOfWallet: async () => 'https://pfp/wallet.png',
    listMints: async () => decks,
    deckWithArtwork: async () => ({ deck: decks[0]! }),
  };
  const chain: MintChain = {
    async mint(req) {
      const done = byKey.get(req.idempotencyKey);
      if (done) return done; // the sender replays a mined transaction for the same key
      mints.push({ key: req.idempotencyKey, quantity: req.quantity });
      const tokenIds = Array.from({ length: req.quantity }, () => nextTokenId++);
      const res = { txHash: `0x${String(mints.length).padStart(64, '0')}`, tokenIds, recipient: getAddress(req.recipient) };
      byKey.set(req.idempotencyKey, res);
      if (opts.timeoutOnce === req.idempotencyKey) {
        opts.timeoutOnce = undefined; // sent and mined, but the caller hears a timeout
        throw new AppError('unavailable', 'mint transaction is not mined yet; retry with the same Idempotency-Key');
      }
      return res;
    },
  };
  const generation: GenerationPort = {
    checkVariables(_c, variables) {
      if (variables.color === 'green') throw invalid('body.variables.color: not a preset value');
    },
    async start(input) {
      generations.push({ deckId: input.deckId, jobType: input.jobType, mintState: input.mintState });
      let deckId = input.deckId;
      if (!deckId) {
        const d = deckRow({ collection_id: input.collectionId, token_id: input.mintState?.token_id ?? null, mint_status: 'minted' });
        decks.push(d);
        deckId = d.id;
      }
      return { jobId: `job-${generations.length}`, outputId: `out-${generations.length}`, deckId };
    },
  };
  const changed: string[] = [];
  // Alice proved WALLET_A; counts, claimed payments and credit balances in memory.
  const counts = new Map<string, number>();
  const claimed = new Map<string, string>();
  const balances = new Map<string, number>([
    ['alice', 1],
    ['bob', 5],
  ]);
  const gate = createMintGate({
    store: {
      isWalletOf: async (userId, address) => userId === 'alice' && getAddress(address) === WALLET_A,
      async takeWalletMints(_cid, wallet, n, limit) {
        const used = counts.get(wallet) ?? 0;
        if (used + n > limit) return false;
        counts.set(wallet, used + n);
        return true;
      },
      returnWalletMints: async (_cid, wallet, n) => void counts.set(wallet, (counts.get(wallet) ?? 0) - n),
      walletMintCount: async (_cid, wallet) => counts.get(wallet) ?? 0,
      async claimMintPayment(p) {
        if (claimed.has(p.txHash)) throw new AppError('conflict', 'body.tx_hash: already used', { code: 'PAYMENT_ALREADY_USED' });
        claimed.set(p.txHash, `pay-${claimed.size + 1}`);
        return claimed.get(p.txHash)!;
      },
      releaseMintPayment: async (id) => void [...claimed].filter(([, v]) => v === id).forEach(([k]) => claimed.delete(k)),
      earlierMintPayment: async (q) => (claimed.has(q.txHash) && byKey.has(q.senderKey) ? { kind: 'replay' as const } : null),
    },
    payments: {
      settings: () => ({ token: TOKEN, recipient: TOKEN, confirmations: 1 }),
      async verify(req) {
        paid.push(req);
        return {
          chainId: req.chainId,
          txHash: req.txHash,
          token: req.token,
          payer: req.payer,
          recipient: req.recipient,
          amount: req.minAmount,
        };
      },
    },
  });
  const paid: Array<{ payer: string; recipient: string; minAmount: bigint }> = [];
  const credits = {
    perGeneration: 1,
    async debit(userId: string, n: number) {
      if ((balances.get(userId) ?? 0) < n) throw new AppError('payment_required', 'Insufficient credits', { code: 'INSUFFICIENT_CREDITS' });
      balances.set(userId, balances.get(userId)! - n);
    },
    refund: async (userId: string, n: number) => void balances.set(userId, (balances.get(userId) ?? 0) + n),
  };
  const svc = createMintingService({
    store,
    chain,
    generation,
    metadataBaseUrl: 'http://meta',
    gate,
    credits,
    onTokenChanged: (cid, t) => changed.push(`${cid}:${t}`),
  });
  return { svc, decks, covers, mints, generations, changed, counts, claimed, balances, paid, collection: () => collection };
}

const deployedRow = (fields: Partial<CollectionRow> = {}) =>
  collectionRow({ contract_address: CONTRACT, chain_id: 31337, mint_status: 'deployed', ...fields });

test('mint-and-generate: the token id from the chain, its artwork started with the mint state, the output as cover', async () => {
  const w = world(deployedRow({ title: 'Neon' }));
  const res = await w.svc.mintAndGenerate(OPERATOR, w.collection().id, { recipient: RECIPIENT, variables: {} }, 'key-1');
  assert.equal(res.mint.tokenId, 1);
  assert.equal(res.mint.metadataUri, `http://meta/collections/${w.collection().id}/tokens/1`);
  assert.equal(w.generations[0]!.jobType, 'mint_generation');
  assert.deepEqual(w.generations[0]!.mintState, {
    token_id: 1,
    tx_hash: res.mint.txHash,
    recipient: RECIPIENT,
    metadata_uri: res.mint.metadataUri,
  });
  assert.equal(w.covers[0]!.outputId, res.generation.outputId);
  assert.equal(w.covers[0]!.meta.name, 'Neon #1');
  assert.equal(w.collection().tokens_minted, 1);
});

test('a retry with the same sender key replays the mint and finds the deck: no second token, no second artwork', async () => {
  const w = world(deployedRow());
  const first = await w.svc.mintAndGenerate(OPERATOR, w.collection().id, { recipient: RECIPIENT, variables: {} }, 'same');
  const again = await w.svc.mintAndGenerate(OPERATOR, w.collection().id, { recipient: RECIPIENT, variables: {} }, 'same');
  assert.equal(again.mint.tokenId, first.mint.tokenId);
  assert.equal(again.generation.outputId, first.generation.outputId);
  assert.equal(w.mints.length, 1);
  assert.equal(w.generations.length, 1);
});

test('every refusal comes before the chain: policy, not deployed, wrong chain, bad variables, sold out', async () => {
  const refuse = async (c: CollectionRow, caller: typeof OPERATOR | typeof ALICE, kind: string, body: Record<string, unknown> = {}) => {
    const w = world(c);
    await assert.rejects(
      w.svc.mintAndGenerate(caller, c.id, { recipient: RECIPIENT, variables: {}, ...body }, 'k'),
      (e) => e instanceof AppError && e.kind === kind,
    );
    assert.equal(w.mints.length, 0);
  };
  await refuse(deployedRow({ user_id: null }), ALICE, 'forbidden'); // the platform's collection
  await refuse(deployedRow({ user_id: 'bob' }), ALICE, 'forbidden');
  await refuse(collectionRow(), OPERATOR, 'conflict');
  await refuse(deployedRow(), OPERATOR, 'invalid', { chainId: 1 });
  await refuse(deployedRow(), OPERATOR, 'invalid', { variables: { color: 'green' } });
  await refuse(deployedRow({ editions: 2, tokens_minted: 2 }), OPERATOR, 'conflict');
  // The owner mints their own collection.
  const mine = world(deployedRow({ user_id: 'alice' }));
  assert.equal((await mine.svc.mintAndGenerate(ALICE, mine.collection().id, { recipient: RECIPIENT, variables: {} }, 'k')).mint.tokenId, 1);
});

test('design-stage mint: quantity within the max supply, one deck per token with its artwork started', async () => {
  const w = world(deployedRow({ max_supply: 3 }));
  const id = w.collection().id;
  await assert.rejects(w.svc.mint(OPERATOR, id, { recipient_address: RECIPIENT, quantity: 4 }, 'a'), /max supply exceeded/);
  const res = await w.svc.mint(OPERATOR, id, { recipient_address: RECIPIENT, quantity: 2 }, 'b');
  assert.deepEqual(res.tokenIds, [1, 2]);
  assert.equal(res.deckIds.length, 2);
  // docs/api/nft.md §4.2 step 3: every minted token gets its artwork, a generation per token.
  assert.deepEqual(
    w.generations.map((g) => [g.jobType, (g.mintState as { token_id: number }).token_id]),
    [
      ['mint_generation', 1],
      ['mint_generation', 2],
    ],
  );
  assert.equal(w.covers.length, 2);
});

test('per-token mint: only the next id; a regenerate needs the owner and an existing token', async () => {
  const w = world(deployedRow({ user_id: 'alice' }));
  const id = w.collection().id;
  await assert.rejects(
    w.svc.mintToken(ALICE, id, 5, { recipient: RECIPIENT, quantity: 1 }, 'k'),
    (e) => e instanceof AppError && e.extra?.code === 'NOT_NEXT_TOKEN' && e.extra?.next_token_id === 1,
  );
  await w.svc.mintToken(ALICE, id, 1, { recipient: RECIPIENT, quantity: 1 }, 'k');
  await assert.rejects(
    w.svc.regenerate(BOB, id, { token_id: 1, generation_overrides: {} }),
    (e) => e instanceof AppError && e.kind === 'forbidden',
  );
  await assert.rejects(
    w.svc.regenerate(ALICE, id, { token_id: 9, generation_overrides: {} }),
    (e) => e instanceof AppError && e.kind === 'not_found',
  );
  const again = await w.svc.regenerate(ALICE, id, { token_id: 1, generation_overrides: {} });
  assert.equal(w.generations.at(-1)!.jobType, 'token_generation');
  assert.equal(w.covers.at(-1)!.outputId, again.output_id);
  assert.deepEqual(w.changed, [`${id}:1`], 'the cached metadata of the token is dropped');
});

test('without a chain the mint answers 503', async () => {
  const c = deployedRow();
  const noChain = createMintingService({
    store: { getCollection: async () => c } as unknown as MintStore,
    metadataBaseUrl: 'http://meta',
    gate: createMintGate({ store: {} as never }),
  });
  await assert.rejects(
    noChain.mint(OPERATOR, c.id, { recipient: RECIPIENT, quantity: 1 }, 'k'),
    (e) => e instanceof AppError && e.kind === 'unavailable',
  );
});

test('public mints: owner-only refuses others; a public mint needs a linked wallet and a verified payment, accepted once', async () => {
  const ownerOnly = world(deployedRow({ user_id: 'carol' }));
  await assert.rejects(
    ownerOnly.svc.mint(ALICE, ownerOnly.collection().id, { recipient: WALLET_A, quantity: 1 }, 'k0'),
    (e) => e instanceof AppError && e.kind === 'forbidden',
  );
  const w = world(deployedRow({ user_id: 'carol', mint_access: 'public', mint_price: '250', payout_address: PAYOUT, max_per_wallet: 3 }));
  const id = w.collection().id;
  // Bob names Alice's wallet: refused before any payment is looked at.
  await assert.rejects(
    w.svc.mint(BOB, id, { recipient: WALLET_A, quantity: 1, tx_hash: HASH }, 'k1'),
    (e) => e instanceof AppError && e.kind === 'forbidden' && e.extra?.code === 'WALLET_NOT_LINKED',
  );
  await assert.rejects(
    w.svc.mint(ALICE, id, { recipient: WALLET_A, quantity: 2 }, 'k2'),
    (e) => e instanceof AppError && e.kind === 'payment_required' && e.extra?.amount_due === '500',
  );
  assert.equal(w.mints.length, 0);
  const res = await w.svc.mint(ALICE, id, { recipient: WALLET_A, quantity: 2, tx_hash: HASH }, 'k3');
  assert.deepEqual(res.tokenIds, [1, 2]);
  assert.deepEqual(w.paid[0], { ...w.paid[0], payer: WALLET_A, recipient: PAYOUT, minAmount: 500n });
  await assert.rejects(
    w.svc.mint(ALICE, id, { recipient: WALLET_A, quantity: 1, tx_hash: HASH }, 'k4'),
    (e) => e instanceof AppError && e.extra?.code === 'PAYMENT_ALREADY_USED',
  );
  // max_per_wallet 3: two minted, two more refused, and that payment is given back.
  await assert.rejects(
    w.svc.mint(ALICE, id, { recipient: WALLET_A, quantity: 2, tx_hash: `0x${'cd'.repeat(32)}` }, 'k5'),
    (e) => e instanceof AppError && e.extra?.code === 'MAX_PER_WALLET',
  );
  assert.equal(w.claimed.has(`0x${'cd'.repeat(32)}`), false);
  assert.equal(w.counts.get(WALLET_A), 2);
  // The owner (and the operator) mint free, to any recipient.
  const verifiedBefore = w.paid.length;
  const byOwner = await w.svc.mint({ kind: 'user', userId: 'carol' }, id, { recipient: RECIPIENT, quantity: 1 }, 'k6');
  assert.deepEqual(byOwner.tokenIds, [3]);
  assert.equal(w.paid.length, verifiedBefore, 'no payment is asked of the owner');
});

test('credits: a user pays for mint generations and token regenerations, refunded when nothing started; the operator does not', async () => {
  const w = world(deployedRow({ user_id: 'alice', tokens_minted: 0 }));
  const id = w.collection().id;
  await w.svc.mintAndGenerate(ALICE, id, { recipient: RECIPIENT, variables: {} }, 'g1');
  assert.equal(w.balances.get('alice'), 0);
  await assert.rejects(
    w.svc.regenerate(ALICE, id, { token_id: 1, generation_overrides: {} }),
    (e) => e instanceof AppError && e.extra?.code === 'INSUFFICIENT_CREDITS',
  );
  await assert.rejects(w.svc.mintAndGenerate(ALICE, id, { recipient: RECIPIENT, variables: { color: 'green' } }, 'g2'), /not a preset/);
  assert.equal(w.balances.get('alice'), 0, 'a refused request costs nothing');
  await w.svc.regenerate(OPERATOR, id, { token_id: 1, generation_overrides: {} });
  await w.svc.mintAndGenerate(OPERATOR, id, { recipient: RECIPIENT, variables: {} }, 'g3');
  assert.equal(w.balances.get('alice'), 0);
});

test('a paid public mint that timed out is resumed by its retry (same sender key), not refused as a reused payment', async () => {
  const w = world(deployedRow({ user_id: 'carol', mint_access: 'public', mint_price: '100', payout_address: PAYOUT, max_per_wallet: 1 }), {
    timeoutOnce: 'retry-key',
  });
  const id = w.collection().id;
  await assert.rejects(
    w.svc.mint(ALICE, id, { recipient: WALLET_A, quantity: 1, tx_hash: HASH }, 'retry-key'),
    (e) => e instanceof AppError && e.kind === 'unavailable',
  );
  assert.equal(w.claimed.size, 1, 'the payment stays claimed: the transaction may mine');
  assert.equal(w.counts.get(WALLET_A), 1);
  const retried = await w.svc.mint(ALICE, id, { recipient: WALLET_A, quantity: 1, tx_hash: HASH }, 'retry-key');
  assert.deepEqual(retried.tokenIds, [1]);
  assert.equal(w.mints.length, 1, 'one transaction');
  // Another request (another key) with the same hash is still a reused payment.
  await assert.rejects(
    w.svc.mint(ALICE, id, { recipient: WALLET_A, quantity: 1, tx_hash: HASH }, 'other-key'),
    (e) => e instanceof AppError && e.extra?.code === 'PAYMENT_ALREADY_USED',
  );
});

test('the per-token mint refuses another user (403) before telling them which token id is next', async () => {
  const w = world(deployedRow({ user_id: 'carol', tokens_minted: 5 }));
  await assert.rejects(
    w.svc.mintToken(BOB, w.collection().id, 99, { recipient: RECIPIENT, quantity: 1 }, 'k'),
    (e) => e instanceof AppError && e.kind === 'forbidden',
  );
  await assert.rejects(
    w.svc.mintToken({ kind: 'user', userId: 'carol' }, w.collection().id, 99, { recipient: RECIPIENT, quantity: 1 }, 'k'),
    (e) => e instanceof AppError && e.extra?.code === 'NOT_NEXT_TOKEN',
  );
});

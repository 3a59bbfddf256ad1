import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getAddress } from 'viem';
import type { CollectionRow } from '../db/collections.ts';
import type { DeckRow } from '../db/minting.ts';
import { AppError, invalid, notFound } from '../domain/errors.ts';
import type { GenerationPort } from './generation-port.ts';
import { createMintingService, type MintChain, type MintStore } from './minting.ts';
import { ALICE, BOB, OPERATOR, collectionRow, deckRow } from './test-fakes.ts';

const CONTRACT = getAddress('0x00000000000000000000000000000000000000c1');
const RECIPIENT = getAddress('0x00000000000000000000000000000000000000e1');

/** Decks and collections in memory; a chain that mints sequential ids; a pipeline that records its calls. */
function world(c: CollectionRow) {
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
      Object.assign(d, { token_id: m.tokenId, mint_status: 'minted' });
    },
    async linkCover(deckId, outputId, meta) {
      covers.push({ deckId, outputId, meta: meta([{ trait_type: 'Color', value: 'Red' }]) });
      const d = decks.find((x) => x.id === deckId);
      if (d) d.cover_output_id = outputId;
    },
    getOutput: async (id) => ({ id, deck_id: null, collection_id: collection.id, job_id: `job-of-${id}` }),
    createDeck: async (input) => ({ id: `deck-for-${input.name}` }),
    avatarOfUser: async () => null,
    avatarOfWallet: async () => 'https://pfp/wallet.png',
    listMints: async () => decks,
    listTokens: async () => ({ rows: [], total: 0 }),
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
  const svc = createMintingService({
    store,
    chain,
    generation,
    metadataBaseUrl: 'http://meta',
    onTokenChanged: (cid, t) => changed.push(`${cid}:${t}`),
  });
  return { svc, decks, covers, mints, generations, changed, collection: () => collection };
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
  // nft-service.md §4.2 step 3: every minted token gets its artwork, a generation per token.
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
  const noChain = createMintingService({ store: { getCollection: async () => c } as unknown as MintStore, metadataBaseUrl: 'http://meta' });
  await assert.rejects(
    noChain.mint(OPERATOR, c.id, { recipient: RECIPIENT, quantity: 1 }, 'k'),
    (e) => e instanceof AppError && e.kind === 'unavailable',
  );
});

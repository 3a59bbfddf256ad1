/**
 * Two signed-in users, A and B, and the platform (docs/permissions.md): B changes nothing of
 * A's or of the platform's — collections, decks, outputs, the token documents they feed — cannot
 * send `mint_state`, and cannot mint on an owner-only collection (the default). Records the
 * service key makes belong to the user it names (`user_id` header or `owner_user_id`) or to the
 * platform, which no user may change.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { privateKeyToAccount } from 'viem/accounts';
import { ANVIL_PRIVATE_KEYS } from '../../src/chain/anvil.ts';
import { collections, decks, flatFiles, jobs, outputs, samples } from '../../src/db/schema/index.ts';
import { userToken } from '../helpers/content.ts';
import { SERVICE_KEY, sampleData } from '../helpers/platform.ts';
import { injector } from './fixtures.ts';
import { startWalkPlatform, type WalkPlatform } from '../helpers/inject-platform.ts';

const WALLET = privateKeyToAccount(ANVIL_PRIVATE_KEYS[4]).address;
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

let p: WalkPlatform;
let api: ReturnType<typeof injector>;
let A: Record<string, string>;
let B: Record<string, string>;
let aId: string;
let bId: string;
const service = (userId?: string) => ({ 'x-api-key': SERVICE_KEY, ...(userId ? { user_id: userId } : {}) });

const ok = async (method: string, url: string, headers: Record<string, string>, body?: unknown) => {
  const r = await api(method, url, headers, body);
  assert.ok(r.status < 300, `${method} ${url}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data ?? r.body;
};
const newCollection = async (headers: Record<string, string>, extra: Record<string, unknown> = {}) =>
  (await ok('POST', '/nft/collections', headers, { title: 'Two users', editions: 50, data: sampleData(), ...extra })).collection
    .id as string;
const deploy = (id: string, headers: Record<string, string>) =>
  ok('POST', `/nft/collections/${id}/deploy`, headers, { max_supply: 50, royalty_bps: 0, royalty_receiver: WALLET });
const ownerOf = async (id: string) => (await p.database.db.select().from(collections).where(eq(collections.id, id)))[0]!.user_id;

before(async () => {
  p = await startWalkPlatform();
  api = injector(p);
  A = { authorization: `Bearer ${await userToken('two-users-a')}` };
  B = { authorization: `Bearer ${await userToken('two-users-b')}` };
  aId = (await ok('GET', '/api/me', A)).id;
  bId = (await ok('GET', '/api/me', B)).id;
});
after(() => p?.close());

describe('who owns what the service key makes', () => {
  test('collections: the user_id header, else owner_user_id, else the platform', async () => {
    assert.equal(await ownerOf(await newCollection(service(aId))), aId);
    assert.equal(await ownerOf(await newCollection(service(), { owner_user_id: aId })), aId);
    assert.equal(await ownerOf(await newCollection(service())), null);
    // through the admin proxy too
    const admin = injector(p, 'admin');
    const viaAdmin = await admin('POST', '/api/nft/collections/create', service(), {
      title: 'Admin for A',
      data: sampleData(),
      owner_user_id: aId,
    });
    assert.equal(viaAdmin.status, 200, JSON.stringify(viaAdmin.body));
    assert.equal(await ownerOf(viaAdmin.body.collection.id), aId);
    const platform = await admin('POST', '/api/nft/collections/create', service(), { title: 'Admin platform', data: sampleData() });
    assert.equal(await ownerOf(platform.body.collection.id), null);
  });

  test('a user cannot name another owner with owner_user_id; naming themselves is fine', async () => {
    const r = await api('POST', '/nft/collections', B, { title: 'For A?', data: sampleData(), owner_user_id: aId });
    assert.equal(r.status, 403, JSON.stringify(r.body));
    assert.match(r.body.error, /owner_user_id/);
    assert.equal(await ownerOf(await newCollection(B, { owner_user_id: bId })), bId);
  });

  test('decks, outputs, jobs, uploads and samples: the named user, else the platform', async () => {
    const c = await newCollection(service(aId));
    const deck = await ok('POST', '/decks', service(aId), { collection_id: c });
    const output = await ok('POST', '/outputs', service(aId), { collection_id: c, deck_id: deck.id });
    const gen = await ok('POST', `/collections/${c}/generations`, service(aId), { variables: {} });
    const upload = await ok('POST', '/upload-base64', service(aId), { base64Data: PNG, create_flat_file: true });
    const platformUpload = await ok('POST', '/upload-base64', service(), { base64Data: PNG, create_flat_file: true });
    const platformGen = await ok('POST', `/collections/${c}/generations`, service(), { variables: {} });
    const db = p.database.db;
    const one = async (table: any, id: unknown) => (await db.select().from(table).where(eq(table.id, id)))[0] as { user_id: string | null };
    assert.equal((await one(decks, deck.id)).user_id, aId);
    assert.equal((await one(outputs, output.id)).user_id, aId);
    assert.equal((await one(jobs, gen.jobId)).user_id, aId);
    assert.equal((await one(flatFiles, upload.flatFileId)).user_id, aId);
    assert.equal((await one(flatFiles, platformUpload.flatFileId)).user_id, null);
    assert.equal((await one(jobs, platformGen.jobId)).user_id, null);
    assert.equal((await one(decks, platformGen.deckId)).user_id, null);
    // samples: requested for A by the service key, then for nobody
    await deploy(c, service());
    const s = await api('POST', `/nft/collections/${c}/samples`, service(aId), { wallet_address: WALLET, count: 1 });
    assert.equal(s.status, 201, JSON.stringify(s.body));
    const rows = await db.select().from(samples).where(eq(samples.collection_id, c));
    assert.deepEqual(
      rows.map((r) => r.user_id),
      [aId],
    );
  });
});

describe('B against A and the platform', () => {
  let mine: string; // A's collection, deployed, token 1 minted
  let theirs: string; // the platform's, deployed, token 1 minted by the service key
  let aDeck: string;
  let aOutput: string;
  let mintedDeck: string;
  let platformDeck: string;

  before(async () => {
    mine = await newCollection(A);
    await deploy(mine, A);
    mintedDeck = (await ok('POST', `/nft/collections/${mine}/mint`, A, { recipient: WALLET })).deckId;
    theirs = await newCollection(service());
    await deploy(theirs, service());
    platformDeck = (await ok('POST', `/nft/collections/${theirs}/mint`, service(), { recipient: WALLET })).deckId;
    aDeck = (await ok('POST', '/decks', A, { collection_id: mine, name: "A's" })).id;
    aOutput = (await ok('POST', '/outputs', A, { collection_id: mine, deck_id: aDeck })).id;
  });

  const refused = async (method: string, url: string, body?: unknown, status = 403) => {
    const r = await api(method, url, B, body);
    assert.equal(r.status, status, `${method} ${url}: ${JSON.stringify(r.body)}`);
  };

  test("collections: no rename, reset, deploy, regenerate or mint, on A's or the platform's", async () => {
    const draft = await newCollection(service());
    for (const c of [mine, theirs]) {
      await refused('PUT', `/nft/collections/${c}`, { title: 'B was here' });
      await refused('POST', `/nft/collections/${c}/reset`);
      await refused('POST', `/nft/collections/${c}/generate`, { token_id: 1 });
      await refused('POST', `/nft/collections/${c}/mint`, { recipient: WALLET });
      await refused('POST', `/nft/collections/${c}/mint-and-generate`, { recipient: WALLET });
      await refused('POST', `/nft/collections/${c}/tokens/2/mint`, { recipient: WALLET });
    }
    await refused('POST', `/nft/collections/${draft}/deploy`, { max_supply: 5, royalty_bps: 0, royalty_receiver: WALLET });
    await refused('POST', `/nft/collections/${draft}/deploy-status`, { status: 'deploying' });
    for (const c of [mine, theirs]) {
      const row = (await p.database.db.select().from(collections).where(eq(collections.id, c)))[0]!;
      assert.equal(row.title, 'Two users');
      assert.equal(row.tokens_minted, 1, 'B minted nothing');
    }
    // A mints on her own (owner-only is the default)
    assert.equal((await api('POST', `/nft/collections/${mine}/mint`, A, { recipient: WALLET })).status, 201);
  });

  test("decks and outputs: B changes none of A's, and none of the platform's minted deck", async () => {
    for (const d of [aDeck, mintedDeck, platformDeck]) {
      await refused('PATCH', `/decks/${d}`, { name: 'B was here' });
      await refused('POST', `/decks/${d}/publish`);
      await refused('POST', `/decks/${d}/lock`);
      await refused('DELETE', `/decks/${d}`);
    }
    for (const [c, d] of [
      [mine, mintedDeck],
      [theirs, platformDeck],
      [mine, aDeck],
    ] as const) {
      await refused('POST', '/outputs', { collection_id: c, deck_id: d });
      await refused('POST', `/collections/${c}/generations`, { variables: {}, deck_id: d });
    }
    await refused('PATCH', `/outputs/${aOutput}/complete`, { url: 'https://evil.example/b.png', mime_type: 'image/png' });
    await refused('PATCH', `/outputs/${aOutput}/fail`, { error_message: 'B' });
    await refused('PATCH', `/outputs/${aOutput}/deck`, { deck_id: null });
    await refused('DELETE', `/outputs/${aOutput}`);
    // B's own output cannot be moved into A's deck
    const bDeck = (await ok('POST', '/decks', B, { collection_id: mine, name: "B's" })).id;
    const bOutput = (await ok('POST', '/outputs', B, { collection_id: mine, deck_id: bDeck })).id;
    await refused('PATCH', `/outputs/${bOutput}/deck`, { deck_id: mintedDeck });
  });

  test('token documents: what A and the platform minted still says what they made', async () => {
    for (const [c, d] of [
      [mine, mintedDeck],
      [theirs, platformDeck],
    ] as const) {
      const before_ = await api('GET', `/nft/metadata/${c}/1`, {});
      assert.equal(before_.status, 200);
      await api('PATCH', `/decks/${d}`, B, { name: 'B was here', description: 'B' });
      await api('POST', '/outputs', B, { collection_id: c, deck_id: d });
      const after_ = await api('GET', `/nft/metadata/${c}/1`, {});
      assert.deepEqual(after_.body, before_.body);
      assert.doesNotMatch(JSON.stringify(after_.body), /B was here|evil/);
    }
  });

  test('mint_state: only the mint path; B (or A) sending it is refused, and no token document appears', async () => {
    for (const [who, c] of [
      [B, mine],
      [B, theirs],
      [A, mine],
    ] as const) {
      const r = await api('POST', `/collections/${c}/generations`, who, { variables: {}, mint_state: { token_id: 777 } });
      assert.equal(r.status, 403, JSON.stringify(r.body));
      assert.match(r.body.error, /set_mint_state/);
      assert.equal((await api('GET', `/nft/metadata/${c}/777`, {})).status, 404);
    }
    const claimed = await p.database.db.select().from(decks).where(eq(decks.token_id, 777));
    assert.deepEqual(claimed, []);
  });
});

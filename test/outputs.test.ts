/** Output routes (docs/api/content.md §4.1): state machine, custody, decks, counters, thumbnails. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { decks, outputs } from '../src/db/schema/index.ts';
import { bearer, client, makeCollection, svc, userToken } from './helpers/content.ts';
import { startTestPlatform, type TestPlatform } from './helpers/platform.ts';

let p: TestPlatform;
let api: ReturnType<typeof client>;
let collectionId: string;
const MISSING = '00000000-0000-4000-8000-000000000000';

before(async () => {
  p = await startTestPlatform({}, {}, { listen: false }); // no sockets: both apps through inject()
  api = client(p);
  collectionId = await makeCollection(p);
});
after(() => p.close());

const create = (body: Record<string, unknown>, user = 'alice') => api('/outputs', svc(user), { body });
const deckOf = async (id: string) => (await p.database.db.select().from(decks).where(eq(decks.id, id)))[0]!;
describe('POST /outputs', () => {
  test('201 with the fields of docs/api/content.md §4.1; a deck is auto-created, then reused', async () => {
    const a = await create(
      { collection_id: collectionId, job_id: 'job-1', source: 'direct_api', input_metadata: { prompt: 'x' } },
      'creator-1',
    );
    assert.equal(a.status, 201, JSON.stringify(a.body));
    assert.equal(a.body.error, null);
    const o = a.body.data;
    for (const k of ['id', 'collection_id', 'deck_id', 'job_id', 'status', 'source', 'is_custodial', 'custodied_for', 'created_at']) {
      assert.ok(k in o, k);
    }
    assert.equal(o.collection_id, collectionId);
    assert.equal(o.status, 'pending');
    assert.equal(o.source, 'direct_api');
    assert.equal(o.job_id, 'job-1');
    assert.equal(o.is_custodial, false);
    assert.equal(o.custodied_for, null);
    assert.ok(o.deck_id);
    assert.equal((await deckOf(o.deck_id)).output_count, 1);
    const b = await create({ collection_id: collectionId }, 'creator-1');
    assert.equal(b.body.data.deck_id, o.deck_id);
    assert.equal(b.body.data.source, 'unknown');
    assert.equal((await deckOf(o.deck_id)).output_count, 2);
    // Another user gets a deck of their own.
    const c = await create({ collection_id: collectionId }, 'creator-2');
    assert.notEqual(c.body.data.deck_id, o.deck_id);
  });

  test('auto_create_deck false: no deck', async () => {
    const res = await create({ collection_id: collectionId, auto_create_deck: false }, 'creator-3');
    assert.equal(res.status, 201);
    assert.equal(res.body.data.deck_id, null);
  });

  test('explicit deck_id joins that deck', async () => {
    const d = await api('/decks', svc('alice'), { body: { collection_id: collectionId, name: 'Chosen' } });
    const res = await create({ collection_id: collectionId, deck_id: d.body.data.id });
    assert.equal(res.body.data.deck_id, d.body.data.id);
    assert.equal((await deckOf(d.body.data.id)).output_count, 1);
  });

  test('custodial fields create the social link once and set is_custodial, custodied_for', async () => {
    const body = { collection_id: collectionId, social_org: 'social_b', social_identifier: '4242' };
    const a = await create(body, 'bot');
    const b = await create(body, 'bot');
    assert.equal(a.status, 201);
    assert.equal(a.body.data.is_custodial, true);
    assert.match(a.body.data.custodied_for, /^[0-9a-f-]{36}$/);
    assert.equal(b.body.data.custodied_for, a.body.data.custodied_for);
    // The custodial holder's deck, separate from the caller's own deck.
    assert.equal(b.body.data.deck_id, a.body.data.deck_id);
    const own = await create({ collection_id: collectionId }, 'bot');
    assert.notEqual(own.body.data.deck_id, a.body.data.deck_id);
    const deck = await deckOf(a.body.data.deck_id);
    assert.equal(deck.is_custodial, true);
    assert.equal(deck.custodied_for, a.body.data.custodied_for);
  });

  test('401 without user_id, also before validation', async () => {
    for (const body of [{ collection_id: collectionId }, {}]) {
      const res = await api('/outputs', svc(), { body });
      assert.equal(res.status, 401);
      assert.equal(res.body.data, null);
      assert.match(res.body.error, /user_id/);
    }
  });

  const bad: Array<[string, Record<string, unknown>, RegExp]> = [
    ['collection_id missing', {}, /body\.collection_id/],
    ['collection_id not a uuid', { collection_id: 'x' }, /body\.collection_id/],
    ['unknown source', { collection_id: MISSING, source: 'fax' }, /body\.source/],
    ['input_metadata not an object', { collection_id: MISSING, input_metadata: 'x' }, /body\.input_metadata/],
    ['social_org alone', { collection_id: MISSING, social_org: 'social_a' }, /social/],
    ['unknown social_org', { collection_id: MISSING, social_org: 'x', social_identifier: '1' }, /body\.social_org/],
    ['auto_create_deck not boolean', { collection_id: MISSING, auto_create_deck: 'yes' }, /body\.auto_create_deck/],
    ['deck_id not a uuid', { collection_id: MISSING, deck_id: 'd' }, /body\.deck_id/],
  ];
  for (const [name, body, message] of bad) {
    test(`400 on ${name}`, async () => {
      const res = await create(body);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.match(res.body.error, message);
    });
  }

  test('404 on unknown collection or deck; 400 on a deck of another collection', async () => {
    assert.equal((await create({ collection_id: MISSING })).status, 404);
    const res = await create({ collection_id: collectionId, deck_id: MISSING });
    assert.equal(res.status, 404);
    const other = await makeCollection(p);
    const d = await api('/decks', svc('alice'), { body: { collection_id: other } });
    const wrong = await create({ collection_id: collectionId, deck_id: d.body.data.id });
    assert.equal(wrong.status, 400);
    assert.match(wrong.body.error, /body\.deck_id/);
  });
});

describe('state machine: complete, fail, hide', () => {
  test('pending → completed, then neither completes nor fails again (409)', async () => {
    const o = (await create({ collection_id: collectionId })).body.data;
    const res = await api(`/outputs/${o.id}/complete`, svc('alice'), {
      method: 'PATCH',
      body: { url: 'https://cdn.example/a.png', mime_type: 'image/png', output_metadata: { seed: 1 } },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(Object.keys(res.body.data).sort(), ['completed_at', 'id', 'mime_type', 'status', 'thumbnail_url', 'url']);
    assert.equal(res.body.data.status, 'completed');
    assert.equal(res.body.data.url, 'https://cdn.example/a.png');
    assert.ok(Date.parse(res.body.data.completed_at));
    assert.equal(res.body.data.thumbnail_url, null, 'not our storage: no thumbnail');
    const again = await api(`/outputs/${o.id}/complete`, svc('alice'), { method: 'PATCH', body: { url: 'https://x.example/b.png' } });
    assert.equal(again.status, 409);
    assert.match(again.body.error, /completed/);
    assert.equal((await api(`/outputs/${o.id}/fail`, svc('alice'), { method: 'PATCH', body: {} })).status, 409);
  });

  test('pending → failed with error_message; a failed output does not complete', async () => {
    const o = (await create({ collection_id: collectionId })).body.data;
    const res = await api(`/outputs/${o.id}/fail`, svc('alice'), { method: 'PATCH', body: { error_message: 'GPU on fire' } });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, { id: o.id, status: 'failed', error_message: 'GPU on fire' });
    const c = await api(`/outputs/${o.id}/complete`, svc('alice'), { method: 'PATCH', body: { url: 'https://x.example/b.png' } });
    assert.equal(c.status, 409);
  });

  test('fail without a body is fine', async () => {
    const o = (await create({ collection_id: collectionId })).body.data;
    const res = await api(`/outputs/${o.id}/fail`, svc('alice'), { method: 'PATCH' });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.status, 'failed');
  });

  test('complete validation: 400 without url or with junk, 404 unknown output, flat_file_id must exist', async () => {
    const o = (await create({ collection_id: collectionId })).body.data;
    const cases: Array<[unknown, RegExp]> = [
      [{}, /body\.url/],
      [{ url: '' }, /body\.url/],
      [{ url: 'javascript:alert(1)' }, /body\.url/],
      [{ url: 'https://x.example/a.png', mime_type: 'png' }, /body\.mime_type/],
      [{ url: 'https://x.example/a.png', flat_file_id: 'one' }, /body\.flat_file_id/],
      [{ url: 'https://x.example/a.png', flat_file_id: 999999 }, /body\.flat_file_id/],
      [{ url: 'https://x.example/a.png', output_metadata: [1] }, /body\.output_metadata/],
    ];
    for (const [body, message] of cases) {
      const res = await api(`/outputs/${o.id}/complete`, svc('alice'), { method: 'PATCH', body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.match(res.body.error, message);
    }
    assert.equal((await api(`/outputs/${MISSING}/complete`, svc('alice'), { method: 'PATCH', body: { url: 'a/b.png' } })).status, 404);
    assert.equal((await api(`/outputs/${MISSING}/fail`, svc('alice'), { method: 'PATCH', body: {} })).status, 404);
    assert.equal((await api(`/outputs/nope/complete`, svc('alice'), { method: 'PATCH', body: { url: 'a/b.png' } })).status, 400);
    assert.equal((await api(`/outputs/${o.id}/complete`, svc(), { method: 'PATCH', body: { url: 'a/b.png' } })).status, 401);
  });

  test('DELETE hides (from any state), decrements the deck once, and is idempotent', async () => {
    const o = (await create({ collection_id: collectionId }, 'hider')).body.data;
    const before = (await deckOf(o.deck_id)).output_count;
    const res = await api(`/outputs/${o.id}`, svc('hider'), { method: 'DELETE' });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, { id: o.id, status: 'hidden' });
    assert.equal((await deckOf(o.deck_id)).output_count, before - 1);
    const again = await api(`/outputs/${o.id}`, svc('hider'), { method: 'DELETE' });
    assert.equal(again.status, 200);
    assert.equal((await deckOf(o.deck_id)).output_count, before - 1);
    // A hidden output neither completes nor fails.
    assert.equal((await api(`/outputs/${o.id}/complete`, svc('hider'), { method: 'PATCH', body: { url: 'a/b.png' } })).status, 409);
    // Completed outputs can be hidden too.
    const c = (await create({ collection_id: collectionId }, 'hider')).body.data;
    await api(`/outputs/${c.id}/complete`, svc('hider'), { method: 'PATCH', body: { url: 'https://x.example/c.png' } });
    assert.equal((await api(`/outputs/${c.id}`, svc('hider'), { method: 'DELETE' })).body.data.status, 'hidden');
    assert.equal((await api(`/outputs/${MISSING}`, svc('hider'), { method: 'DELETE' })).status, 404);
    assert.equal((await api(`/outputs/${o.id}`, svc(), { method: 'DELETE' })).status, 401);
  });
});

describe('GET /outputs/:id', () => {
  test('with its deck and collection', async () => {
    const o = (await create({ collection_id: collectionId })).body.data;
    const res = await api(`/outputs/${o.id}`, svc('alice'));
    assert.equal(res.status, 200);
    const v = res.body.data;
    for (const k of ['id', 'url', 'mime_type', 'status', 'collection_id', 'deck_id', 'created_at', 'completed_at']) assert.ok(k in v, k);
    assert.deepEqual(v.collection, { id: collectionId, title: 'Content' });
    assert.equal(v.deck.id, o.deck_id);
    assert.equal(typeof v.deck.name, 'string');
    const free = (await create({ collection_id: collectionId, auto_create_deck: false })).body.data;
    assert.equal((await api(`/outputs/${free.id}`, svc('alice'))).body.data.deck, null);
  });

  test('404 unknown, 400 malformed id, 401 without user_id', async () => {
    assert.equal((await api(`/outputs/${MISSING}`, svc('alice'))).status, 404);
    const bad = await api('/outputs/123', svc('alice'));
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /path\.id/);
    const o = (await create({ collection_id: collectionId })).body.data;
    assert.equal((await api(`/outputs/${o.id}`, svc())).status, 401);
  });

  test('a hidden output is gone for others, still there for its owner', async () => {
    const o = (await create({ collection_id: collectionId }, 'private-owner')).body.data;
    await api(`/outputs/${o.id}`, svc('private-owner'), { method: 'DELETE' });
    assert.equal((await api(`/outputs/${o.id}`, bearer(await userToken('stranger')))).status, 404);
    assert.equal((await api(`/outputs/${o.id}`, svc('private-owner'))).body.data.status, 'hidden');
  });
});

describe('ownership', () => {
  test('a user changes their own outputs; others get 403; the collection owner and the service key may', async () => {
    const aliceToken = await userToken('alice-jwt');
    const bobToken = await userToken('bob-jwt');
    const ownerToken = await userToken('collection-owner');
    const ownedCollection = await makeCollection(p, bearer(ownerToken), 'Owned');
    const o = (await api('/outputs', bearer(aliceToken), { body: { collection_id: ownedCollection } })).body.data;
    const fail = (h: Record<string, string>) => api(`/outputs/${o.id}/fail`, h, { method: 'PATCH', body: { error_message: 'x' } });
    const r = await fail(bearer(bobToken));
    assert.equal(r.status, 403);
    assert.equal((await api(`/outputs/${o.id}`, bearer(bobToken), { method: 'DELETE' })).status, 403);
    assert.equal((await api(`/outputs/${o.id}/deck`, bearer(bobToken), { method: 'PATCH', body: { deck_id: null } })).status, 403);
    // Bob may read it (it is not hidden).
    assert.equal((await api(`/outputs/${o.id}`, bearer(bobToken))).status, 200);
    assert.equal((await fail(bearer(ownerToken))).status, 200);
    const o2 = (await api('/outputs', bearer(aliceToken), { body: { collection_id: ownedCollection } })).body.data;
    assert.equal((await api(`/outputs/${o2.id}/fail`, svc('anyone'), { method: 'PATCH', body: {} })).status, 200);
    // Bob cannot add outputs to Alice's deck.
    const intoAlice = await api('/outputs', bearer(bobToken), { body: { collection_id: ownedCollection, deck_id: o.deck_id } });
    assert.equal(intoAlice.status, 403);
  });

  test("a platform output (no owner) is changed by the service key only, not even by the collection's owner", async () => {
    const ownerToken = await userToken('platform-output-collection-owner');
    const ownedCollection = await makeCollection(p, bearer(ownerToken), 'Owned, platform output');
    const [row] = await p.database.db
      .insert(outputs)
      .values({ collection_id: ownedCollection, user_id: null, source: 'direct_api' })
      .returning({ id: outputs.id });
    const fail = (h: Record<string, string>) => api(`/outputs/${row!.id}/fail`, h, { method: 'PATCH', body: { error_message: 'x' } });
    const byOwner = await fail(bearer(ownerToken));
    assert.equal(byOwner.status, 403);
    assert.match(byOwner.body.error, /belongs to the platform/);
    assert.equal((await api(`/outputs/${row!.id}`, bearer(ownerToken), { method: 'DELETE' })).status, 403);
    assert.equal((await fail(svc('ops'))).status, 200);
  });
});

describe('PATCH /outputs/:id/deck', () => {
  test('moves between decks with both counters right; null removes it from any deck', async () => {
    const a = (await api('/decks', svc('mover'), { body: { collection_id: collectionId, name: 'A' } })).body.data;
    const b = (await api('/decks', svc('mover'), { body: { collection_id: collectionId, name: 'B' } })).body.data;
    const o = (await create({ collection_id: collectionId, deck_id: a.id }, 'mover')).body.data;
    const res = await api(`/outputs/${o.id}/deck`, svc('mover'), { method: 'PATCH', body: { deck_id: b.id } });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, { id: o.id, deck_id: b.id });
    assert.equal((await deckOf(a.id)).output_count, 0);
    assert.equal((await deckOf(b.id)).output_count, 1);
    // Moving to where it is changes nothing.
    await api(`/outputs/${o.id}/deck`, svc('mover'), { method: 'PATCH', body: { deck_id: b.id } });
    assert.equal((await deckOf(b.id)).output_count, 1);
    const out = await api(`/outputs/${o.id}/deck`, svc('mover'), { method: 'PATCH', body: { deck_id: null } });
    assert.deepEqual(out.body.data, { id: o.id, deck_id: null });
    assert.equal((await deckOf(b.id)).output_count, 0);
    // A hidden output moves without touching counters.
    await api(`/outputs/${o.id}/deck`, svc('mover'), { method: 'PATCH', body: { deck_id: a.id } });
    assert.equal((await deckOf(a.id)).output_count, 1);
    await api(`/outputs/${o.id}`, svc('mover'), { method: 'DELETE' });
    assert.equal((await deckOf(a.id)).output_count, 0);
    await api(`/outputs/${o.id}/deck`, svc('mover'), { method: 'PATCH', body: { deck_id: b.id } });
    assert.equal((await deckOf(a.id)).output_count, 0);
    assert.equal((await deckOf(b.id)).output_count, 0);
  });

  test('locked decks: nothing moves in or out (409)', async () => {
    const open = (await api('/decks', svc('locker'), { body: { collection_id: collectionId } })).body.data;
    const locked = (await api('/decks', svc('locker'), { body: { collection_id: collectionId } })).body.data;
    const inLocked = (await create({ collection_id: collectionId, deck_id: locked.id }, 'locker')).body.data;
    const inOpen = (await create({ collection_id: collectionId, deck_id: open.id }, 'locker')).body.data;
    await api(`/decks/${locked.id}/lock`, svc('locker'), { method: 'POST' });
    const into = await api(`/outputs/${inOpen.id}/deck`, svc('locker'), { method: 'PATCH', body: { deck_id: locked.id } });
    assert.equal(into.status, 409);
    assert.match(into.body.error, /locked/);
    const outOf = await api(`/outputs/${inLocked.id}/deck`, svc('locker'), { method: 'PATCH', body: { deck_id: open.id } });
    assert.equal(outOf.status, 409);
    assert.equal((await deckOf(locked.id)).output_count, 1);
    assert.equal((await deckOf(open.id)).output_count, 1);
  });

  test('400 on missing or malformed deck_id and a deck of another collection; 404 unknown output or deck', async () => {
    const o = (await create({ collection_id: collectionId })).body.data;
    const missing = await api(`/outputs/${o.id}/deck`, svc('alice'), { method: 'PATCH', body: {} });
    assert.equal(missing.status, 400);
    assert.match(missing.body.error, /body\.deck_id/);
    assert.equal((await api(`/outputs/${o.id}/deck`, svc('alice'), { method: 'PATCH', body: { deck_id: 'x' } })).status, 400);
    const other = await makeCollection(p);
    const d = (await api('/decks', svc('alice'), { body: { collection_id: other } })).body.data;
    const wrong = await api(`/outputs/${o.id}/deck`, svc('alice'), { method: 'PATCH', body: { deck_id: d.id } });
    assert.equal(wrong.status, 400);
    assert.equal((await api(`/outputs/${o.id}/deck`, svc('alice'), { method: 'PATCH', body: { deck_id: MISSING } })).status, 404);
    assert.equal((await api(`/outputs/${MISSING}/deck`, svc('alice'), { method: 'PATCH', body: { deck_id: null } })).status, 404);
  });
});

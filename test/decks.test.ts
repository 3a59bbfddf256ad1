/** Deck routes (docs/api/content.md §4.2): state machine, lock rule, lists, stats, ownership. */
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
  collectionId = await makeCollection(p, undefined, 'Deck Home');
});
after(() => p.close());

const newDeck = async (user = 'dana', body: Record<string, unknown> = {}) => {
  const res = await api('/decks', svc(user), { body: { collection_id: collectionId, ...body } });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data as { id: string; name: string; status: string; output_count: number };
};
const addOutput = (deckId: string, user = 'dana') => api('/outputs', svc(user), { body: { collection_id: collectionId, deck_id: deckId } });

describe('POST /decks', () => {
  test('201 active with output_count 0', async () => {
    const res = await api('/decks', svc('dana'), { body: { collection_id: collectionId, name: 'First', description: 'd' } });
    assert.equal(res.status, 201);
    const d = res.body.data;
    for (const k of ['id', 'collection_id', 'name', 'status', 'output_count', 'created_at']) assert.ok(k in d, k);
    assert.equal(d.collection_id, collectionId);
    assert.equal(d.name, 'First');
    assert.equal(d.status, 'active');
    assert.equal(d.output_count, 0);
    assert.equal(d.is_custodial, false);
  });

  test('custodial deck: social link created once', async () => {
    const a = await newDeck('bot', { social_org: 'social_a', social_identifier: 'did:plc:deck' });
    const b = await newDeck('bot', { social_org: 'social_a', social_identifier: 'did:plc:deck' });
    const rows = await p.database.db.select().from(decks).where(eq(decks.id, a.id));
    assert.equal(rows[0]!.is_custodial, true);
    const rowsB = await p.database.db.select().from(decks).where(eq(decks.id, b.id));
    assert.equal(rowsB[0]!.custodied_for, rows[0]!.custodied_for);
  });

  test('400s, 404 unknown collection, 401 without user_id', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{}, /body\.collection_id/],
      [{ collection_id: 'x' }, /body\.collection_id/],
      [{ collection_id: collectionId, name: '  ' }, /body\.name/],
      [{ collection_id: collectionId, name: 5 }, /body\.name/],
      [{ collection_id: collectionId, social_identifier: '1' }, /social/],
    ];
    for (const [body, message] of cases) {
      const res = await api('/decks', svc('dana'), { body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.match(res.body.error, message);
    }
    assert.equal((await api('/decks', svc('dana'), { body: { collection_id: MISSING } })).status, 404);
    const unauth = await api('/decks', svc(), { body: { collection_id: collectionId } });
    assert.equal(unauth.status, 401);
    assert.match(unauth.body.error, /user_id/);
  });
});

describe('GET /decks/:id', () => {
  test('deck with collection and visible outputs in order with their position', async () => {
    const d = await newDeck();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await addOutput(d.id)).body.data.id);
    await api(`/outputs/${ids[1]}`, svc('dana'), { method: 'DELETE' });
    await api(`/outputs/${ids[2]}/complete`, svc('dana'), {
      method: 'PATCH',
      body: { url: 'https://x.example/2.png', mime_type: 'image/png' },
    });
    const res = await api(`/decks/${d.id}`, svc('someone-else'));
    assert.equal(res.status, 200);
    const v = res.body.data;
    assert.equal(v.id, d.id);
    assert.equal(v.output_count, 2);
    assert.deepEqual(v.collection, { id: collectionId, title: 'Deck Home', cover_image_url: null });
    assert.deepEqual(
      v.outputs.map((o: { id: string; position: number; status: string }) => [o.id, o.position, o.status]),
      [
        [ids[0], 1, 'pending'],
        [ids[2], 2, 'completed'],
      ],
    );
    assert.equal(v.outputs[1].url, 'https://x.example/2.png');
    assert.equal(v.outputs[1].mime_type, 'image/png');
  });

  test('404, 400, 401', async () => {
    assert.equal((await api(`/decks/${MISSING}`, svc('dana'))).status, 404);
    const bad = await api('/decks/zzz', svc('dana'));
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /path\.id/);
    const d = await newDeck();
    assert.equal((await api(`/decks/${d.id}`, svc())).status, 401);
  });
});

describe('PATCH, DELETE, publish, lock: the state machine', () => {
  test('PATCH name, description, cover_output_id', async () => {
    const d = await newDeck();
    const o = (await addOutput(d.id)).body.data;
    const res = await api(`/decks/${d.id}`, svc('dana'), {
      method: 'PATCH',
      body: { name: 'Renamed', description: 'new', cover_output_id: o.id },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.id, d.id);
    assert.equal(res.body.data.name, 'Renamed');
    assert.equal(res.body.data.status, 'active');
    assert.equal(res.body.data.cover_output_id, o.id);
    const other = (await addOutput((await newDeck()).id)).body.data;
    const wrong = await api(`/decks/${d.id}`, svc('dana'), { method: 'PATCH', body: { cover_output_id: other.id } });
    assert.equal(wrong.status, 400);
    assert.match(wrong.body.error, /body\.cover_output_id/);
    const cleared = await api(`/decks/${d.id}`, svc('dana'), { method: 'PATCH', body: { cover_output_id: null } });
    assert.equal(cleared.body.data.cover_output_id, null);
  });

  test('PATCH 400s and 404', async () => {
    const d = await newDeck();
    for (const body of [{}, { status: 'deleted' }, { name: '' }, { cover_output_id: 'x' }]) {
      const res = await api(`/decks/${d.id}`, svc('dana'), { method: 'PATCH', body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.match(res.body.error, /^body/);
    }
    assert.equal((await api(`/decks/${MISSING}`, svc('dana'), { method: 'PATCH', body: { name: 'x' } })).status, 404);
  });

  test('DELETE archives (soft); an archived deck returns to active through PATCH', async () => {
    const d = await newDeck();
    const del = await api(`/decks/${d.id}`, svc('dana'), { method: 'DELETE' });
    assert.equal(del.status, 200);
    assert.deepEqual(del.body.data, { id: d.id, status: 'archived' });
    assert.equal((await api(`/decks/${d.id}`, svc('dana'))).body.data.status, 'archived');
    const back = await api(`/decks/${d.id}`, svc('dana'), { method: 'PATCH', body: { status: 'active' } });
    assert.equal(back.status, 200);
    assert.equal(back.body.data.status, 'active');
    assert.equal((await api(`/decks/${MISSING}`, svc('dana'), { method: 'DELETE' })).status, 404);
  });

  test('publish sets published_at once; a published deck may return to active', async () => {
    const d = await newDeck();
    const pub = await api(`/decks/${d.id}/publish`, svc('dana'), { method: 'POST' });
    assert.equal(pub.status, 200);
    assert.equal(pub.body.data.status, 'published');
    assert.ok(Date.parse(pub.body.data.published_at));
    const again = await api(`/decks/${d.id}/publish`, svc('dana'), { method: 'POST' });
    assert.equal(again.body.data.published_at, pub.body.data.published_at);
    // A published deck still takes outputs.
    assert.equal((await addOutput(d.id)).status, 201);
    const active = await api(`/decks/${d.id}`, svc('dana'), { method: 'PATCH', body: { status: 'active' } });
    assert.equal(active.body.data.status, 'active');
    assert.equal((await api(`/decks/${MISSING}/publish`, svc('dana'), { method: 'POST' })).status, 404);
  });

  test('lock: no new outputs (409), not straight back to active (409), rename still allowed, lock again is fine', async () => {
    const d = await newDeck();
    assert.equal((await addOutput(d.id)).status, 201);
    const lock = await api(`/decks/${d.id}/lock`, svc('dana'), { method: 'POST' });
    assert.equal(lock.status, 200);
    assert.deepEqual(lock.body.data, { id: d.id, status: 'locked' });
    const refused = await addOutput(d.id);
    assert.equal(refused.status, 409);
    assert.match(refused.body.error, /locked/);
    const reactivate = await api(`/decks/${d.id}`, svc('dana'), { method: 'PATCH', body: { status: 'active' } });
    assert.equal(reactivate.status, 409);
    assert.match(reactivate.body.error, /locked/);
    assert.equal((await api(`/decks/${d.id}/lock`, svc('dana'), { method: 'POST' })).status, 200);
    const renamed = await api(`/decks/${d.id}`, svc('dana'), { method: 'PATCH', body: { name: 'Frozen' } });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.data.status, 'locked');
    const row = (await p.database.db.select().from(decks).where(eq(decks.id, d.id)))[0]!;
    assert.equal(row.output_count, 1);
    assert.equal((await api(`/decks/${MISSING}/lock`, svc('dana'), { method: 'POST' })).status, 404);
  });

  // docs/api/content.md §3 Deck: DELETE, publish and PATCH status apply to "any" deck, locked included.
  test('a locked deck may be archived, published or given a status through PATCH (§3 "any")', async () => {
    const viaDelete = await newDeck();
    await api(`/decks/${viaDelete.id}/lock`, svc('dana'), { method: 'POST' });
    const archived = await api(`/decks/${viaDelete.id}`, svc('dana'), { method: 'DELETE' });
    assert.equal(archived.status, 200, JSON.stringify(archived.body));
    assert.deepEqual(archived.body.data, { id: viaDelete.id, status: 'archived' });

    const viaPublish = await newDeck();
    await api(`/decks/${viaPublish.id}/lock`, svc('dana'), { method: 'POST' });
    const published = await api(`/decks/${viaPublish.id}/publish`, svc('dana'), { method: 'POST' });
    assert.equal(published.status, 200, JSON.stringify(published.body));
    assert.equal(published.body.data.status, 'published');
    assert.ok(Date.parse(published.body.data.published_at));

    for (const status of ['published', 'archived'] as const) {
      const d = await newDeck();
      await api(`/decks/${d.id}/lock`, svc('dana'), { method: 'POST' });
      const res = await api(`/decks/${d.id}`, svc('dana'), { method: 'PATCH', body: { status } });
      assert.equal(res.status, 200, `${status}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.data.status, status);
    }
    // Once it is no longer locked, the deck follows its new status: a published deck takes outputs.
    assert.equal((await addOutput(viaPublish.id)).status, 201);
  });

  test('PATCH status locked locks too', async () => {
    const d = await newDeck();
    const res = await api(`/decks/${d.id}`, svc('dana'), { method: 'PATCH', body: { status: 'locked' } });
    assert.equal(res.body.data.status, 'locked');
    assert.equal((await addOutput(d.id)).status, 409);
  });

  test('a lock racing with inserts: every insert is 201 or 409, and the count matches', async () => {
    const d = await newDeck();
    const ops: Array<Promise<{ status: number }>> = [];
    for (let i = 0; i < 30; i++) {
      ops.push(addOutput(d.id));
      if (i === 10) ops.push(api(`/decks/${d.id}/lock`, svc('dana'), { method: 'POST' }));
    }
    const results = await Promise.all(ops);
    assert.ok(results.every((r) => r.status === 200 || r.status === 201 || r.status === 409));
    const accepted = results.filter((r) => r.status === 201).length;
    const rows = await p.database.db.select().from(outputs).where(eq(outputs.deck_id, d.id));
    const deck = (await p.database.db.select().from(decks).where(eq(decks.id, d.id)))[0]!;
    assert.equal(deck.status, 'locked');
    assert.equal(rows.length, accepted);
    assert.equal(deck.output_count, accepted);
    assert.equal((await addOutput(d.id)).status, 409);
  });

  test('401 without user_id on every change', async () => {
    const d = await newDeck();
    assert.equal((await api(`/decks/${d.id}`, svc(), { method: 'PATCH', body: { name: 'x' } })).status, 401);
    assert.equal((await api(`/decks/${d.id}`, svc(), { method: 'DELETE' })).status, 401);
    assert.equal((await api(`/decks/${d.id}/publish`, svc(), { method: 'POST' })).status, 401);
    assert.equal((await api(`/decks/${d.id}/lock`, svc(), { method: 'POST' })).status, 401);
    assert.equal((await api(`/decks/${d.id}/stats`, svc())).status, 401);
  });
});

describe('ownership', () => {
  test('owners change their decks; other users get 403; the service key may', async () => {
    const ann = await userToken('ann-deck');
    const ben = await userToken('ben-deck');
    const d = (await api('/decks', bearer(ann), { body: { collection_id: collectionId, name: "Ann's" } })).body.data;
    assert.equal((await api(`/decks/${d.id}`, bearer(ben), { method: 'PATCH', body: { name: 'mine now' } })).status, 403);
    assert.equal((await api(`/decks/${d.id}`, bearer(ben), { method: 'DELETE' })).status, 403);
    assert.equal((await api(`/decks/${d.id}/lock`, bearer(ben), { method: 'POST' })).status, 403);
    assert.equal((await api(`/decks/${d.id}/publish`, bearer(ben), { method: 'POST' })).status, 403);
    assert.equal((await api(`/decks/${d.id}`, bearer(ben))).status, 200, 'reading is open');
    assert.equal((await api(`/decks/${d.id}`, bearer(ann), { method: 'PATCH', body: { name: 'Still Ann' } })).status, 200);
    assert.equal((await api(`/decks/${d.id}/publish`, svc('ops'), { method: 'POST' })).status, 200);
  });

  test("a platform deck (no owner) is changed by the service key only, not even by the collection's owner", async () => {
    const creator = await userToken('deck-collection-creator');
    const owned = await makeCollection(p, bearer(creator), 'Creator owned');
    const [platformDeck] = await p.database.db
      .insert(decks)
      .values({ collection_id: owned, user_id: null, name: 'Platform' })
      .returning({ id: decks.id });
    const id = platformDeck!.id;
    const patch = (h: Record<string, string>) => api(`/decks/${id}`, h, { method: 'PATCH', body: { name: 'taken' } });
    const byCreator = await patch(bearer(creator));
    assert.equal(byCreator.status, 403);
    assert.match(byCreator.body.error, /belongs to the platform/);
    assert.equal((await api(`/decks/${id}/lock`, bearer(creator), { method: 'POST' })).status, 403);
    assert.equal((await api('/outputs', bearer(creator), { body: { collection_id: owned, deck_id: id } })).status, 403);
    assert.equal((await patch(svc('ops'))).status, 200);
  });
});

describe('stats and lists', () => {
  test('GET /decks/:id/stats: byStatus of the deck', async () => {
    const d = await newDeck();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await addOutput(d.id)).body.data.id);
    await api(`/outputs/${ids[0]}/complete`, svc('dana'), { method: 'PATCH', body: { url: 'https://x.example/0.png' } });
    await api(`/outputs/${ids[1]}/complete`, svc('dana'), { method: 'PATCH', body: { url: 'https://x.example/1.png' } });
    await api(`/outputs/${ids[2]}/fail`, svc('dana'), { method: 'PATCH', body: {} });
    await api(`/outputs/${ids[3]}`, svc('dana'), { method: 'DELETE' });
    const res = await api(`/decks/${d.id}/stats`, svc('dana'));
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data.byStatus, { completed: 2, pending: 1, failed: 1, processing: 0 });
    assert.equal((await api(`/decks/${MISSING}/stats`, svc('dana'))).status, 404);
  });

  test('GET /collections/:id/decks: newest first, archived left out, social filter', async () => {
    const c = await makeCollection(p, undefined, 'Listing');
    const mk = (body: Record<string, unknown>) => api('/decks', svc('lou'), { body: { collection_id: c, ...body } });
    const first = (await mk({ name: 'one' })).body.data;
    const second = (await mk({ name: 'two', social_org: 'social_b', social_identifier: '77' })).body.data;
    const gone = (await mk({ name: 'gone' })).body.data;
    await api(`/decks/${gone.id}`, svc('lou'), { method: 'DELETE' });
    const res = await api(`/collections/${c}/decks`, svc('lou'));
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.data.map((d: { id: string }) => d.id),
      [second.id, first.id],
    );
    for (const k of ['id', 'name', 'status', 'output_count', 'created_at']) assert.ok(k in res.body.data[0], k);
    const social = await api(`/collections/${c}/decks?social_org=social_b&social_identifier=77`, svc('lou'));
    assert.deepEqual(
      social.body.data.map((d: { id: string }) => d.id),
      [second.id],
    );
    const none = await api(`/collections/${c}/decks?social_org=social_b&social_identifier=78`, svc('lou'));
    assert.deepEqual(none.body.data, []);
    assert.equal((await api(`/collections/${c}/decks?social_org=social_b`, svc('lou'))).status, 400);
    assert.equal((await api(`/collections/${MISSING}/decks`, svc('lou'))).status, 404);
    assert.equal((await api(`/collections/${c}/decks`, svc())).status, 401);
  });

  test("GET /decks: the current user's decks with their collection", async () => {
    const c = await makeCollection(p, undefined, 'Mine');
    const token = await userToken('mia-decks');
    const a = (await api('/decks', bearer(token), { body: { collection_id: c, name: 'mine A' } })).body.data;
    const b = (
      await api('/decks', bearer(token), {
        body: { collection_id: collectionId, name: 'mine B', social_org: 'social_a', social_identifier: 'mia' },
      })
    ).body.data;
    await api('/decks', bearer(await userToken('not-mia')), { body: { collection_id: c, name: 'not mine' } });
    const res = await api('/decks', bearer(token));
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.data.map((d: { id: string }) => d.id),
      [b.id, a.id],
    );
    const item = res.body.data.find((d: { id: string }) => d.id === a.id);
    assert.deepEqual(item.collection, { id: c, title: 'Mine' });
    for (const k of ['id', 'name', 'status', 'output_count']) assert.ok(k in item, k);
    const social = await api('/decks?social_org=social_a&social_identifier=mia', bearer(token));
    assert.deepEqual(
      social.body.data.map((d: { id: string }) => d.id),
      [b.id],
    );
    assert.equal((await api('/decks', svc())).status, 401);
    assert.equal((await api('/decks?social_org=nope&social_identifier=1', bearer(token))).status, 400);
  });
});

/** Output routes (docs/api/content.md §4.1), continued: lists and stats per collection, counters under concurrency, thumbnails. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { and, eq, ne, sql } from 'drizzle-orm';
import sharp from 'sharp';
import { decks, outputs } from '../src/db/schema/index.ts';
import { client, makeCollection, png, svc } from './helpers/content.ts';
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
/** The truth the counter must match: visible outputs in the deck. */
const visibleIn = async (deckId: string) =>
  Number(
    (
      await p.database.db
        .select({ n: sql<number>`count(*)::int` })
        .from(outputs)
        .where(and(eq(outputs.deck_id, deckId), ne(outputs.status, 'hidden')))
    )[0]!.n,
  );

describe('list and stats per collection', () => {
  let listCollection: string;
  let deckA: string;
  before(async () => {
    listCollection = await makeCollection(p, undefined, 'Listed');
    deckA = (await api('/decks', svc('lister'), { body: { collection_id: listCollection, name: 'A' } })).body.data.id;
    // 55 outputs: 50 in deck A, 5 custodial; then 3 completed, 2 failed, 1 hidden.
    const made = await Promise.all(Array.from({ length: 50 }, () => create({ collection_id: listCollection, deck_id: deckA }, 'lister')));
    await Promise.all(
      Array.from({ length: 5 }, () =>
        create({ collection_id: listCollection, social_org: 'social_a', social_identifier: 'did:plc:list' }, 'lister'),
      ),
    );
    const ids = made.map((r) => r.body.data.id as string);
    for (const id of ids.slice(0, 3)) {
      await api(`/outputs/${id}/complete`, svc('lister'), { method: 'PATCH', body: { url: `https://x.example/${id}.png` } });
    }
    for (const id of ids.slice(3, 5)) await api(`/outputs/${id}/fail`, svc('lister'), { method: 'PATCH', body: {} });
    await api(`/outputs/${ids[5]}`, svc('lister'), { method: 'DELETE' });
  });
  const list = (q = '') => api(`/collections/${listCollection}/outputs${q}`, svc('lister'));

  test('limit defaults to 50 and offset to 0; hidden outputs are left out', async () => {
    const all = await list();
    assert.equal(all.status, 200);
    assert.equal(all.body.data.length, 50);
    const rest = await list('?offset=50');
    assert.equal(rest.body.data.length, 4); // 55 - 1 hidden - 50
    const ids = new Set([...all.body.data, ...rest.body.data].map((o: { id: string }) => o.id));
    assert.equal(ids.size, 54);
    const item = all.body.data[0];
    for (const k of ['id', 'url', 'status', 'deck']) assert.ok(k in item, k);
    assert.equal((await list('?limit=2&offset=1')).body.data.length, 2);
  });

  test('filters: deck_id, status, social_org + social_identifier', async () => {
    const inA = await list(`?deck_id=${deckA}&limit=500`);
    assert.equal(inA.body.data.length, 49);
    assert.ok(inA.body.data.every((o: { deck: { id: string } }) => o.deck.id === deckA));
    assert.equal((await list('?status=completed')).body.data.length, 3);
    assert.equal((await list('?status=failed')).body.data.length, 2);
    assert.equal((await list('?status=pending&limit=500')).body.data.length, 49);
    const social = await list('?social_org=social_a&social_identifier=did:plc:list');
    assert.equal(social.body.data.length, 5);
    assert.equal((await list('?social_org=social_b&social_identifier=nobody')).body.data.length, 0);
  });

  test('400 on bad query values, 404 on unknown collection, 401 without user_id', async () => {
    for (const q of ['?limit=0', '?limit=abc', '?limit=501', '?offset=-1', '?status=hidden', '?deck_id=x', '?social_org=social_a']) {
      const res = await list(q);
      assert.equal(res.status, 400, q);
      assert.match(res.body.error, /^query\./, q);
    }
    assert.equal((await api(`/collections/${MISSING}/outputs`, svc('lister'))).status, 404);
    assert.equal((await api(`/collections/${listCollection}/outputs`, svc())).status, 401);
  });

  test('stats: total and byStatus, hidden included', async () => {
    const res = await api(`/collections/${listCollection}/outputs/stats`, svc('lister'));
    assert.equal(res.status, 200);
    assert.equal(res.body.data.total, 55);
    assert.deepEqual(
      { ...res.body.data.byStatus, processing: undefined },
      { completed: 3, pending: 49, failed: 2, hidden: 1, processing: undefined },
    );
    assert.equal((await api(`/collections/${MISSING}/outputs/stats`, svc('lister'))).status, 404);
    assert.equal((await api(`/collections/${listCollection}/outputs/stats`, svc())).status, 401);
  });
});

describe('counters under concurrency', () => {
  test('concurrent inserts, hides (twice each) and moves keep output_count equal to the visible outputs', async () => {
    const a = (await api('/decks', svc('racer'), { body: { collection_id: collectionId, name: 'race A' } })).body.data.id;
    const b = (await api('/decks', svc('racer'), { body: { collection_id: collectionId, name: 'race B' } })).body.data.id;
    const created = await Promise.all(Array.from({ length: 40 }, () => create({ collection_id: collectionId, deck_id: a }, 'racer')));
    assert.ok(created.every((r) => r.status === 201));
    assert.equal((await deckOf(a)).output_count, 40);
    const ids = created.map((r) => r.body.data.id as string);
    const ops: Array<Promise<unknown>> = [];
    // More inserts into both decks while hides and moves run.
    for (let i = 0; i < 20; i++) ops.push(create({ collection_id: collectionId, deck_id: i % 2 ? a : b }, 'racer'));
    // Hide 0..14, each twice at once.
    for (const id of ids.slice(0, 15)) {
      ops.push(api(`/outputs/${id}`, svc('racer'), { method: 'DELETE' }));
      ops.push(api(`/outputs/${id}`, svc('racer'), { method: 'DELETE' }));
    }
    // Move 10..29 to B (10..14 are also being hidden), and 20..24 back and forth.
    for (const id of ids.slice(10, 30)) ops.push(api(`/outputs/${id}/deck`, svc('racer'), { method: 'PATCH', body: { deck_id: b } }));
    for (const id of ids.slice(20, 25)) ops.push(api(`/outputs/${id}/deck`, svc('racer'), { method: 'PATCH', body: { deck_id: a } }));
    const results = (await Promise.all(ops)) as Array<{ status: number }>;
    assert.ok(
      results.every((r) => r.status === 200 || r.status === 201),
      JSON.stringify(results.filter((r) => r.status >= 300)),
    );
    assert.equal((await deckOf(a)).output_count, await visibleIn(a));
    assert.equal((await deckOf(b)).output_count, await visibleIn(b));
    assert.equal((await deckOf(a)).output_count + (await deckOf(b)).output_count, 60 - 15);
  });

  test('concurrent first outputs of a user share one auto-created deck', async () => {
    const results = await Promise.all(Array.from({ length: 12 }, () => create({ collection_id: collectionId }, 'first-timer')));
    const deckIds = new Set(results.map((r) => r.body.data.deck_id));
    assert.equal(deckIds.size, 1);
    assert.equal((await deckOf([...deckIds][0])).output_count, 12);
  });
});

describe('thumbnails', () => {
  test('an image output completed with a url in our storage gets a WebP thumbnail', async () => {
    const image = await png(1024, 768);
    const up = await api('/upload-base64', svc('thumb'), { body: { base64Data: image.toString('base64') } });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    for (const url of [up.body.data.path, up.body.data.public_url]) {
      const o = (await create({ collection_id: collectionId }, 'thumb')).body.data;
      const res = await api(`/outputs/${o.id}/complete`, svc('thumb'), { method: 'PATCH', body: { url, mime_type: 'image/png' } });
      assert.equal(res.status, 200);
      const thumbUrl = res.body.data.thumbnail_url as string;
      assert.ok(thumbUrl?.startsWith(`${p.backendUrl}/files/thumbnails/`), thumbUrl);
      const stored = await p.database.db.select().from(outputs).where(eq(outputs.id, o.id));
      assert.equal(stored[0]!.thumbnail_url, thumbUrl);
      const file = await p.fetch(thumbUrl);
      assert.equal(file.status, 200);
      assert.equal(file.headers.get('content-type'), 'image/webp');
      const meta = await sharp(Buffer.from(await file.arrayBuffer())).metadata();
      assert.equal(meta.format, 'webp');
      assert.equal(meta.width, 512);
      assert.equal(meta.height, 384);
    }
  });

  test('no thumbnail when one is given, the url is not ours, or the output is not an image', async () => {
    const image = await png();
    const up = await api('/upload-base64', svc('thumb'), { body: { base64Data: image.toString('base64') } });
    const given = (await create({ collection_id: collectionId }, 'thumb')).body.data;
    const r1 = await api(`/outputs/${given.id}/complete`, svc('thumb'), {
      method: 'PATCH',
      body: { url: up.body.data.path, thumbnail_url: 'https://cdn.example/t.webp' },
    });
    assert.equal(r1.body.data.thumbnail_url, 'https://cdn.example/t.webp');
    const foreign = (await create({ collection_id: collectionId }, 'thumb')).body.data;
    const r2 = await api(`/outputs/${foreign.id}/complete`, svc('thumb'), {
      method: 'PATCH',
      body: { url: 'https://elsewhere.example/a.png', mime_type: 'image/png' },
    });
    assert.equal(r2.body.data.thumbnail_url, null);
    const video = (await create({ collection_id: collectionId }, 'thumb')).body.data;
    const r3 = await api(`/outputs/${video.id}/complete`, svc('thumb'), {
      method: 'PATCH',
      body: { url: up.body.data.path, mime_type: 'video/mp4' },
    });
    assert.equal(r3.body.data.thumbnail_url, null);
    const missing = (await create({ collection_id: collectionId }, 'thumb')).body.data;
    const r4 = await api(`/outputs/${missing.id}/complete`, svc('thumb'), {
      method: 'PATCH',
      body: { url: 'user-uploads/user-id/thumb/nothing-here.png' },
    });
    assert.equal(r4.status, 200);
    assert.equal(r4.body.data.thumbnail_url, null);
  });

  test('flat_file_id links the file and supplies mime_type', async () => {
    const up = await api('/upload-base64', svc('thumb'), {
      body: { base64Data: (await png()).toString('base64'), create_flat_file: true },
    });
    const o = (await create({ collection_id: collectionId }, 'thumb')).body.data;
    const res = await api(`/outputs/${o.id}/complete`, svc('thumb'), {
      method: 'PATCH',
      body: { url: up.body.data.path, flat_file_id: up.body.data.flatFileId },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.mime_type, 'image/png');
    assert.ok(res.body.data.thumbnail_url);
    const full = await api(`/outputs/${o.id}`, svc('thumb'));
    assert.equal(full.body.data.flat_file_id, up.body.data.flatFileId);
  });
});

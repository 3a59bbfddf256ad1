/** The public feed: trending order, featured deck, cursors, display and playback rules. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { collections, decks, flatFiles, outputs, userIdentities, users } from '../src/db/schema/index.ts';
import { call, startTestPlatform, type TestPlatform } from './helpers/platform.ts';

let p: TestPlatform;
const hoursAgo = (h: number) => new Date(Date.now() - h * 3600_000);

async function collection(title: string, extra: Partial<typeof collections.$inferInsert> = {}) {
  const [row] = await p.database.db
    .insert(collections)
    .values({ title, data: { version: 'v2' }, ...extra })
    .returning();
  return row!;
}
async function deck(collectionId: string, name: string, outputCount: number, status = 'active') {
  const [row] = await p.database.db
    .insert(decks)
    .values({ collection_id: collectionId, name, output_count: outputCount, status })
    .returning();
  return row!;
}
async function completed(
  collectionId: string,
  deckId: string,
  n: number,
  ageHours: number,
  extra: Partial<typeof outputs.$inferInsert> = {},
) {
  const values = Array.from({ length: n }, (_, i) => ({
    collection_id: collectionId,
    deck_id: deckId,
    status: 'completed',
    url: `https://cdn.test/${deckId}/${i}.png`,
    mime_type: 'image/png',
    completed_at: hoursAgo(ageHours),
    created_at: new Date(hoursAgo(ageHours).getTime() + i * 1000),
    ...extra,
  }));
  return p.database.db.insert(outputs).values(values).returning();
}

let hot: string, warm: string, cold: string, hotDeck: string;
before(async () => {
  p = await startTestPlatform();
  const [creator] = await p.database.db.insert(users).values({ display_name: 'ada', avatar_url: 'https://pfp.test/ada.png' }).returning();
  await p.database.db.insert(userIdentities).values({ user_id: creator!.id, provider: 'provider_e', provider_user_id: '1234' });
  const h = await collection('Hot', { user_id: creator!.id, price: 2 });
  const w = await collection('Warm', { cover_image_url: 'https://cdn.test/cover.png', social_org: 'social_a', social_identifier: '999' });
  const c = await collection('Cold', { is_featured: true });
  await collection('Empty');
  hot = h.id;
  warm = w.id;
  cold = c.id;
  const small = await deck(hot, 'small', 2);
  const big = await deck(hot, 'big', 8);
  await deck(hot, 'archived', 50, 'archived');
  hotDeck = big.id;
  await completed(hot, big.id, 8, 1);
  await completed(hot, small.id, 2, 2);
  const wd = await deck(warm, 'w', 3);
  await completed(warm, wd.id, 3, 3);
  const cd = await deck(cold, 'c', 5);
  await completed(cold, cd.id, 5, 24 * 10); // outside the 48 h window
});
after(() => p.close());

test('trending: recent completed outputs descending, outside the window last, no auth needed', async () => {
  const res = await call(`${p.backendUrl}/miniapp/collections/trending`);
  assert.equal(res.status, 200);
  assert.equal(res.body.error, null);
  assert.deepEqual(
    res.body.data.map((c: any) => c.title),
    ['Hot', 'Warm', 'Cold'],
  );
  const [h, w, c] = res.body.data;
  assert.equal(h.recent_outputs, 10);
  assert.equal(h.total_outputs, 10);
  assert.equal(c.recent_outputs, 0);
  assert.equal(h.total_decks, 2, 'archived decks do not count');
  assert.deepEqual(h.creator, { fid: '1234', username: 'ada', pfp: 'https://pfp.test/ada.png' });
  assert.equal(w.creator.fid, '999', 'custodial social_a identifier is the fid');
  assert.deepEqual(h.config, { price: 2, is_featured: false, generations_per_payment: 1 });
  assert.deepEqual(res.body.cursor, { next: null, has_more: false });
});

test('featured deck is the active deck with the highest output_count, with outputs_per_deck outputs', async () => {
  const res = await call(`${p.backendUrl}/miniapp/collections/trending?outputs_per_deck=3`);
  const h = res.body.data[0];
  assert.equal(h.featured_deck.id, hotDeck);
  assert.equal(h.featured_deck.name, 'big');
  assert.equal(h.featured_deck.outputs.length, 3);
  assert.equal(h.featured_deck.has_more_outputs, true);
  const o = h.featured_deck.outputs[0];
  assert.equal(o.display_image, o.url, 'no thumbnail: the url is shown');
  assert.deepEqual(o.creator, h.creator);
  assert.equal(h.cover_image, h.featured_deck.outputs[0].url, 'no cover: the first output image');
  const w = res.body.data[1];
  assert.equal(w.cover_image, 'https://cdn.test/cover.png');
  assert.equal(w.featured_deck.has_more_outputs, false);
});

test('cursor pages through without overlap; exclude and window apply', async () => {
  const first = await call(`${p.backendUrl}/miniapp/collections/trending?limit=2`);
  assert.equal(first.body.data.length, 2);
  assert.equal(first.body.cursor.has_more, true);
  const second = await call(`${p.backendUrl}/miniapp/collections/trending?limit=2&after=${first.body.cursor.next}`);
  assert.deepEqual(
    second.body.data.map((c: any) => c.title),
    ['Cold'],
  );
  assert.equal(second.body.cursor.has_more, false);
  const excluded = await call(`${p.backendUrl}/miniapp/collections/trending?exclude=${hot},${warm}`);
  assert.deepEqual(
    excluded.body.data.map((c: any) => c.title),
    ['Cold'],
  );
  const wide = await call(`${p.backendUrl}/miniapp/collections/trending?trending_hours=${24 * 30}`);
  assert.equal(wide.body.data.find((c: any) => c.title === 'Cold').recent_outputs, 5);
});

test('featured: the flagged collection', async () => {
  const res = await call(`${p.backendUrl}/miniapp/collections/featured?outputs_per_deck=2`);
  assert.equal(res.status, 200);
  assert.equal(res.body.data.id, cold);
  assert.equal(res.body.data.config.is_featured, true);
  assert.equal(res.body.data.featured_deck.outputs.length, 2);
});

test('deck outputs: cursor pagination newest first, video playback by stream id', async () => {
  const seen: string[] = [];
  let after = '';
  for (let i = 0; i < 5; i++) {
    const res = await call(`${p.backendUrl}/miniapp/decks/${hotDeck}/outputs?limit=3${after ? `&after=${after}` : ''}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.data.deck_id, hotDeck);
    assert.equal(res.body.data.deck_name, 'big');
    seen.push(...res.body.data.outputs.map((o: any) => o.id));
    if (!res.body.cursor.has_more) break;
    after = res.body.cursor.next;
  }
  assert.equal(seen.length, 8);
  assert.equal(new Set(seen).size, 8);

  const [file] = await p.database.db
    .insert(flatFiles)
    .values({ url: 'v.mp4', mime_type: 'video/mp4', stream_playback_id: 'play123', stream_asset_id: 'asset9' })
    .returning();
  const vd = await deck(warm, 'videos', 1);
  await completed(warm, vd.id, 1, 0, {
    mime_type: 'video/mp4',
    url: 'https://cdn.test/v.mp4',
    flat_file_id: file!.id,
    thumbnail_url: 'https://cdn.test/v.jpg',
  });
  const v = await call(`${p.backendUrl}/miniapp/decks/${vd.id}/outputs`);
  const o = v.body.data.outputs[0];
  assert.equal(o.stream_playback_id, 'play123');
  assert.equal(o.stream_asset_id, 'asset9');
  assert.equal(o.playback.type, 'hls');
  assert.equal(o.playback.url, 'https://stream.mux.com/play123.m3u8');
  assert.equal(o.display_image, 'https://cdn.test/v.jpg');
});

test('validation: limits, malformed cursor, bad uuid, unknown deck', async () => {
  for (const q of ['limit=0', 'limit=101', 'limit=abc', 'trending_hours=0', 'exclude=nope']) {
    const res = await call(`${p.backendUrl}/miniapp/collections/trending?${q}`);
    assert.equal(res.status, 400, q);
    assert.equal(res.body.data, null);
    assert.match(res.body.error, /^query\./);
  }
  const badCursor = await call(`${p.backendUrl}/miniapp/collections/trending?after=garbage`);
  assert.equal(badCursor.status, 400);
  assert.match(badCursor.body.error, /query\.after/);
  assert.equal((await call(`${p.backendUrl}/miniapp/decks/not-a-uuid/outputs`)).status, 400);
  const missing = await call(`${p.backendUrl}/miniapp/decks/00000000-0000-4000-8000-000000000000/outputs`);
  assert.equal(missing.status, 404);
  assert.match(missing.body.error, /deck .* not found/);
});

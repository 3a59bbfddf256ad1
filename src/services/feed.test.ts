import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FeedCollectionRow, FeedCreatorRow, FeedOutputRow } from '../db/feed.ts';
import { decodeCursor } from '../domain/cursor.ts';
import { AppError } from '../domain/errors.ts';
import { createFeedService, creatorOf, type FeedPorts } from './feed.ts';

const collection = (id: string, recent: number, over: Partial<FeedCollectionRow> = {}): FeedCollectionRow => ({
  id,
  title: id,
  description: '',
  cover_image_url: null,
  user_id: null,
  social_org: null,
  social_identifier: null,
  price: null,
  is_featured: false,
  generations_per_payment: 1,
  total_outputs: recent,
  recent_outputs: String(recent),
  ...over,
});

const output = (id: string, deck: string, inDeck: number): FeedOutputRow & { deck_key: string; completed_in_deck: number } => ({
  id,
  url: `u/${id}`,
  thumbnail_url: null,
  mime_type: 'image/png',
  status: 'completed',
  created_at: '2030-01-01T00:00:00Z',
  parent_output_id: null,
  stream_playback_id: null,
  stream_asset_id: null,
  deck_key: deck,
  completed_in_deck: inDeck,
});

/** A store of collections ordered like the database orders them; records the keyset positions asked for. */
function fakes(rows: FeedCollectionRow[]) {
  const asked: unknown[] = [];
  const ports: FeedPorts = {
    trending: async (q) => {
      asked.push(q.after);
      const sorted = [...rows].sort((a, b) => Number(b.recent_outputs) - Number(a.recent_outputs) || (a.id < b.id ? 1 : -1));
      const after = q.after;
      const rest = after
        ? sorted.filter((r) => Number(r.recent_outputs) < after.recent || (Number(r.recent_outputs) === after.recent && r.id < after.id))
        : sorted;
      return rest.slice(0, q.limit);
    },
    featured: async () => rows.find((r) => r.is_featured) ?? null,
    featuredDecks: async (ids) =>
      ids.filter((id) => id !== 'c-nodeck').map((id) => ({ collection_id: id, id: `deck-${id}`, name: 'D', output_count: 3 })),
    deckCounts: async (ids) => ids.map((id) => ({ collection_id: id, total_decks: '2' })),
    newestDeckOutputs: async (deckIds, perDeck) =>
      deckIds.flatMap((d) => [output(`${d}-1`, d, 3), output(`${d}-2`, d, 3), output(`${d}-3`, d, 3)].slice(0, perDeck)),
    creators: async (ids) => ids.map((id) => ({ id, display_name: `name-${id}`, avatar_url: `pfp-${id}`, fid: `fid-${id}` })),
    deck: async (id) =>
      id === 'deck-1'
        ? { id, name: 'D1', collection_id: 'c1', cover_image_url: null, user_id: 'u1', social_org: null, social_identifier: null }
        : null,
    deckOutputs: async (_id, q) =>
      [
        { ...output('a', 'deck-1', 0), created_key: 't3' },
        { ...output('b', 'deck-1', 0), created_key: 't2' },
        { ...output('c', 'deck-1', 0), created_key: 't1' },
      ].slice(0, q.limit),
  };
  return { service: createFeedService(ports), asked };
}

test('trending pages follow one another without repeats or gaps, and the last page says so', async () => {
  const rows = ['a', 'b', 'c', 'd', 'e'].map((id, i) => collection(`c-${id}`, i % 2));
  const { service } = fakes(rows);
  const seen: string[] = [];
  let after: string | undefined;
  for (let page = 0; page < 5; page++) {
    const r = await service.trending({ limit: 2, ...(after ? { after } : {}), outputsPerDeck: 2, trendingHours: 48, exclude: [] });
    seen.push(...r.items.map((i) => i.collection.id));
    if (!r.cursor.has_more) {
      assert.equal(r.cursor.next, null);
      break;
    }
    after = r.cursor.next!;
    assert.ok(decodeCursor(after, { r: 'number', id: 'string' }));
  }
  assert.deepEqual(seen, ['c-d', 'c-b', 'c-e', 'c-c', 'c-a']);
});

test('an item carries its featured deck’s newest outputs and whether the deck has more', async () => {
  const { service } = fakes([collection('c1', 5), collection('c-nodeck', 1)]);
  const r = await service.trending({ limit: 10, outputsPerDeck: 2, trendingHours: 48, exclude: [] });
  const first = r.items[0]!;
  assert.equal(first.featuredDeck?.deck.id, 'deck-c1');
  assert.deepEqual(
    first.featuredDeck?.outputs.map((o) => o.id),
    ['deck-c1-1', 'deck-c1-2'],
  );
  assert.equal(first.featuredDeck?.hasMoreOutputs, true);
  assert.equal(first.totalDecks, 2);
  assert.equal(r.items[1]!.featuredDeck, null);
});

test('a cursor that is not one is a 400 naming query.after', async () => {
  const { service } = fakes([]);
  await assert.rejects(
    service.trending({ limit: 2, after: 'garbage', outputsPerDeck: 0, trendingHours: 1, exclude: [] }),
    (e: unknown) => e instanceof AppError && e.kind === 'invalid' && e.message.startsWith('query.after'),
  );
});

test('the creator: a social_a custodial identity’s fid wins; else the user’s fid, name and picture', () => {
  const users = new Map<string, FeedCreatorRow>([['u1', { id: 'u1', display_name: 'Ann', avatar_url: 'p.png', fid: '77' }]]);
  assert.deepEqual(creatorOf({ user_id: 'u1', social_org: null, social_identifier: null }, users), {
    fid: '77',
    username: 'Ann',
    pfp: 'p.png',
  });
  assert.deepEqual(creatorOf({ user_id: 'u1', social_org: 'social_a', social_identifier: '4242' }, users), {
    fid: '4242',
    username: 'Ann',
    pfp: 'p.png',
  });
  assert.equal(creatorOf({ user_id: null, social_org: 'social_b', social_identifier: 'x' }, users).fid, null, 'social_b has no fids');
});

test('featured: 404 when no collection qualifies', async () => {
  await assert.rejects(fakes([collection('c1', 1)]).service.featured(6), (e: unknown) => e instanceof AppError && e.kind === 'not_found');
  assert.equal((await fakes([collection('c2', 0, { is_featured: true })]).service.featured(6)).collection.id, 'c2');
});

test('deck outputs: keyset cursor on the last row’s microsecond timestamp; unknown deck 404', async () => {
  const { service } = fakes([]);
  const page = await service.deckOutputs('deck-1', { limit: 2 });
  assert.deepEqual(
    page.outputs.map((o) => o.id),
    ['a', 'b'],
  );
  assert.equal(page.cursor.has_more, true);
  assert.deepEqual(decodeCursor(page.cursor.next!, { t: 'string', id: 'string' }), { t: 't2', id: 'b' });
  assert.equal(page.creator.username, 'name-u1');
  await assert.rejects(service.deckOutputs('nope', { limit: 2 }), (e: unknown) => e instanceof AppError && e.kind === 'not_found');
});

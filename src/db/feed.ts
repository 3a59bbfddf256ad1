/**
 * The public feed's reads (docs/api/content.md §2.7, §4.7): pages of collections and of a deck's
 * outputs on keyset positions, and the featured decks, their outputs and the creators of a whole
 * page, each in one query, so a page costs a fixed number of queries whatever its size. Cursor
 * encoding and item assembly are src/services/feed.ts; the response shape src/http/present/feed.ts.
 */
import { sql } from 'drizzle-orm';
import { rows, type Db } from './client.ts';

export interface FeedCollectionRow {
  id: string;
  title: string;
  description: string;
  cover_image_url: string | null;
  user_id: string | null;
  social_org: string | null;
  social_identifier: string | null;
  price: string | number | null;
  is_featured: boolean;
  generations_per_payment: number;
  total_outputs: string | number;
  recent_outputs: string | number;
}

export interface FeedDeckRow {
  collection_id: string;
  id: string;
  name: string;
  output_count: number;
}

export interface FeedOutputRow {
  id: string;
  url: string | null;
  thumbnail_url: string | null;
  mime_type: string | null;
  status: string;
  created_at: Date | string;
  parent_output_id: string | null;
  stream_playback_id: string | null;
  stream_asset_id: string | null;
}

export interface FeedCreatorRow {
  id: string;
  display_name: string | null;
  avatar_url: string | null;
  /** The user's provider_e identity (the protocol whose users have fids). */
  fid: string | null;
}

const uuidList = (ids: readonly string[]) =>
  sql.join(
    ids.map((id) => sql`${id}::uuid`),
    sql`, `,
  );

const COLLECTION_COLUMNS = sql`c.id::text as id, c.title, c.description, c.cover_image_url, c.user_id, c.social_org, c.social_identifier,
  c.price, c.is_featured, c.generations_per_payment`;

/**
 * Rule 1: collections with completed outputs, not archived, ordered by completed outputs in the
 * last `trendingHours` (descending), then id descending; `after` is the keyset position. `limit`
 * rows at most.
 */
export function trendingCollections(
  db: Db,
  q: { limit: number; trendingHours: number; exclude: readonly string[]; after: { recent: number; id: string } | null },
): Promise<FeedCollectionRow[]> {
  const exclude = q.exclude.length > 0 ? sql`and c.id not in (${uuidList(q.exclude)})` : sql``;
  const keyset = q.after
    ? sql`where (t.recent_outputs < ${q.after.recent} or (t.recent_outputs = ${q.after.recent} and t.id < ${q.after.id}))`
    : sql``;
  return rows<FeedCollectionRow>(
    db,
    sql`select * from (
          select ${COLLECTION_COLUMNS}, s.total_outputs, s.recent_outputs
          from collections c
          join (
            select collection_id, count(*) as total_outputs,
                   count(*) filter (where completed_at >= now() - make_interval(hours => ${q.trendingHours})) as recent_outputs
            from outputs where status = 'completed' group by collection_id
          ) s on s.collection_id = c.id
          where c.status <> 'archived' ${exclude}
        ) t ${keyset}
        order by t.recent_outputs desc, t.id desc
        limit ${q.limit}`,
  );
}

/** The featured collection: flagged is_featured (newest first), else the most trending one (48 h). */
export async function featuredCollection(db: Db): Promise<FeedCollectionRow | null> {
  const [row] = await rows<FeedCollectionRow>(
    db,
    sql`select ${COLLECTION_COLUMNS},
               coalesce(s.total_outputs, 0) as total_outputs, coalesce(s.recent_outputs, 0) as recent_outputs
        from collections c
        left join (
          select collection_id, count(*) as total_outputs,
                 count(*) filter (where completed_at >= now() - interval '48 hours') as recent_outputs
          from outputs where status = 'completed' group by collection_id
        ) s on s.collection_id = c.id
        where c.status <> 'archived' and (c.is_featured or s.total_outputs > 0)
        order by c.is_featured desc, s.recent_outputs desc nulls last, c.created_at desc
        limit 1`,
  );
  return row ?? null;
}

/** Rule 2: per collection, the active deck with the highest output_count (newest on a tie). */
export function featuredDecks(db: Db, collectionIds: readonly string[]): Promise<FeedDeckRow[]> {
  if (collectionIds.length === 0) return Promise.resolve([]);
  return rows<FeedDeckRow>(
    db,
    sql`select distinct on (d.collection_id) d.collection_id::text as collection_id, d.id::text as id, d.name, d.output_count
        from decks d where d.collection_id in (${uuidList(collectionIds)}) and d.status = 'active'
        order by d.collection_id, d.output_count desc, d.created_at desc`,
  );
}

/** Decks that are not archived, per collection. */
export function deckCounts(
  db: Db,
  collectionIds: readonly string[],
): Promise<Array<{ collection_id: string; total_decks: string | number }>> {
  if (collectionIds.length === 0) return Promise.resolve([]);
  return rows(
    db,
    sql`select collection_id::text as collection_id, count(*) as total_decks from decks
        where collection_id in (${uuidList(collectionIds)}) and status <> 'archived' group by collection_id`,
  );
}

/** The newest `perDeck` completed outputs of each deck, with the deck's completed count. */
export function newestDeckOutputs(
  db: Db,
  deckIds: readonly string[],
  perDeck: number,
): Promise<Array<FeedOutputRow & { deck_key: string; completed_in_deck: string | number }>> {
  if (deckIds.length === 0) return Promise.resolve([]);
  return rows(
    db,
    sql`select * from (
          select o.*, o.deck_id::text as deck_key, f.stream_playback_id, f.stream_asset_id,
                 row_number() over (partition by o.deck_id order by o.created_at desc, o.id desc) as rn,
                 count(*) over (partition by o.deck_id) as completed_in_deck
          from outputs o left join flat_files f on f.id = o.flat_file_id
          where o.deck_id in (${uuidList(deckIds)}) and o.status = 'completed'
        ) x where x.rn <= ${perDeck} order by x.deck_key, x.rn`,
  );
}

/** Display name, avatar and fid of the given users. */
export function feedCreators(db: Db, userIds: readonly string[]): Promise<FeedCreatorRow[]> {
  if (userIds.length === 0) return Promise.resolve([]);
  return rows<FeedCreatorRow>(
    db,
    sql`select u.id::text as id, u.display_name, u.avatar_url,
               (select i.provider_user_id from user_identities i where i.user_id = u.id and i.provider = 'provider_e' limit 1) as fid
        from users u where u.id::text in (${sql.join(
          userIds.map((u) => sql`${u}`),
          sql`, `,
        )})`,
  );
}

export interface FeedDeckHeader {
  id: string;
  name: string;
  collection_id: string;
  cover_image_url: string | null;
  user_id: string | null;
  social_org: string | null;
  social_identifier: string | null;
}

export async function feedDeck(db: Db, deckId: string): Promise<FeedDeckHeader | null> {
  const [row] = await rows<FeedDeckHeader>(
    db,
    sql`select d.id::text as id, d.name, c.id::text as collection_id, c.cover_image_url, c.user_id, c.social_org, c.social_identifier
        from decks d join collections c on c.id = d.collection_id where d.id = ${deckId}::uuid`,
  );
  return row ?? null;
}

/**
 * A deck's completed outputs, newest first, after the keyset position. `created_key` keeps
 * PostgreSQL's microseconds (a JS Date would drop them), so rows made within one millisecond are
 * neither skipped nor repeated.
 */
export function deckOutputsPage(
  db: Db,
  deckId: string,
  q: { limit: number; after: { t: string; id: string } | null },
): Promise<Array<FeedOutputRow & { created_key: string }>> {
  const keyset = q.after
    ? sql`and (o.created_at < ${q.after.t}::timestamptz or (o.created_at = ${q.after.t}::timestamptz and o.id < ${q.after.id}::uuid))`
    : sql``;
  return rows(
    db,
    sql`select o.*, o.created_at::text as created_key, f.stream_playback_id, f.stream_asset_id
        from outputs o left join flat_files f on f.id = o.flat_file_id
        where o.deck_id = ${deckId}::uuid and o.status = 'completed' ${keyset}
        order by o.created_at desc, o.id desc
        limit ${q.limit}`,
  );
}

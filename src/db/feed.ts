/**
 * The public feed (content-service.md §2.7, §4.7): trending collections, the featured collection
 * and a deck's outputs, with keyset cursors. Each page is a fixed number of queries, whatever
 * its size: one for the page, then one each for decks, outputs and creators of the whole page.
 */
import { sql, type SQL } from 'drizzle-orm';
import { decodeCursor, encodeCursor, type Cursor } from '../domain/cursor.ts';
import { notFound } from '../domain/errors.ts';
import type { Db } from './client.ts';

type Row = Record<string, unknown>;

async function rows(db: Db, query: SQL): Promise<Row[]> {
  const result = (await db.execute(query)) as unknown as { rows: Row[] };
  return result.rows;
}

const iso = (v: unknown) =>
  v instanceof Date ? v.toISOString() : v === null || v === undefined ? null : new Date(String(v)).toISOString();
const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));

export interface StreamSettings {
  /** HLS base: `${hlsBase}/${playbackId}.m3u8`. */
  hlsBase: string;
  /** Thumbnails: `${thumbnailBase}/${playbackId}/thumbnail.jpg?width=&height=&time=`. */
  thumbnailBase: string;
}

export interface FeedCreator {
  fid: string | null;
  username: string | null;
  pfp: string | null;
}

function presentFeedOutput(r: Row, creator: FeedCreator, coverImage: string | null, stream: StreamSettings) {
  const playbackId = (r.stream_playback_id as string | null) ?? null;
  const mime = (r.mime_type as string | null) ?? null;
  const isVideo = mime?.startsWith('video/') ?? false;
  return {
    id: r.id as string,
    url: (r.url as string | null) ?? null,
    thumbnail_url: (r.thumbnail_url as string | null) ?? null,
    mime_type: mime,
    status: r.status as string,
    created_at: iso(r.created_at),
    parent_output_id: (r.parent_output_id as string | null) ?? null,
    stream_playback_id: playbackId,
    stream_asset_id: (r.stream_asset_id as string | null) ?? null,
    creator,
    // Rule 4: thumbnail, then url, then the collection cover.
    display_image: (r.thumbnail_url as string | null) ?? (isVideo ? null : (r.url as string | null)) ?? coverImage,
    // Rule 5: stream a video that has a playback id, else play the url directly.
    playback:
      isVideo && playbackId
        ? {
            type: 'hls' as const,
            url: `${stream.hlsBase}/${playbackId}.m3u8`,
            thumbnail_url: `${stream.thumbnailBase}/${playbackId}/thumbnail.jpg`,
          }
        : isVideo
          ? { type: 'direct' as const, url: (r.url as string | null) ?? null, thumbnail_url: null }
          : null,
  };
}

/** creator per collection: the custodial fid (social_a is the protocol with fids) or the user's. */
async function creatorsFor(db: Db, collectionRows: Row[]): Promise<Map<string, FeedCreator>> {
  const userIds = [...new Set(collectionRows.map((c) => c.user_id).filter((u): u is string => typeof u === 'string'))];
  const byUser = new Map<string, { display_name: string | null; avatar_url: string | null; fid: string | null }>();
  if (userIds.length > 0) {
    const found = await rows(
      db,
      sql`select u.id::text as id, u.display_name, u.avatar_url,
                 (select i.provider_user_id from user_identities i where i.user_id = u.id and i.provider = 'provider_e' limit 1) as fid
          from users u where u.id::text in (${sql.join(
            userIds.map((u) => sql`${u}`),
            sql`, `,
          )})`,
    );
    for (const u of found) {
      byUser.set(u.id as string, {
        display_name: (u.display_name as string | null) ?? null,
        avatar_url: (u.avatar_url as string | null) ?? null,
        fid: (u.fid as string | null) ?? null,
      });
    }
  }
  const out = new Map<string, FeedCreator>();
  for (const c of collectionRows) {
    const user = typeof c.user_id === 'string' ? byUser.get(c.user_id) : undefined;
    const custodialFid = c.social_org === 'social_a' ? ((c.social_identifier as string | null) ?? null) : null;
    out.set(c.id as string, {
      fid: custodialFid ?? user?.fid ?? null,
      username: user?.display_name ?? null,
      pfp: user?.avatar_url ?? null,
    });
  }
  return out;
}

/** Collection items (§2.7) for the given collection rows, in their order. */
async function collectionItems(db: Db, collectionRows: Row[], outputsPerDeck: number, stream: StreamSettings) {
  if (collectionRows.length === 0) return [];
  const ids = collectionRows.map((c) => sql`${c.id as string}::uuid`);
  const idList = sql.join(ids, sql`, `);
  // Rule 2: the featured deck is the active deck with the highest output_count.
  const featured = await rows(
    db,
    sql`select distinct on (d.collection_id) d.collection_id::text as collection_id, d.id::text as id, d.name, d.output_count
        from decks d where d.collection_id in (${idList}) and d.status = 'active'
        order by d.collection_id, d.output_count desc, d.created_at desc`,
  );
  const deckCounts = await rows(
    db,
    sql`select collection_id::text as collection_id, count(*) as total_decks from decks
        where collection_id in (${idList}) and status <> 'archived' group by collection_id`,
  );
  const deckIds = featured.map((d) => sql`${d.id as string}::uuid`);
  const deckOutputs =
    deckIds.length === 0
      ? []
      : await rows(
          db,
          sql`select * from (
                select o.*, o.deck_id::text as deck_key, f.stream_playback_id, f.stream_asset_id,
                       row_number() over (partition by o.deck_id order by o.created_at desc, o.id desc) as rn,
                       count(*) over (partition by o.deck_id) as completed_in_deck
                from outputs o left join flat_files f on f.id = o.flat_file_id
                where o.deck_id in (${sql.join(deckIds, sql`, `)}) and o.status = 'completed'
              ) x where x.rn <= ${outputsPerDeck} order by x.deck_key, x.rn`,
        );
  const creators = await creatorsFor(db, collectionRows);
  return collectionRows.map((c) => {
    const id = c.id as string;
    const creator = creators.get(id)!;
    const deck = featured.find((d) => d.collection_id === id);
    const outputs = deck ? deckOutputs.filter((o) => o.deck_key === deck.id) : [];
    const firstImage = outputs[0] ? ((outputs[0].thumbnail_url as string | null) ?? (outputs[0].url as string | null)) : null;
    const cover = (c.cover_image_url as string | null) ?? firstImage;
    return {
      id,
      title: c.title as string,
      description: c.description as string,
      cover_image: cover,
      creator,
      config: {
        price: c.price === null ? null : Number(c.price),
        is_featured: Boolean(c.is_featured),
        generations_per_payment: num(c.generations_per_payment),
      },
      featured_deck: deck
        ? {
            id: deck.id as string,
            name: deck.name as string,
            output_count: num(deck.output_count),
            has_more_outputs: num(outputs[0]?.completed_in_deck) > outputs.length,
            outputs: outputs.map((o) => presentFeedOutput(o, creator, cover, stream)),
          }
        : null,
      total_decks: num(deckCounts.find((d) => d.collection_id === id)?.total_decks),
      total_outputs: num(c.total_outputs),
      recent_outputs: num(c.recent_outputs),
    };
  });
}

export interface TrendingQuery {
  limit: number;
  after?: string;
  outputsPerDeck: number;
  trendingHours: number;
  exclude: string[];
}

/**
 * Rule 1: collections with completed outputs, ordered by completed outputs in the window
 * (descending; none in the window sorts last), then newest collection first; keyset on that pair.
 */
export async function trendingCollections(db: Db, q: TrendingQuery, stream: StreamSettings) {
  const position = q.after ? decodeCursor(q.after, { r: 'number', id: 'string' }) : null;
  const exclude =
    q.exclude.length > 0
      ? sql`and c.id not in (${sql.join(
          q.exclude.map((e) => sql`${e}::uuid`),
          sql`, `,
        )})`
      : sql``;
  const keyset = position
    ? sql`where (t.recent_outputs < ${position.r} or (t.recent_outputs = ${position.r} and t.id < ${position.id}))`
    : sql``;
  const page = await rows(
    db,
    sql`select * from (
          select c.id::text as id, c.title, c.description, c.cover_image_url, c.user_id, c.social_org, c.social_identifier,
                 c.price, c.is_featured, c.generations_per_payment,
                 s.total_outputs, s.recent_outputs
          from collections c
          join (
            select collection_id, count(*) as total_outputs,
                   count(*) filter (where completed_at >= now() - make_interval(hours => ${q.trendingHours})) as recent_outputs
            from outputs where status = 'completed' group by collection_id
          ) s on s.collection_id = c.id
          where c.status <> 'archived' ${exclude}
        ) t ${keyset}
        order by t.recent_outputs desc, t.id desc
        limit ${q.limit + 1}`,
  );
  const hasMore = page.length > q.limit;
  const visible = page.slice(0, q.limit);
  const last = visible.at(-1);
  const cursor: Cursor = {
    next: hasMore && last ? encodeCursor({ r: num(last.recent_outputs), id: last.id as string }) : null,
    has_more: hasMore,
  };
  return { items: await collectionItems(db, visible, q.outputsPerDeck, stream), cursor };
}

/** The featured collection: flagged is_featured (newest first), else the most trending one. */
export async function featuredCollection(db: Db, outputsPerDeck: number, stream: StreamSettings) {
  const found = await rows(
    db,
    sql`select c.id::text as id, c.title, c.description, c.cover_image_url, c.user_id, c.social_org, c.social_identifier,
               c.price, c.is_featured, c.generations_per_payment,
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
  if (found.length === 0) throw notFound('featured collection');
  const [item] = await collectionItems(db, found, outputsPerDeck, stream);
  return item!;
}

export async function deckFeedOutputs(db: Db, deckId: string, q: { limit: number; after?: string }, stream: StreamSettings) {
  const deck = await rows(
    db,
    sql`select d.id::text as id, d.name, c.id::text as collection_id, c.cover_image_url, c.user_id, c.social_org, c.social_identifier
        from decks d join collections c on c.id = d.collection_id where d.id = ${deckId}::uuid`,
  );
  if (deck.length === 0) throw notFound(`deck ${deckId}`);
  const d = deck[0]!;
  const position = q.after ? decodeCursor(q.after, { t: 'string', id: 'string' }) : null;
  const keyset = position
    ? sql`and (o.created_at < ${position.t}::timestamptz or (o.created_at = ${position.t}::timestamptz and o.id < ${position.id}::uuid))`
    : sql``;
  const page = await rows(
    db,
    sql`select o.*, o.created_at::text as created_key, f.stream_playback_id, f.stream_asset_id
        from outputs o left join flat_files f on f.id = o.flat_file_id
        where o.deck_id = ${deckId}::uuid and o.status = 'completed' ${keyset}
        order by o.created_at desc, o.id desc
        limit ${q.limit + 1}`,
  );
  const hasMore = page.length > q.limit;
  const visible = page.slice(0, q.limit);
  const creator = (await creatorsFor(db, [{ ...d, id: d.collection_id }])).get(d.collection_id as string)!;
  const last = visible.at(-1);
  const cursor: Cursor = {
    // created_key keeps PostgreSQL's microseconds, which a JS Date would drop.
    next: hasMore && last ? encodeCursor({ t: last.created_key as string, id: last.id as string }) : null,
    has_more: hasMore,
  };
  return {
    data: {
      deck_id: d.id as string,
      deck_name: d.name as string,
      outputs: visible.map((o) => presentFeedOutput(o, creator, (d.cover_image_url as string | null) ?? null, stream)),
    },
    cursor,
  };
}

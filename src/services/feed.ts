import type { FeedCollectionRow, FeedCreatorRow, FeedDeckHeader, FeedDeckRow, FeedOutputRow } from '../db/feed.ts';
import { decodeCursor, encodeCursor, type Cursor } from '../domain/cursor.ts';
import { notFound } from '../domain/errors.ts';

export interface FeedPorts {
  trending(q: {
    limit: number;
    trendingHours: number;
    exclude: readonly string[];
    after: { recent: number; id: string } | null;
  }): Promise<FeedCollectionRow[]>;
  featured(): Promise<FeedCollectionRow | null>;
  featuredDecks(collectionIds: readonly string[]): Promise<FeedDeckRow[]>;
  deckCounts(collectionIds: readonly string[]): Promise<Array<{ collection_id: string; total_decks: string | number }>>;
  newestDeckOutputs(
    deckIds: readonly string[],
    perDeck: number,
  ): Promise<Array<FeedOutputRow & { deck_key: string; completed_in_deck: string | number }>>;
  creators(userIds: readonly string[]): Promise<FeedCreatorRow[]>;
  deck(deckId: string): Promise<FeedDeckHeader | null>;
  deckOutputs(
    deckId: string,
    q: { limit: number; after: { t: string; id: string } | null },
  ): Promise<Array<FeedOutputRow & { created_key: string }>>;
}

export interface FeedCreator {
  fid: string | null;
  username: string | null;
  pfp: string | null;
}

export interface FeedItem {
  collection: FeedCollectionRow;
  creator: FeedCreator;
  featuredDeck: { deck: FeedDeckRow; outputs: FeedOutputRow[]; hasMoreOutputs: boolean } | null;
  totalDecks: number;
}

const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));

/** The creator a collection shows: the custodial fid (social_a is the protocol with fids), else the user's. */
export function creatorOf(
  c: { user_id: string | null; social_org: string | null; social_identifier: string | null },
  users: ReadonlyMap<string, FeedCreatorRow>,
): FeedCreator {
  const user = c.user_id ? users.get(c.user_id) : undefined;
  const custodialFid = c.social_org === 'social_a' ? c.social_identifier : null;
  return { fid: custodialFid ?? user?.fid ?? null, username: user?.display_name ?? null, pfp: user?.avatar_url ?? null };
}

export function createFeedService(ports: FeedPorts) {
  async function creatorsOf(collectionRows: ReadonlyArray<Pick<FeedCollectionRow, 'user_id'>>) {
    const ids = [...new Set(collectionRows.map((c) => c.user_id).filter((u): u is string => typeof u === 'string'))];
    return new Map((await ports.creators(ids)).map((u) => [u.id, u]));
  }

  /** Collection items (§2.7) for the given rows, in their order. */
  async function items(collectionRows: FeedCollectionRow[], outputsPerDeck: number): Promise<FeedItem[]> {
    if (collectionRows.length === 0) return [];
    const ids = collectionRows.map((c) => c.id);
    const [decks, counts, users] = await Promise.all([ports.featuredDecks(ids), ports.deckCounts(ids), creatorsOf(collectionRows)]);
    const outputs = await ports.newestDeckOutputs(
      decks.map((d) => d.id),
      outputsPerDeck,
    );
    return collectionRows.map((collection) => {
      const deck = decks.find((d) => d.collection_id === collection.id);
      const deckOutputs = deck ? outputs.filter((o) => o.deck_key === deck.id) : [];
      return {
        collection,
        creator: creatorOf(collection, users),
        featuredDeck: deck
          ? { deck, outputs: deckOutputs, hasMoreOutputs: num(deckOutputs[0]?.completed_in_deck) > deckOutputs.length }
          : null,
        totalDecks: num(counts.find((d) => d.collection_id === collection.id)?.total_decks),
      };
    });
  }

  return {
    /** One page of trending collections; `after` is a cursor from the previous page (400 when it is not). */
    async trending(q: { limit: number; after?: string; outputsPerDeck: number; trendingHours: number; exclude: string[] }) {
      const position = q.after ? decodeCursor(q.after, { r: 'number', id: 'string' }) : null;
      const page = await ports.trending({
        limit: q.limit + 1,
        trendingHours: q.trendingHours,
        exclude: q.exclude,
        after: position ? { recent: Number(position.r), id: String(position.id) } : null,
      });
      const hasMore = page.length > q.limit;
      const visible = page.slice(0, q.limit);
      const last = visible.at(-1);
      const cursor: Cursor = {
        next: hasMore && last ? encodeCursor({ r: num(last.recent_outputs), id: last.id }) : null,
        has_more: hasMore,
      };
      return { items: await items(visible, q.outputsPerDeck), cursor };
    },

    /** The featured collection; 404 when no collection qualifies. */
    async featured(outputsPerDeck: number): Promise<FeedItem> {
      const row = await ports.featured();
      if (!row) throw notFound('featured collection');
      return (await items([row], outputsPerDeck))[0]!;
    },

    /** One page of a deck's completed outputs, newest first; 404 for an unknown deck. */
    async deckOutputs(deckId: string, q: { limit: number; after?: string }) {
      const deck = await ports.deck(deckId);
      if (!deck) throw notFound(`deck ${deckId}`);
      const position = q.after ? decodeCursor(q.after, { t: 'string', id: 'string' }) : null;
      const page = await ports.deckOutputs(deckId, {
        limit: q.limit + 1,
        after: position ? { t: String(position.t), id: String(position.id) } : null,
      });
      const hasMore = page.length > q.limit;
      const visible = page.slice(0, q.limit);
      const creator = creatorOf(deck, await creatorsOf([deck]));
      const last = visible.at(-1);
      const cursor: Cursor = { next: hasMore && last ? encodeCursor({ t: last.created_key, id: last.id }) : null, has_more: hasMore };
      return { deck, creator, outputs: visible as FeedOutputRow[], cursor };
    },
  };
}

export type FeedService = ReturnType<typeof createFeedService>;

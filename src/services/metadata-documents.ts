/**
 * Public metadata documents (docs/api/nft.md §2.11; docs/minting.md "Metadata documents"): the
 * ERC-721 document of a minted token and the ERC-7572 document of a collection, rendered once
 * (bytes + ETag + Cache-Control) and kept in a small in-process cache. Only final documents are
 * cached (a token whose artwork completed, and collections for 30 s); a pending token is read
 * fresh every time, so a completed artwork shows at once.
 *
 * Token reads that miss the cache are batched: the reads asked for in one event-loop turn become
 * one query per collection (a crawl's concurrent requests share a round trip), and a read already
 * in flight is joined rather than repeated.
 */
import { notFound } from '../domain/errors.ts';
import {
  CACHE_FROZEN,
  CACHE_PENDING,
  collectionDocument,
  isFinal,
  render,
  renderBytes,
  tokenDocument,
  type Rendered,
  type TokenSource,
} from '../domain/metadata.ts';
import { bundlePaths } from '../domain/permanence.ts';

/** A small in-process cache of rendered documents (insertion-ordered eviction, TTL). */
export class MetadataCache {
  private map = new Map<string, { value: Rendered; expires: number }>();
  /**
   * Bumped by every invalidation: a document read before it may be stale, so `set` drops it
   * (a read in flight when a cover is regenerated must not refill the cache with the old one).
   */
  generation = 0;
  constructor(
    readonly ttlMs = 30_000,
    readonly maxEntries = 10_000,
  ) {}
  get(key: string): Rendered | undefined {
    const hit = this.map.get(key);
    if (!hit) return undefined;
    if (hit.expires < Date.now()) {
      this.map.delete(key);
      return undefined;
    }
    return hit.value;
  }
  /** Keeps `value` unless the cache was invalidated since `readAt` (the generation when its read began). */
  set(key: string, value: Rendered, readAt = this.generation) {
    if (this.ttlMs <= 0 || readAt !== this.generation) return;
    if (this.map.size >= this.maxEntries) this.map.delete(this.map.keys().next().value as string);
    this.map.set(key, { value, expires: Date.now() + this.ttlMs });
  }
  /** Drops a token (collectionId:tokenId), or every entry of a collection (collectionId). */
  invalidate(collectionId: string, tokenId?: number) {
    this.generation += 1;
    if (tokenId !== undefined) {
      this.map.delete(`${collectionId}:${tokenId}`);
      return;
    }
    for (const k of this.map.keys()) if (k.startsWith(collectionId)) this.map.delete(k);
  }
}

type CollectionHeader = TokenSource['collection'];

export interface TokenRow {
  token_id: number;
  collection: CollectionHeader;
  /** The bundle the contract's metadata is frozen at (docs/permanence.md "Freezing"), else null. */
  frozen_root_cid?: string | null;
  output: (NonNullable<TokenSource['output']> & { id: string | null }) | null;
}

export interface MetadataStore {
  /** Minted tokens of a collection with the collection and cover output (one indexed query); absent ids are left out. */
  tokensForMetadata(collectionId: string, tokenIds: number[]): Promise<TokenRow[]>;
  collectionHeader(collectionId: string): Promise<(CollectionHeader & { frozen_root_cid?: string | null }) | undefined>;
}

/** A file of a stored bundle by root CID and path (the permanence gateway). */
export type BundleFileReader = (rootCid: string, path: string) => Promise<Buffer>;

/** At most this many token ids in one query. */
const MAX_BATCH = 500;

/**
 * One read per token, batched: the ids asked for in one event-loop turn are read with one query
 * per collection (at most MAX_BATCH ids each) when the turn ends; a read of an id already in
 * flight since the same cache generation shares its answer. A failed query fails its whole batch,
 * so the ids must be valid before they get here (the routes' schemas: a uuid, a token id 0..2^40),
 * or one request could fail its neighbours'.
 */
function batchedTokenReads(store: MetadataStore) {
  const inFlight = new Map<string, Promise<TokenRow | undefined>>();
  type Waiter = { resolve(r: TokenRow | undefined): void; reject(e: unknown): void };
  let waiting: Map<string, Map<number, Waiter[]>> | undefined;

  const flush = () => {
    const batch = waiting!;
    waiting = undefined;
    for (const [collectionId, asked] of batch) {
      const ids = [...asked.keys()];
      for (let i = 0; i < ids.length; i += MAX_BATCH) {
        const part = ids.slice(i, i + MAX_BATCH);
        // (a store that throws instead of rejecting fails these reads, not the process)
        Promise.resolve()
          .then(() => store.tokensForMetadata(collectionId, part))
          .then(
            (rows) => {
              const byId = new Map(rows.map((r) => [r.token_id, r]));
              for (const id of part) for (const w of asked.get(id)!) w.resolve(byId.get(id));
            },
            (err: unknown) => {
              for (const id of part) for (const w of asked.get(id)!) w.reject(err);
            },
          );
      }
    }
  };

  return (collectionId: string, tokenId: number, generation: number): Promise<TokenRow | undefined> => {
    const key = `${generation}:${collectionId}:${tokenId}`;
    const joined = inFlight.get(key);
    if (joined) return joined;
    const read = new Promise<TokenRow | undefined>((resolve, reject) => {
      if (!waiting) {
        waiting = new Map();
        setImmediate(flush);
      }
      let asked = waiting.get(collectionId);
      if (!asked) waiting.set(collectionId, (asked = new Map()));
      const waiters = asked.get(tokenId);
      if (waiters) waiters.push({ resolve, reject });
      else asked.set(tokenId, [{ resolve, reject }]);
    }).finally(() => inFlight.delete(key));
    inFlight.set(key, read);
    return read;
  };
}

export type MetadataDocuments = ReturnType<typeof createMetadataDocuments>;

export function createMetadataDocuments(
  store: MetadataStore,
  metadataBaseUrl: string,
  cache = new MetadataCache(),
  /** Fields added to the collection document (the seed commitment, reveal and receipts root: docs/fairness.md). */
  collectionExtras?: (collectionId: string) => Promise<Record<string, unknown> | null>,
  /**
   * Reads a frozen collection's documents from its bundle: once the contract points at
   * ipfs://<root>/, these routes answer the same bytes (docs/permanence.md "Freezing").
   */
  bundleFile?: BundleFileReader,
  /** Where the backend's public pages are (the collection document's `external_link`, its mint page); default metadataBaseUrl. */
  publicBaseUrl: string = metadataBaseUrl,
) {
  const readToken = batchedTokenReads(store);
  async function renderToken(collectionId: string, tokenId: number, generation: number): Promise<Rendered> {
    const row = await readToken(collectionId, tokenId, generation);
    if (!row) {
      if (!(await store.collectionHeader(collectionId))) throw notFound(`collection ${collectionId}`);
      throw notFound(`token ${tokenId} of collection ${collectionId}`);
    }
    if (row.frozen_root_cid && bundleFile) {
      return renderBytes((await bundleFile(row.frozen_root_cid, bundlePaths.metadata(tokenId))).toString('utf8'), CACHE_FROZEN);
    }
    const output = row.output?.id ? row.output : null;
    return render(tokenDocument({ collection: row.collection, tokenId, output, metadataBaseUrl }), isFinal(output));
  }

  return {
    cache,
    async token(collectionId: string, tokenId: number): Promise<Rendered> {
      const key = `${collectionId}:${tokenId}`;
      const hit = cache.get(key);
      if (hit) return hit;
      const generation = cache.generation;
      const rendered = await renderToken(collectionId, tokenId, generation);
      if (rendered.cacheControl !== CACHE_PENDING) cache.set(key, rendered, generation);
      return rendered;
    },
    async collection(collectionId: string): Promise<Rendered> {
      const hit = cache.get(collectionId);
      if (hit) return hit;
      const generation = cache.generation;
      const c = await store.collectionHeader(collectionId);
      if (!c) throw notFound(`collection ${collectionId}`);
      if (c.frozen_root_cid && bundleFile) {
        const frozen = renderBytes((await bundleFile(c.frozen_root_cid, bundlePaths.contract)).toString('utf8'), CACHE_FROZEN);
        cache.set(collectionId, frozen, generation);
        return frozen;
      }
      const extras = collectionExtras ? await collectionExtras(collectionId) : null;
      const rendered = {
        ...render({ ...collectionDocument(c, publicBaseUrl), ...(extras ?? {}) }, false),
        cacheControl: 'public, max-age=300',
      };
      cache.set(collectionId, rendered, generation);
      return rendered;
    },
  };
}

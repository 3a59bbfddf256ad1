/**
 * Public metadata documents (nft-service.md §2.11; docs/minting.md "Metadata documents"): the
 * ERC-721 document of a minted token and the ERC-7572 document of a collection, rendered once
 * (bytes + ETag + Cache-Control) and kept in a small in-process cache. Only final documents are
 * cached (a token whose artwork completed, and collections for 30 s); a pending token is read
 * fresh every time, so a completed artwork shows at once.
 */
import { notFound } from '../domain/errors.ts';
import { CACHE_PENDING, collectionDocument, isFinal, render, tokenDocument, type Rendered, type TokenSource } from '../domain/metadata.ts';

/** A small in-process cache of rendered documents (insertion-ordered eviction, TTL). */
export class MetadataCache {
  private map = new Map<string, { value: Rendered; expires: number }>();
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
  set(key: string, value: Rendered) {
    if (this.ttlMs <= 0) return;
    if (this.map.size >= this.maxEntries) this.map.delete(this.map.keys().next().value as string);
    this.map.set(key, { value, expires: Date.now() + this.ttlMs });
  }
  /** Drops a token (collectionId:tokenId), or every entry of a collection (collectionId). */
  invalidate(collectionId: string, tokenId?: number) {
    if (tokenId !== undefined) {
      this.map.delete(`${collectionId}:${tokenId}`);
      return;
    }
    for (const k of this.map.keys()) if (k.startsWith(collectionId)) this.map.delete(k);
  }
}

type CollectionHeader = TokenSource['collection'];

export interface MetadataStore {
  /** A minted token's collection and cover output (one indexed query), or undefined. */
  tokenForMetadata(
    collectionId: string,
    tokenId: number,
  ): Promise<{ collection: CollectionHeader; output: (NonNullable<TokenSource['output']> & { id: string | null }) | null } | undefined>;
  collectionHeader(collectionId: string): Promise<CollectionHeader | undefined>;
}

export type MetadataDocuments = ReturnType<typeof createMetadataDocuments>;

export function createMetadataDocuments(store: MetadataStore, metadataBaseUrl: string, cache = new MetadataCache()) {
  async function renderToken(collectionId: string, tokenId: number): Promise<Rendered> {
    const row = await store.tokenForMetadata(collectionId, tokenId);
    if (!row) {
      if (!(await store.collectionHeader(collectionId))) throw notFound(`collection ${collectionId}`);
      throw notFound(`token ${tokenId} of collection ${collectionId}`);
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
      const rendered = await renderToken(collectionId, tokenId);
      if (rendered.cacheControl !== CACHE_PENDING) cache.set(key, rendered);
      return rendered;
    },
    async collection(collectionId: string): Promise<Rendered> {
      const hit = cache.get(collectionId);
      if (hit) return hit;
      const c = await store.collectionHeader(collectionId);
      if (!c) throw notFound(`collection ${collectionId}`);
      const rendered = { ...render(collectionDocument(c, metadataBaseUrl), false), cacheControl: 'public, max-age=300' };
      cache.set(collectionId, rendered);
      return rendered;
    },
  };
}

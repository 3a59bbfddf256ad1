/**
 * Metadata caches agree across replicas (docs/minting.md "Metadata documents and cache policy"): every backend keeps final token documents in
 * an in-process cache (services/metadata-documents.ts). When one replica changes a token's document
 * (a regenerated cover), it drops its own entry and publishes the token on Redis; every other
 * replica drops its entry when the message arrives (milliseconds), instead of serving the old
 * document until its TTL. Without REDIS_URL there is one backend and nothing to tell.
 */
import { Redis } from 'ioredis';
import type { MetadataCache } from './metadata-documents.ts';

export const METADATA_INVALIDATION_CHANNEL = 'atelier:metadata:invalidate';

export interface MetadataInvalidation {
  /** Drops the token here and in every other replica. */
  tokenChanged(collectionId: string, tokenId?: number): void;
  close(): Promise<void>;
}

export function createMetadataInvalidation(cache: MetadataCache, redisUrl: string | undefined): MetadataInvalidation {
  if (!redisUrl) {
    return { tokenChanged: (c, t) => cache.invalidate(c, t), close: async () => undefined };
  }
  // A subscribed ioredis connection can do nothing else: one to publish, one to listen. Both
  // reconnect (and the listener resubscribes) after a Redis restart; readiness reports Redis.
  const pub = new Redis(redisUrl, { maxRetriesPerRequest: 1, lazyConnect: false });
  const sub = pub.duplicate();
  pub.on('error', () => {});
  sub.on('error', () => {});
  void sub.subscribe(METADATA_INVALIDATION_CHANNEL).catch(() => {});
  sub.on('message', (_channel: string, message: string) => {
    const [collectionId, token] = message.split(':');
    if (!collectionId) return;
    cache.invalidate(collectionId, token ? Number(token) : undefined);
  });
  return {
    tokenChanged(collectionId, tokenId) {
      cache.invalidate(collectionId, tokenId);
      pub.publish(METADATA_INVALIDATION_CHANNEL, tokenId === undefined ? collectionId : `${collectionId}:${tokenId}`).catch(() => {});
    },
    async close() {
      sub.disconnect();
      pub.disconnect();
    },
  };
}

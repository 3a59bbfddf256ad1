/**
 * Public metadata (nft-service.md §2.11, §4.2, §4.3): no authentication, raw JSON documents (no
 * envelope), ETag + Cache-Control (docs/minting.md). Served at the spec paths and at the paths the
 * contract's URIs point to ({METADATA_BASE_URL}/collections/<id>/tokens/<tokenId> and
 * /collections/<id>/metadata.json), so a token's tokenURI resolves on the platform itself.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { and, eq, isNotNull } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import { collections, decks, outputs } from '../../db/schema/index.ts';
import { CACHE_PENDING, collectionDocument, etagMatches, isFinal, render, tokenDocument, type Rendered } from '../../domain/metadata.ts';
import { notFound } from '../../domain/errors.ts';
import { uuid } from '../schemas/common.ts';
import type { BackendDeps } from './app.ts';

const MAX_TOKEN_ID = 2 ** 40; // the contract's limit
const tokenIdParam = z
  .string()
  .regex(/^\d{1,13}$/, 'expected a token id (a non-negative integer)')
  .transform(Number)
  .pipe(z.number().int().min(0).max(MAX_TOKEN_ID, 'token id out of range'));

const tokenParams = z.object({ collectionId: uuid, tokenId: tokenIdParam });
const collectionParams = z.object({ collectionId: uuid });

/** A small in-process cache of final documents (pending ones are always read fresh). */
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

/** One indexed query: the deck by (collection_id, token_id), its collection and its cover output. */
async function loadToken(db: Db, collectionId: string, tokenId: number) {
  const [row] = await db
    .select({
      collection: {
        id: collections.id,
        title: collections.title,
        description: collections.description,
        cover_image_url: collections.cover_image_url,
      },
      output: {
        id: outputs.id,
        status: outputs.status,
        url: outputs.url,
        token_metadata: outputs.token_metadata,
        input_metadata: outputs.input_metadata,
      },
    })
    .from(decks)
    .innerJoin(collections, eq(collections.id, decks.collection_id))
    .leftJoin(outputs, eq(outputs.id, decks.cover_output_id))
    .where(and(eq(decks.collection_id, collectionId), eq(decks.token_id, tokenId), isNotNull(decks.mint_status)))
    .limit(1);
  return row;
}

export async function renderToken(db: Db, metadataBaseUrl: string, collectionId: string, tokenId: number): Promise<Rendered> {
  const row = await loadToken(db, collectionId, tokenId);
  if (!row) {
    const [c] = await db.select({ id: collections.id }).from(collections).where(eq(collections.id, collectionId));
    if (!c) throw notFound(`collection ${collectionId}`);
    throw notFound(`token ${tokenId} of collection ${collectionId}`);
  }
  const output = row.output?.id ? row.output : null;
  return render(tokenDocument({ collection: row.collection, tokenId, output, metadataBaseUrl }), isFinal(output));
}

export async function renderCollection(db: Db, metadataBaseUrl: string, collectionId: string): Promise<Rendered> {
  const [c] = await db
    .select({
      id: collections.id,
      title: collections.title,
      description: collections.description,
      cover_image_url: collections.cover_image_url,
    })
    .from(collections)
    .where(eq(collections.id, collectionId));
  if (!c) throw notFound(`collection ${collectionId}`);
  const r = render(collectionDocument(c, metadataBaseUrl), false);
  return { ...r, cacheControl: 'public, max-age=300' };
}

function send(req: FastifyRequest, reply: FastifyReply, r: Rendered) {
  reply
    .header('etag', r.etag)
    .header('cache-control', r.cacheControl)
    .header('access-control-allow-origin', '*')
    .header('x-content-type-options', 'nosniff');
  if (etagMatches(req.headers['if-none-match'], r.etag)) return reply.code(304).send();
  return reply.type('application/json; charset=utf-8').send(r.body);
}

export function metadataRoutes(app: FastifyInstance, deps: BackendDeps & { metadataCache?: MetadataCache }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const db = deps.database.db;
  const base = deps.metadataBaseUrl;
  const cache = (deps.metadataCache ??= new MetadataCache());
  const opts = (params: z.ZodType) => ({ config: { public: true }, schema: { params, tags: ['metadata'] } });

  const token = async (req: FastifyRequest<{ Params: { collectionId: string; tokenId: number } }>, reply: FastifyReply) => {
    const { collectionId, tokenId } = req.params;
    const key = `${collectionId}:${tokenId}`;
    let rendered = cache.get(key);
    if (!rendered) {
      rendered = await renderToken(db, base, collectionId, tokenId);
      if (rendered.cacheControl !== CACHE_PENDING) cache.set(key, rendered);
    }
    return send(req, reply, rendered);
  };
  const collection = async (req: FastifyRequest<{ Params: { collectionId: string } }>, reply: FastifyReply) => {
    const key = `${req.params.collectionId}`;
    let rendered = cache.get(key);
    if (!rendered) {
      rendered = await renderCollection(db, base, req.params.collectionId);
      cache.set(key, rendered);
    }
    return send(req, reply, rendered);
  };

  r.get('/nft/metadata/:collectionId/collection.json', opts(collectionParams), collection);
  r.get('/nft/metadata/:collectionId/:tokenId', opts(tokenParams), token as never);
  // Where contractParams point (METADATA_BASE_URL defaults to this backend).
  r.get('/collections/:collectionId/metadata.json', opts(collectionParams), collection);
  r.get('/collections/:collectionId/tokens/:tokenId', opts(tokenParams), token as never);
  // Design stage (§4.3).
  r.get('/nft/collections/:collectionId/metadata/:tokenId', opts(tokenParams), token as never);
  return cache;
}

/**
 * Public metadata (docs/api/nft.md §2.11, §4.2, §4.3; docs/minting.md): no authentication, raw JSON
 * documents (no envelope), ETag + Cache-Control. Served at the paths of §4.2 and §4.3 and where the contract's
 * URIs point ({METADATA_BASE_URL}/collections/<id>/tokens/<tokenId> and …/metadata.json), so a
 * token's tokenURI resolves on the platform itself.
 *
 * The documents are rendered to bytes once by the metadata service (the ETag is their hash) and
 * sent as a string with a JSON content type, which Fastify sends as is: the response schemas
 * document the shape without a serializer running on this hot path.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { etagMatches, type Rendered } from '../../domain/metadata.ts';
import { collectionDocument, collectionParams, tokenDocument, tokenParams } from '../schemas/metadata.ts';
import type { NftRouteOptions } from './collections.ts';

function send(req: FastifyRequest, reply: FastifyReply, r: Rendered) {
  reply
    .header('etag', r.etag)
    .header('cache-control', r.cacheControl)
    .header('access-control-allow-origin', '*')
    .header('x-content-type-options', 'nosniff');
  if (etagMatches(req.headers['if-none-match'], r.etag)) return reply.code(304).send();
  return reply.type('application/json; charset=utf-8').send(r.body);
}

const tags = ['metadata'];
const TOKEN =
  'ERC-721 metadata of a minted token: image once the artwork completes (long cache), else pending (10 s cache). 404 for an unknown collection or token; If-None-Match gives 304.';
const COLLECTION = 'ERC-7572 contract-level metadata of a collection (5 min cache).';

export async function metadataRoutes(app: FastifyInstance, { nft }: NftRouteOptions) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const docs = nft.metadata;
  const tokenRoute = (operationId: string, summary: string) => ({
    config: { public: true },
    schema: { operationId, summary, description: TOKEN, tags, params: tokenParams, response: { 200: tokenDocument } },
  });
  const collectionRoute = (operationId: string, summary: string) => ({
    config: { public: true },
    schema: { operationId, summary, description: COLLECTION, tags, params: collectionParams, response: { 200: collectionDocument } },
  });
  const token = async (req: FastifyRequest<{ Params: { collectionId: string; tokenId: number } }>, reply: FastifyReply) =>
    send(req, reply, await docs.token(req.params.collectionId, req.params.tokenId));
  const collection = async (req: FastifyRequest<{ Params: { collectionId: string } }>, reply: FastifyReply) =>
    send(req, reply, await docs.collection(req.params.collectionId));

  r.get(
    '/nft/metadata/:collectionId/collection.json',
    collectionRoute('getCollectionMetadata', 'Collection metadata (ERC-7572)'),
    collection,
  );
  r.get('/nft/metadata/:collectionId/:tokenId', tokenRoute('getTokenMetadata', 'Token metadata (ERC-721)'), token as never);
  // Where contractParams point (METADATA_BASE_URL defaults to this backend).
  r.get(
    '/collections/:collectionId/metadata.json',
    collectionRoute('getContractUri', 'Collection metadata at the contractURI'),
    collection,
  );
  r.get('/collections/:collectionId/tokens/:tokenId', tokenRoute('getTokenUri', 'Token metadata at the tokenURI'), token as never);
  // Design stage (§4.3).
  r.get(
    '/nft/collections/:collectionId/metadata/:tokenId',
    tokenRoute('getDesignTokenMetadata', 'Design stage: token metadata'),
    token as never,
  );
}

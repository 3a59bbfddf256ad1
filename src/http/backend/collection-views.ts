/**
 * The console's views of collections (docs/collections.md "Console views"): the list,
 * overview, tokens (paged, trait filters), one token, rarity, activity, and the cover image upload.
 * Handlers parse, call the views or collection service, and present.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { mintPageUrl } from '../../domain/metadata.ts';
import { presentCollection } from '../present/collections.ts';
import {
  activity,
  activityQuery,
  collectionGasSpent,
  collectionList,
  collectionListQuery,
  collectionOverview,
  coverBody,
  rarity,
  tokenDetail,
  tokenDetailParams,
  tokenList,
  tokenListQuery,
} from '../schemas/collection-views.ts';
import { collectionWithParams as withParamsShape } from '../schemas/collections.ts';
import { collectionIdParams, ok } from '../schemas/common.ts';
import { envelope } from '../schemas/envelope.ts';
import { collectionWithParams } from '../present/collections.ts';
import type { NftRouteOptions } from './collections.ts';

const tags = ['collections'];

export async function collectionViewRoutes(app: FastifyInstance, { nft, metadataBaseUrl, publicBaseUrl }: NftRouteOptions) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const views = nft.views;

  r.get(
    '/nft/collections',
    {
      schema: {
        operationId: 'listCollections',
        summary: 'List collections',
        description:
          "A signed-in user's own collections; the operator (service key) sees every collection, or one user's with user_id. Newest first, cursor pagination (next_cursor), filtered by a title search (q), status and chain_id.",
        tags,
        querystring: collectionListQuery,
        response: { 200: envelope(collectionList) },
      },
    },
    async (req) => ok(await views.list(req.caller, req.query)),
  );

  r.get(
    '/nft/collections/:collectionId/overview',
    {
      schema: {
        operationId: 'getCollectionOverview',
        summary: 'A collection and its contract',
        description:
          'The record beside what its contract says now: supply minted and maximum, mint active, owner, minter, royalty. chain is null before deployment; when the chain does not answer it is null and chain_error says so.',
        tags,
        params: collectionIdParams,
        response: { 200: envelope(collectionOverview) },
      },
    },
    async (req) => {
      const o = await views.overview(req.params.collectionId);
      const page = mintPageUrl(publicBaseUrl ?? metadataBaseUrl, o.collection.id);
      return ok({ ...o, collection: presentCollection(o.collection), share: { page_url: page, embed_url: `${page}?embed=1` } });
    },
  );

  r.get(
    '/nft/collections/:collectionId/gas',
    {
      schema: {
        operationId: 'getCollectionGasSpent',
        summary: 'Gas the platform spent on a collection',
        description:
          "The sum of gasUsed × effectiveGasPrice over the collection's recorded platform transactions with a receipt (its deploy, mints, admin calls; reverted ones too: they cost gas), in wei and ether, with their count. The collection's owner and the operator; another user 403.",
        tags,
        params: collectionIdParams,
        response: { 200: envelope(collectionGasSpent) },
      },
    },
    async (req) => ok(await views.gasSpent(req.caller, req.params.collectionId)),
  );

  r.get(
    '/nft/collections/:collectionId/tokens',
    {
      schema: {
        operationId: 'listTokens',
        summary: 'Tokens of a collection, paged',
        description:
          'Minted tokens by token id with mint state, owner, traits, image and generation state (queued, generating with progress, completed, failed); page from 1, limit up to 100; trait=<trait_type>:<value> (repeatable) keeps tokens having every one.',
        tags: ['minting'],
        params: collectionIdParams,
        querystring: tokenListQuery,
        response: { 200: envelope(tokenList) },
      },
    },
    async (req) => ok(await views.tokens(req.params.collectionId, req.query)),
  );

  r.get(
    '/nft/collections/:collectionId/tokens/:tokenId',
    {
      schema: {
        operationId: 'getToken',
        summary: 'One token in full',
        description:
          'A minted token with its traits, owner and generation state, its ERC-721 document, its transfers (newest first, at most 100) and its chain transactions (mint, MetadataUpdate). 404 for a token the collection has not minted.',
        tags: ['minting'],
        params: tokenDetailParams,
        response: { 200: envelope(tokenDetail) },
      },
    },
    async (req) => ok(await views.token(req.params.collectionId, req.params.tokenId)),
  );

  r.get(
    '/nft/collections/:collectionId/rarity',
    {
      schema: {
        operationId: 'getCollectionRarity',
        summary: 'Trait rarity',
        description: 'For each trait type, each value with the number and share of minted tokens that have it.',
        tags,
        params: collectionIdParams,
        response: { 200: envelope(rarity) },
      },
    },
    async (req) => ok(await views.rarity(req.params.collectionId)),
  );

  r.get(
    '/nft/collections/:collectionId/activity',
    {
      schema: {
        operationId: 'getCollectionActivity',
        summary: 'Mints and transfers of a collection',
        description:
          "The indexed Transfer events of the collection's contract (kind mint when from is the zero address), newest first, cursor pagination. Empty before deployment.",
        tags,
        params: collectionIdParams,
        querystring: activityQuery,
        response: { 200: envelope(activity) },
      },
    },
    async (req) => ok(await views.activity(req.params.collectionId, req.query)),
  );

  r.put(
    '/nft/collections/:collectionId/cover',
    {
      schema: {
        operationId: 'setCollectionCover',
        summary: 'Upload the cover image',
        description:
          "Owner or operator. Stores the image (png, jpeg, webp or gif, its type checked by its bytes, at most 10 MB) and makes it the collection's cover_image_url: the ERC-7572 document's image, and each token's image until its artwork completes.",
        tags,
        params: collectionIdParams,
        body: coverBody,
        response: { 200: envelope(z.object(withParamsShape)) },
      },
    },
    async (req) => ok(collectionWithParams(await nft.collections.setCover(req.caller, req.params.collectionId, req.body), metadataBaseUrl)),
  );
}

/**
 * The console's views, forwarded like every database operation (docs/collections.md
 * "Console views"; the table's shape in forward-table.ts): the collections list, deploy by id,
 * overview, tokens, one token, rarity, activity and the cover image.
 */
import { z } from 'zod';
import { assertUploadSize, decodedLength } from '../../domain/uploads.ts';
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
import { collectionWithParams } from '../schemas/collections.ts';
import { designDeployBody, designDeployFields, designDeployResult } from '../schemas/deploy.ts';
import { asQuery, byCollection, collectionId, type Forward, forward, plusCollection } from './forward-table.ts';

export const VIEW_FORWARDS: Forward[] = [
  forward({
    method: 'GET',
    url: '/api/nft/collections/list',
    operationId: 'adminListCollections',
    summary: 'List collections',
    description:
      "Forwarded to GET /nft/collections: every collection for the operator (or one user's with user_id), a signed-in user's own; newest first, cursor pagination, q (title), status, chain_id.",
    tags: ['collections'],
    input: collectionListQuery,
    backend: (q, req) => ({ method: 'GET', path: 'nft/collections', query: asQuery(q), userId: req.auth.userId }),
    response: collectionList,
  }),
  forward({
    method: 'POST',
    url: '/api/nft/collections/deploy',
    operationId: 'adminDeployCollectionById',
    summary: 'Deploy a collection by its id',
    description:
      'Forwarded to POST /nft/collections/:id/deploy: deploys on NFT_CHAIN_ID from the record alone (name, symbol and URIs from its contractParams, maxSupply its editions, no royalty), each overridable. 409 when deployed or being deployed.',
    tags: ['collections'],
    input: z.object({ collectionId }).extend(designDeployFields.shape).meta(plusCollection(designDeployBody)),
    backend: ({ collectionId, ...body }, req) => ({
      method: 'POST',
      path: `nft/collections/${collectionId}/deploy`,
      body,
      userId: req.auth.userId,
    }),
    response: designDeployResult,
  }),
  forward({
    method: 'GET',
    url: '/api/nft/collections/overview',
    operationId: 'adminCollectionOverview',
    summary: 'A collection and its contract',
    description: 'Forwarded to GET /nft/collections/:id/overview: the record beside what its contract says now.',
    tags: ['collections'],
    input: byCollection,
    backend: (q) => ({ method: 'GET', path: `nft/collections/${q.collectionId}/overview` }),
    response: collectionOverview,
  }),
  forward({
    method: 'GET',
    url: '/api/nft/collections/gas',
    operationId: 'adminCollectionGasSpent',
    summary: 'Gas the platform spent on a collection',
    description:
      "Forwarded to GET /nft/collections/:id/gas: gasUsed × effectiveGasPrice summed over the collection's recorded transactions (deploy, mints, admin calls), in wei and ether, with their count. Owner and operator; another user 403.",
    tags: ['collections'],
    input: byCollection,
    backend: (q) => ({ method: 'GET', path: `nft/collections/${q.collectionId}/gas` }),
    response: collectionGasSpent,
  }),
  forward({
    method: 'GET',
    url: '/api/nft/tokens',
    operationId: 'adminListTokens',
    summary: 'Tokens of a collection, paged',
    description:
      'Forwarded to GET /nft/collections/:id/tokens: traits, owner, image and generation state; trait=<trait_type>:<value> (repeatable) filters.',
    tags: ['minting'],
    input: byCollection.extend(tokenListQuery.shape),
    backend: ({ collectionId, ...q }) => ({ method: 'GET', path: `nft/collections/${collectionId}/tokens`, query: asQuery(q) }),
    response: tokenList,
  }),
  forward({
    method: 'GET',
    url: '/api/nft/token',
    operationId: 'adminGetToken',
    summary: 'One token in full',
    description:
      'Forwarded to GET /nft/collections/:id/tokens/:tokenId: traits, owner, generation state, ERC-721 document, transfers and transactions.',
    tags: ['minting'],
    input: tokenDetailParams,
    backend: (q) => ({ method: 'GET', path: `nft/collections/${q.collectionId}/tokens/${q.tokenId}` }),
    response: tokenDetail,
  }),
  forward({
    method: 'GET',
    url: '/api/nft/collections/rarity',
    operationId: 'adminCollectionRarity',
    summary: 'Trait rarity',
    description: 'Forwarded to GET /nft/collections/:id/rarity: each trait value with its count and share of minted tokens.',
    tags: ['collections'],
    input: byCollection,
    backend: (q) => ({ method: 'GET', path: `nft/collections/${q.collectionId}/rarity` }),
    response: rarity,
  }),
  forward({
    method: 'GET',
    url: '/api/nft/collections/activity',
    operationId: 'adminCollectionActivity',
    summary: 'Mints and transfers of a collection',
    description: 'Forwarded to GET /nft/collections/:id/activity: indexed Transfer events, newest first, cursor pagination.',
    tags: ['collections'],
    input: byCollection.extend(activityQuery.shape),
    backend: ({ collectionId, ...q }) => ({ method: 'GET', path: `nft/collections/${collectionId}/activity`, query: asQuery(q) }),
    response: activity,
  }),
  forward({
    method: 'POST',
    url: '/api/nft/collections/cover',
    operationId: 'adminSetCollectionCover',
    summary: 'Upload the cover image',
    description: "Forwarded to PUT /nft/collections/:id/cover: the image becomes the collection's cover_image_url (the ERC-7572 image).",
    tags: ['collections'],
    input: byCollection.extend(coverBody.shape).meta(plusCollection(coverBody)),
    check: (b) => assertUploadSize(decodedLength(b.base64Data)),
    backend: ({ collectionId, ...body }, req) => ({
      method: 'PUT',
      path: `nft/collections/${collectionId}/cover`,
      body,
      userId: req.auth.userId,
    }),
    response: collectionWithParams,
  }),
];

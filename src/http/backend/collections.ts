/**
 * Backend collection routes (docs/api/nft.md §4.2; docs/collections.md): create, read, update,
 * reset. Handlers parse, call the collection service (which authorizes), and present.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { NftServices } from '../../services/wire-nft.ts';
import { collectionWithParams } from '../present/collections.ts';
import { collectionWithParams as withParamsShape, createCollectionBody, updateCollectionBody } from '../schemas/collections.ts';
import { collectionIdParams, ok } from '../schemas/common.ts';
import { envelope } from '../schemas/envelope.ts';

/** What every NFT route plugin of the backend is registered with. */
export interface NftRouteOptions {
  nft: NftServices;
  metadataBaseUrl: string;
  /** This backend's public URL (the mint page's links); default metadataBaseUrl. */
  publicBaseUrl?: string;
}

const tags = ['collections'];
const withParams = envelope(z.object(withParamsShape));

export async function collectionRoutes(app: FastifyInstance, { nft, metadataBaseUrl }: NftRouteOptions) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const present = (row: Parameters<typeof collectionWithParams>[0]) => ok(collectionWithParams(row, metadataBaseUrl));

  r.post(
    '/nft/collections',
    {
      schema: {
        operationId: 'createCollection',
        summary: 'Create a collection',
        description:
          'Creates a collection record owned by the caller (the platform when the service key names no user), with normalized v2 generation data and the derived contractParams.',
        tags,
        body: createCollectionBody,
        response: { 201: withParams },
      },
    },
    async (req, reply) => reply.code(201).send(present(await nft.collections.create(req.caller, req.body))),
  );

  r.get(
    '/nft/collections/:collectionId',
    {
      schema: {
        operationId: 'getCollection',
        summary: 'Read a collection',
        description: 'The collection record with its deployment state and the contractParams that pre-fill a deployment.',
        tags,
        params: collectionIdParams,
        response: { 200: withParams },
      },
    },
    async (req) => present(await nft.collections.get(req.params.collectionId)),
  );

  r.put(
    '/nft/collections/:collectionId',
    {
      schema: {
        operationId: 'updateCollection',
        summary: 'Update a collection',
        description:
          'Changes the given fields (at least one). Owner or operator only; editions cannot change once deployed nor go below the tokens minted (409).',
        tags,
        params: collectionIdParams,
        body: updateCollectionBody,
        response: { 200: withParams },
      },
    },
    async (req) => present(await nft.collections.update(req.caller, req.params.collectionId, req.body)),
  );

  r.post(
    '/nft/collections/:collectionId/reset',
    {
      schema: {
        operationId: 'resetCollection',
        summary: 'Reset a collection whose contract is gone',
        description:
          'Clears the deployment fields and every token mint state in one transaction (back to draft). Owner or operator only; 409 while the contract still has code on its chain.',
        tags,
        params: collectionIdParams,
        response: { 200: withParams },
      },
    },
    async (req) => present(await nft.collections.reset(req.caller, req.params.collectionId)),
  );
}

/** Backend collection routes (nft-service.md §4.2): create, read, update, reset. */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  assertCanModify,
  collectionWithParams,
  createCollection,
  getCollection,
  resetCollection,
  updateCollection,
} from '../../db/collections.ts';
import { conflict, invalid } from '../../domain/errors.ts';
import { generationDataInput, normalizeGenerationData } from '../../domain/generation-data.ts';
import { blockchain, collectionIdParams, ok, socialOrg, socialPair, uuid } from '../schemas/common.ts';
import type { BackendDeps } from './app.ts';

const title = z.string().trim().min(1, 'title must not be empty').max(200);
const editions = z.number().int().min(1).max(1_000_000);
const price = z.number().nonnegative().finite();

export const createCollectionBody = z
  .object({
    title,
    description: z.string().max(10_000).default(''),
    editions: editions.default(1),
    price: price.default(0),
    blockchain: blockchain.default('ARBITRUM'),
    data: generationDataInput,
    project_id: uuid.optional(),
    social_org: socialOrg.optional(),
    social_identifier: z.string().trim().min(1).max(255).optional(),
  })
  .refine(...socialPair);

export const updateCollectionBody = z.object({
  title: title.optional(),
  description: z.string().max(10_000).optional(),
  editions: editions.optional(),
  price: price.optional(),
  data: generationDataInput.optional(),
});

export function collectionRoutes(app: FastifyInstance, deps: BackendDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps.database;
  const metadataBase = deps.metadataBaseUrl;

  r.post('/nft/collections', { schema: { body: createCollectionBody, tags: ['collections'] } }, async (req, reply) => {
    const body = req.body;
    const row = await createCollection(db, {
      ...body,
      data: normalizeGenerationData(body.data),
      userId: req.auth.userId,
    });
    return reply.code(201).send(ok(collectionWithParams(row, metadataBase)));
  });

  r.get('/nft/collections/:collectionId', { schema: { params: collectionIdParams, tags: ['collections'] } }, async (req) => {
    const row = await getCollection(db, req.params.collectionId);
    return ok(collectionWithParams(row, metadataBase));
  });

  r.put(
    '/nft/collections/:collectionId',
    { schema: { params: collectionIdParams, body: updateCollectionBody, tags: ['collections'] } },
    async (req) => {
      const { data, ...rest } = req.body;
      if (Object.keys(req.body).length === 0) {
        throw invalid('body: give at least one of title, description, editions, price, data');
      }
      const current = await getCollection(db, req.params.collectionId);
      assertCanModify(current, { userId: req.auth.userId, isService: isTrusted(req.auth.method) });
      const row = await updateCollection(db, current.id, {
        ...rest,
        ...(data ? { data: normalizeGenerationData(data) } : {}),
      });
      return ok(collectionWithParams(row, metadataBase));
    },
  );

  r.post('/nft/collections/:collectionId/reset', { schema: { params: collectionIdParams, tags: ['collections'] } }, async (req) => {
    const current = await getCollection(db, req.params.collectionId);
    assertCanModify(current, { userId: req.auth.userId, isService: isTrusted(req.auth.method) });
    if (current.contract_address && current.chain_id !== null && deps.contractExists) {
      if (await deps.contractExists(current.chain_id, current.contract_address)) {
        throw conflict(
          `collection contract ${current.contract_address} still exists on chain ${current.chain_id}; reset is only for a contract that is gone (for example after a dev chain reset)`,
        );
      }
    }
    const row = await resetCollection(db, current.id);
    return ok(collectionWithParams(row, metadataBase));
  });
}

export const isTrusted = (method: string) => method === 'service_key' || method === 'disabled';

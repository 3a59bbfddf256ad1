/**
 * Admin proxy mint and samples routes (nft-service.md §4.1): forwarded to the backend, which
 * mints through the platform's TxSender (docs/minting.md). `Idempotency-Key` is passed through.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { address, txHash, uuid } from '../schemas/common.ts';
import type { AdminDeps } from './app.ts';

const mintBody = z.object({
  collectionId: uuid,
  recipient: address,
  variables: z.record(z.string(), z.unknown()).default({}),
});
const samplesBody = z.object({
  collectionId: uuid,
  count: z
    .number({ message: 'expected an integer from 1 to 10' })
    .int('expected an integer from 1 to 10')
    .min(1, 'count must be 1 to 10')
    .max(10, 'count must be 1 to 10'),
  wallet_address: address,
  chain_id: z.number().int().positive().optional(),
  variables: z.record(z.string(), z.unknown()).optional(),
  tx_hash: txHash.optional(),
});
const byCollection = z.object({ collectionId: uuid, wallet_address: address.optional() });

function passThrough(req: FastifyRequest): Record<string, string> {
  const key = req.headers['idempotency-key'];
  return typeof key === 'string' ? { 'idempotency-key': key } : {};
}

export function adminMintingRoutes(app: FastifyInstance, deps: AdminDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const backend = deps.backend;

  r.post('/api/nft/mint', { schema: { body: mintBody, tags: ['minting'] } }, async (req, reply) => {
    const { collectionId, ...body } = req.body;
    const data = await backend.call<{ mint: unknown; generation: unknown }>('POST', `nft/collections/${collectionId}/mint-and-generate`, {
      body,
      userId: req.auth.userId,
      headers: passThrough(req),
    });
    return reply.code(201).send({ success: true, ...data });
  });

  r.get('/api/nft/mint', { schema: { querystring: z.object({ collectionId: uuid }), tags: ['minting'] } }, async (req) => {
    const data = await backend.call<{ mints: unknown[] }>('GET', `nft/collections/${req.query.collectionId}/mints`);
    return { success: true, ...data };
  });

  r.post('/api/nft/samples', { schema: { body: samplesBody, tags: ['samples'] } }, async (req, reply) => {
    const { collectionId, ...body } = req.body;
    const data = await backend.call<{ samples: unknown[] }>('POST', `nft/collections/${collectionId}/samples`, {
      body,
      userId: req.auth.userId,
    });
    return reply.code(201).send({ success: true, samples: data.samples });
  });

  r.get('/api/nft/samples', { schema: { querystring: byCollection, tags: ['samples'] } }, async (req) => {
    const data = await backend.call<{ samples: unknown[] }>('GET', `nft/collections/${req.query.collectionId}/samples`, {
      query: { wallet_address: req.query.wallet_address },
    });
    return { success: true, samples: data.samples };
  });

  r.get('/api/nft/sample-status', { schema: { querystring: byCollection, tags: ['samples'] } }, async (req) => {
    const data = await backend.call<Record<string, unknown>>('GET', `nft/collections/${req.query.collectionId}/sample-status`, {
      query: { wallet_address: req.query.wallet_address },
      userId: req.auth.userId,
    });
    return { success: true, ...data };
  });
}

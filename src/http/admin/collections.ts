/** Admin proxy collection routes (nft-service.md §4.1): forwarded to the backend. */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { generateCollectionBody } from '../backend/collection-design.ts';
import { createCollectionBody, updateCollectionBody } from '../backend/collections.ts';
import { uuid } from '../schemas/common.ts';
import type { AdminDeps } from './app.ts';

type WithParams = { collection: unknown; contractParams: unknown };

export function adminCollectionRoutes(app: FastifyInstance, deps: AdminDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const backend = deps.backend;

  r.post('/api/nft/collections/create', { schema: { body: createCollectionBody, tags: ['collections'] } }, async (req) => {
    const data = await backend.call<WithParams>('POST', 'nft/collections', { body: req.body, userId: req.auth.userId });
    return { success: true, ...data };
  });

  r.post('/api/nft/collections/generate', { schema: { body: generateCollectionBody, tags: ['collections'] } }, async (req) => {
    const data = await backend.call<{ generated: unknown; collection_id?: string }>('POST', 'nft/collections/generate', {
      body: req.body,
      userId: req.auth.userId,
    });
    return { success: true, ...data };
  });

  r.get(
    '/api/nft/collections/lookup',
    { schema: { querystring: z.object({ collectionId: uuid }), tags: ['collections'] } },
    async (req) => {
      const data = await backend.call<WithParams>('GET', `nft/collections/${req.query.collectionId}`);
      return { success: true, ...data };
    },
  );

  r.put(
    '/api/nft/collections/update',
    { schema: { body: updateCollectionBody.extend({ collectionId: uuid }), tags: ['collections'] } },
    async (req) => {
      const { collectionId, ...patch } = req.body;
      const data = await backend.call<WithParams>('PUT', `nft/collections/${collectionId}`, {
        body: patch,
        userId: req.auth.userId,
      });
      return { success: true, ...data };
    },
  );

  r.post('/api/nft/collections/reset', { schema: { body: z.object({ collectionId: uuid }), tags: ['collections'] } }, async (req) => {
    const data = await backend.call<WithParams>('POST', `nft/collections/${req.body.collectionId}/reset`, {
      userId: req.auth.userId,
    });
    return { success: true, ...data };
  });
}

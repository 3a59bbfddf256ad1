/** Admin proxy ownership routes (nft-service.md §4.1): forwarded to the backend's §4.2 routes. */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { uuid } from '../schemas/common.ts';
import type { AdminDeps } from './app.ts';

export function adminOwnershipRoutes(app: FastifyInstance, deps: AdminDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const backend = deps.backend;
  const tags = ['ownership'];

  r.get('/api/nft/ownership', { schema: { querystring: z.object({ collectionId: uuid }), tags } }, async (req) => {
    const tokens = await backend.call<unknown[]>('GET', `nft/collections/${req.query.collectionId}/ownership`);
    return { success: true, tokens };
  });

  r.get('/api/nft/ownership/transfers', { schema: { querystring: z.object({ deckId: uuid }), tags } }, async (req) => {
    const transfers = await backend.call<unknown[]>('GET', `nft/decks/${req.query.deckId}/transfers`);
    return { success: true, transfers };
  });

  r.get('/api/nft/ownership/indexer-status', { schema: { tags } }, async () => {
    const state = await backend.call<unknown>('GET', 'nft/indexer/status');
    return { success: true, state };
  });
}

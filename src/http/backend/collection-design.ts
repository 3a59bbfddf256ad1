/**
 * Collection definitions from a text concept (nft-service.md §4.1.1, §4.2 generate, §4.3 setup).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createCollection } from '../../db/collections.ts';
import { createConceptExpander } from '../../generation/concept/index.ts';
import { blockchain, ok, socialOrg, socialPair, uuid } from '../schemas/common.ts';
import type { BackendDeps } from './app.ts';

export const generateCollectionBody = z
  .object({
    concept: z.string().trim().min(3, 'concept must be at least 3 characters').max(2000),
    save: z.boolean().default(false),
    blockchain: blockchain.default('ARBITRUM'),
    project_id: uuid.optional(),
    social_org: socialOrg.optional(),
    social_identifier: z.string().trim().min(1).max(255).optional(),
  })
  .refine(...socialPair);

const setupBody = z.object({
  prompt: z.string().trim().min(3, 'prompt must be at least 3 characters').max(2000),
  style_preferences: z.string().trim().max(500).optional(),
});

export function collectionDesignRoutes(app: FastifyInstance, deps: BackendDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const expander = deps.conceptExpander ?? createConceptExpander(deps.config);

  r.post('/nft/collections/generate', { schema: { body: generateCollectionBody, tags: ['collections'] } }, async (req) => {
    const body = req.body;
    const generated = await expander.expand({ concept: body.concept });
    if (!body.save) return ok({ generated });
    const row = await createCollection(deps.database.db, {
      title: generated.title,
      description: generated.description,
      editions: 100,
      price: 0,
      blockchain: body.blockchain,
      data: generated.data,
      project_id: body.project_id ?? null,
      social_org: body.social_org ?? null,
      social_identifier: body.social_identifier ?? null,
      userId: req.auth.userId,
    });
    return ok({ generated, collection_id: row.id });
  });

  r.post('/nft/collections/setup', { schema: { body: setupBody, tags: ['collections'] } }, async (req) => {
    const generated = await expander.expand({ concept: req.body.prompt, style: req.body.style_preferences });
    return ok(generated.data);
  });
}

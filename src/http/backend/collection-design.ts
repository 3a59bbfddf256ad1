/** Collection definitions from a text concept (docs/api/nft.md §4.1.1, §4.2 generate, §4.3 setup; docs/collections.md). */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { generateCollectionBody, generateCollectionResult, generationData, setupCollectionBody } from '../schemas/collections.ts';
import { presentGenerated } from '../present/collections.ts';
import { ok } from '../schemas/common.ts';
import { envelope } from '../schemas/envelope.ts';
import type { NftRouteOptions } from './collections.ts';

const tags = ['collections'];

export async function collectionDesignRoutes(app: FastifyInstance, { nft }: NftRouteOptions) {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.post(
    '/nft/collections/generate',
    {
      schema: {
        operationId: 'generateCollectionFromConcept',
        summary: 'Generate a collection definition from a concept',
        description:
          'Expands a concept into {title, description, prompt, variables, data} (a language model when configured, else the offline expander). With save: true the collection is created too and its id returned.',
        tags,
        body: generateCollectionBody,
        response: { 200: envelope(z.object(generateCollectionResult)) },
      },
    },
    async (req) => {
      const { generated, collection } = await nft.collections.generate(req.caller, req.body);
      return ok({ generated: presentGenerated(generated), ...(collection ? { collection_id: collection.id } : {}) });
    },
  );

  r.post(
    '/nft/collections/setup',
    {
      schema: {
        operationId: 'setupCollection',
        summary: 'Design-stage setup: generation data from a prompt',
        description: 'Only the v2 data object of a definition generated from the prompt; style_preferences steer the style variable.',
        tags,
        body: setupCollectionBody,
        response: { 200: envelope(generationData) },
      },
    },
    async (req) => ok(presentGenerated({ data: await nft.collections.setup(req.body.prompt, req.body.style_preferences) } as never).data),
  );
}

/**
 * Develop routes (docs/api/content.md §4.1, §3 Output; docs/jobs.md): GET /outputs/develop/collections,
 * PUT /nft/collections/:collectionId/global (the operator marks a collection global) and
 * POST /outputs/:id/develop (which needs the job queue: 503 without one).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DevelopService } from '../../services/develop.ts';
import { NO_QUEUE } from '../../services/generation.ts';
import { requires } from '../plugins/availability.ts';
import { collectionIdParams, ok } from '../schemas/common.ts';
import {
  developBody,
  developCollectionsQuery,
  developCollectionsResponse,
  developResponse,
  globalCollectionResponse,
  outputIdParams,
  setGlobalBody,
} from '../schemas/outputs.ts';
import { needUser } from './preconditions.ts';

export interface DevelopRoutesOptions {
  develop: DevelopService;
  /** Whether a job queue is configured (POST /outputs/:id/develop needs it). */
  hasQueue: boolean;
}

export const developRoutes: FastifyPluginAsync<DevelopRoutesOptions> = async (app, { develop, hasQueue }) => {
  const tags = ['outputs'];

  app.withTypeProvider<ZodTypeProvider>().get(
    '/outputs/develop/collections',
    {
      preValidation: needUser,
      schema: {
        tags,
        operationId: 'listDevelopCollections',
        summary: 'Global collections to develop with',
        description: 'Global collections (for example image to video), by title, optionally only those taking `input_type`.',
        querystring: developCollectionsQuery,
        response: { 200: developCollectionsResponse },
      },
    },
    async (req) => ok(await develop.collections(req.query.input_type)),
  );

  app.withTypeProvider<ZodTypeProvider>().put(
    '/nft/collections/:collectionId/global',
    {
      schema: {
        tags: ['collections'],
        operationId: 'setCollectionGlobal',
        summary: 'Mark a collection global (develop)',
        description:
          'The operator (service key) only: `is_global` true (default) with `input_type` and `output_type` lists the collection in GET /outputs/develop/collections; false makes it ordinary again.',
        params: collectionIdParams,
        body: setGlobalBody,
        response: { 200: globalCollectionResponse },
      },
    },
    async (req) =>
      ok(
        await develop.setGlobal(req.caller, req.params.collectionId, {
          isGlobal: req.body.is_global,
          ...(req.body.input_type ? { inputType: req.body.input_type } : {}),
          ...(req.body.output_type ? { outputType: req.body.output_type } : {}),
        }),
      ),
  );

  await app.register(async (scope) => {
    requires(scope, () => hasQueue, NO_QUEUE);
    scope.withTypeProvider<ZodTypeProvider>().post(
      '/outputs/:id/develop',
      {
        preValidation: needUser,
        schema: {
          tags,
          operationId: 'developOutput',
          summary: 'Develop an output',
          description:
            "A new pending output made from a completed one with a global collection (its URL as ref_image_1); it joins the source's deck. For those who may change the source output.",
          params: outputIdParams,
          body: developBody,
          response: { 202: developResponse },
        },
      },
      async (req, reply) => {
        const { result, source, target } = await develop.develop(req.caller, req.params.id, {
          collectionId: req.body.collection_id,
          ...(req.body.variables ? { variables: req.body.variables } : {}),
        });
        return reply.code(202).send(
          ok({
            job_id: result.jobId,
            output_id: result.outputId,
            status: 'pending' as const,
            develop_collection: { id: target.id, title: target.title, input_type: target.input_type, output_type: target.output_type },
            source_output: { id: source.id, url: source.url, mime_type: source.mime_type },
          }),
        );
      },
    );
  });
};

/**
 * Generation routes (docs/api/content.md §4.3, docs/api/nft.md §4.2.1, docs/jobs.md):
 * POST /api/collections/:id/generate (legacy alias /generator/v2/:id),
 * POST /collections/:id/generations, POST /api/jobs (the job API of docs/api/content.md §6.3: the
 * same submission with the collection in the body) and POST /api/jobs/:id/retry. They need the job queue:
 * without one every route here answers 503.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { OUTPUT_SOURCES } from '../../domain/content-statuses.ts';
import { NO_QUEUE, type GenerationService } from '../../services/generation.ts';
import { requireUser } from '../plugins/auth.ts';
import { requires } from '../plugins/availability.ts';
import { collectionAsIdParams, ok } from '../schemas/common.ts';
import {
  generateBody,
  generateResponse,
  generationsBody,
  generationsResponse,
  jobParams,
  retryResponse,
  submitJobBody,
} from '../schemas/jobs.ts';

export interface GenerationRoutesOptions {
  /** Absent when the backend has no job queue. */
  generation?: GenerationService;
}

/** A user (or the service key, with or without a user) generates; others get 401 before validation. */
const needCaller = async (req: FastifyRequest) => {
  if (req.caller.kind !== 'service') requireUser(req);
};

export const generationRoutes: FastifyPluginAsync<GenerationRoutesOptions> = async (app, opts) => {
  requires(app, () => opts.generation !== undefined, NO_QUEUE);
  // Present whenever a handler runs: `requires` answered 503 otherwise.
  const generation = () => opts.generation as GenerationService;
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['jobs'];

  const generate = async (req: FastifyRequest, params: { id: string }, body: z.infer<typeof generateBody>) => {
    const result = await generation().start(req.caller, {
      collectionId: params.id,
      variables: body.variables,
      source: 'direct_api',
      jobType: 'collection_generation',
      ...(body.workflow_id ? { workflowId: body.workflow_id } : {}),
      ...(body.workflow_priority ? { priority: body.workflow_priority } : {}),
    });
    return ok({ jobId: result.jobId });
  };
  const description =
    'Validates the collection data, resolves the variables, charges credits (users), creates the deck, pending output and job, queues the first step and returns at once (202); the job runs asynchronously.';
  for (const [path, operationId, summary] of [
    ['/api/collections/:id/generate', 'generateCollection', 'Generate from a collection'],
    ['/generator/v2/:id', 'generateCollectionLegacy', 'Generate from a collection (legacy path)'],
  ] as const) {
    r.post(
      path,
      {
        preValidation: needCaller,
        schema: {
          tags,
          operationId,
          summary,
          description,
          params: collectionAsIdParams,
          body: generateBody,
          response: { 202: generateResponse },
        },
      },
      async (req, reply) => reply.code(202).send(await generate(req, req.params, req.body)),
    );
  }

  /** The generations body (with the collection id) → one generation. */
  const submit = async (req: FastifyRequest, collectionId: string, b: z.infer<typeof generationsBody>) => {
    const source = b.job_type && (OUTPUT_SOURCES as readonly string[]).includes(b.job_type) ? b.job_type : 'direct_api';
    return generation().start(req.caller, {
      collectionId,
      variables: b.variables,
      source,
      jobType: b.job_type ?? 'collection_generation',
      ...(b.workflow_id ? { workflowId: b.workflow_id } : {}),
      ...(b.workflow_priority ? { priority: b.workflow_priority } : {}),
      ...(b.deck_id ? { deckId: b.deck_id } : {}),
      ...(b.mint_state ? { mintState: b.mint_state } : {}),
      ...(b.social_org && b.social_identifier ? { socialOrg: b.social_org, socialIdentifier: b.social_identifier } : {}),
      ...(b.social_pfp ? { socialPfp: b.social_pfp } : {}),
    });
  };

  r.post(
    '/collections/:id/generations',
    {
      preValidation: needCaller,
      schema: {
        tags,
        operationId: 'createGeneration',
        summary: 'Start a generation',
        description: `${description} Optionally into a given deck (which the caller may add to), for a custodial identity, or with \`mint_state\` (service key only) for a minted token's deck.`,
        params: collectionAsIdParams,
        body: generationsBody,
        response: { 202: generationsResponse },
      },
    },
    async (req, reply) => reply.code(202).send(ok(await submit(req, req.params.id, req.body))),
  );

  r.post(
    '/api/jobs',
    {
      preValidation: needCaller,
      schema: {
        tags,
        operationId: 'submitJob',
        summary: 'Submit a job',
        description: `The job API (docs/api/content.md §6.3, span job.submit): the body of POST /collections/:id/generations with \`collection_id\`. ${description}`,
        body: submitJobBody,
        response: { 202: generationsResponse },
      },
    },
    async (req, reply) => {
      const { collection_id, ...rest } = req.body;
      return reply.code(202).send(ok(await submit(req, collection_id, rest)));
    },
  );

  r.post(
    '/api/jobs/:id/retry',
    {
      schema: {
        tags,
        operationId: 'retryJob',
        summary: 'Retry a job',
        description:
          "Same job id, retry_count + 1, the previous state backed up, the generation re-run from its first step. For failed jobs and stuck ones; 409 after 3 retries or for a completed or still moving job. The job's owner and the service key; 404 for others.",
        params: jobParams,
        response: { 200: retryResponse },
      },
    },
    async (req) => ok(await generation().retry(req.caller, req.params.id)),
  );
};

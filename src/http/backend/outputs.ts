/** Output routes (docs/api/content.md §4.1, without develop): create, complete, fail, hide, get, move, list, stats. */
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { OutputService } from '../../services/outputs.ts';
import { presentCompletion, presentOutput, presentOutputDetail, presentOutputListItem } from '../present/outputs.ts';
import { collectionIdParams, ok } from '../schemas/common.ts';
import {
  completeOutputBody,
  completionResponse,
  createOutputBody,
  failOutputBody,
  failureResponse,
  laterOutputIdParams,
  listOutputsQuery,
  moveOutputBody,
  moveResponse,
  outputDetailResponse,
  outputIdParams,
  outputListResponse,
  outputResponse,
  outputStatsResponse,
  statusResponse,
} from '../schemas/outputs.ts';
import { needUser } from './preconditions.ts';

export interface OutputRoutesOptions {
  outputs: OutputService;
}

const WHO = 'Needs a user_id (a user credential, or the service key with a user_id header).';
const CHANGE = 'For the output owner, the owner of its collection, or the service key (403 otherwise).';

export const outputRoutes: FastifyPluginAsync<OutputRoutesOptions> = async (app, { outputs }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['outputs'];

  r.post(
    '/outputs',
    {
      preValidation: needUser,
      schema: {
        tags,
        operationId: 'createOutput',
        summary: 'Create a pending output',
        description: `A pending output in a collection; it joins \`deck_id\`, or the caller's newest active deck (created when none) with \`auto_create_deck\`. Custodial fields record the social identity. ${WHO}`,
        body: createOutputBody,
        response: { 201: outputResponse },
      },
    },
    async (req, reply) => {
      const { deck_id, ...body } = req.body;
      const row = await outputs.create(req.caller, { ...body, ...(deck_id ? { deck_id } : {}) });
      return reply.code(201).send(ok(presentOutput(row)));
    },
  );

  r.patch(
    '/outputs/:id/complete',
    {
      preValidation: needUser,
      schema: {
        tags,
        operationId: 'completeOutput',
        summary: 'Complete an output',
        description: `pending or processing → completed with its url; a thumbnail is made for images in our storage. 409 from other states. ${CHANGE}`,
        params: outputIdParams,
        body: completeOutputBody,
        response: { 200: completionResponse },
      },
    },
    async (req) => ok(presentCompletion(await outputs.complete(req.caller, req.params.id, req.body))),
  );

  r.patch(
    '/outputs/:id/fail',
    {
      preValidation: needUser,
      schema: {
        tags,
        operationId: 'failOutput',
        summary: 'Fail an output',
        description: `pending or processing → failed with an error message. 409 from other states. ${CHANGE}`,
        params: laterOutputIdParams,
        body: failOutputBody,
        response: { 200: failureResponse },
      },
    },
    async (req) => {
      const row = await outputs.fail(req.caller, req.params.id, req.body?.error_message);
      return ok({ id: row.id, status: row.status, error_message: row.error_message });
    },
  );

  r.delete(
    '/outputs/:id',
    {
      preValidation: needUser,
      schema: {
        tags,
        operationId: 'hideOutput',
        summary: 'Hide an output',
        description: `Any state → hidden (gone from user-facing views; its deck's count drops). Hiding twice is a no-op. ${CHANGE}`,
        params: laterOutputIdParams,
        response: { 200: statusResponse },
      },
    },
    async (req) => {
      const row = await outputs.hide(req.caller, req.params.id);
      return ok({ id: row.id, status: row.status });
    },
  );

  r.get(
    '/outputs/:id',
    {
      preValidation: needUser,
      schema: {
        tags,
        operationId: 'getOutput',
        summary: 'Get an output',
        description: `The output with its deck and collection. A hidden output is 404 except for those who may change it. ${WHO}`,
        params: outputIdParams,
        response: { 200: outputDetailResponse },
      },
    },
    async (req) => ok(presentOutputDetail(await outputs.get(req.caller, req.params.id))),
  );

  r.patch(
    '/outputs/:id/deck',
    {
      preValidation: needUser,
      schema: {
        tags,
        operationId: 'moveOutput',
        summary: 'Move an output to another deck',
        description: `Into another deck of its collection (which the caller may add to), or out of any deck with null. Locked decks neither take nor give outputs (409). ${CHANGE}`,
        params: outputIdParams,
        body: moveOutputBody,
        response: { 200: moveResponse },
      },
    },
    async (req) => {
      const row = await outputs.move(req.caller, req.params.id, req.body.deck_id);
      return ok({ id: row.id, deck_id: row.deck_id });
    },
  );

  r.get(
    '/collections/:collectionId/outputs',
    {
      preValidation: needUser,
      schema: {
        tags,
        operationId: 'listCollectionOutputs',
        summary: "A collection's outputs",
        description: `Visible (not hidden) outputs, newest first, filtered by deck, status or custodial identity; limit 1–500 (default 50), offset. ${WHO}`,
        params: collectionIdParams,
        querystring: listOutputsQuery,
        response: { 200: outputListResponse },
      },
    },
    async (req) => {
      const q = req.query;
      const rows = await outputs.list(req.params.collectionId, { ...q, limit: q.limit ?? 50, offset: q.offset ?? 0 });
      return ok(rows.map(presentOutputListItem));
    },
  );

  r.get(
    '/collections/:collectionId/outputs/stats',
    {
      preValidation: needUser,
      schema: {
        tags,
        operationId: 'collectionOutputStats',
        summary: "A collection's output counts",
        description: `Outputs by status; \`total\` counts hidden ones too. ${WHO}`,
        params: collectionIdParams,
        response: { 200: outputStatsResponse },
      },
    },
    async (req) => ok(await outputs.stats(req.params.collectionId)),
  );
};

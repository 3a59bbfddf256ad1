/** Backend deck routes (content-service.md §4.2). */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  archiveDeck,
  assertCanModifyDeck,
  createDeck,
  DECK_STATUSES,
  deckDetail,
  deckStats,
  getDeck,
  listCollectionDecks,
  listUserDecks,
  lockDeck,
  presentDeck,
  publishDeck,
  updateDeck,
} from '../../db/decks.ts';
import { invalid } from '../../domain/errors.ts';
import { requireUser } from '../plugins/auth.ts';
import { collectionIdParams, idParams, ok, socialOrg, uuid } from '../schemas/common.ts';
import type { BackendDeps } from './app.ts';
import { callerOf, needUser, socialIdentifier } from './outputs.ts';

const name = z.string().trim().min(1, 'name must not be empty').max(200);
const description = z.string().max(10_000);
const together = (b: { social_org?: unknown; social_identifier?: unknown }) =>
  (b.social_org === undefined) === (b.social_identifier === undefined);
const togetherRule = { message: 'social_org and social_identifier go together', path: ['social_identifier'] };

const createBody = z
  .object({
    collection_id: uuid,
    name: name.optional(),
    description: description.optional(),
    social_org: socialOrg.optional(),
    social_identifier: socialIdentifier.optional(),
  })
  .refine(together, togetherRule);

const patchBody = z.object({
  name: name.optional(),
  description: description.optional(),
  cover_output_id: uuid.nullable().optional(),
  status: z.enum(DECK_STATUSES).optional(),
});

const socialQuery = z
  .object({ social_org: socialOrg.optional(), social_identifier: socialIdentifier.optional() })
  .refine(together, togetherRule);

export function deckRoutes(app: FastifyInstance, deps: BackendDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps.database;
  const tags = ['decks'];

  /** Loads the deck (404) and checks the caller may change it (403). */
  const modifiable = async (req: Parameters<typeof callerOf>[0], id: string) => {
    const caller = callerOf(req);
    const deck = await getDeck(db, id);
    await assertCanModifyDeck(db, deck, caller);
    return deck;
  };

  r.post('/decks', { preValidation: needUser, schema: { body: createBody, tags } }, async (req, reply) => {
    const userId = requireUser(req);
    const row = await createDeck(db, { ...req.body, userId });
    return reply.code(201).send(ok(presentDeck(row)));
  });

  r.get('/decks', { preValidation: needUser, schema: { querystring: socialQuery, tags } }, async (req) => {
    const userId = requireUser(req);
    return ok(await listUserDecks(db, userId, req.query));
  });

  r.get('/decks/:id', { preValidation: needUser, schema: { params: idParams, tags } }, async (req) => {
    requireUser(req);
    return ok(await deckDetail(db, req.params.id));
  });

  r.patch('/decks/:id', { preValidation: needUser, schema: { params: idParams, body: patchBody, tags } }, async (req) => {
    if (Object.values(req.body).every((v) => v === undefined)) {
      throw invalid('body: give at least one of name, description, cover_output_id, status');
    }
    await modifiable(req, req.params.id);
    const row = await updateDeck(db, req.params.id, req.body);
    return ok({ ...presentDeck(row) });
  });

  r.delete('/decks/:id', { preValidation: needUser, schema: { params: idParams, tags } }, async (req) => {
    await modifiable(req, req.params.id);
    const row = await archiveDeck(db, req.params.id);
    return ok({ id: row.id, status: row.status });
  });

  r.post('/decks/:id/publish', { preValidation: needUser, schema: { params: idParams, tags } }, async (req) => {
    await modifiable(req, req.params.id);
    const row = await publishDeck(db, req.params.id);
    return ok({ id: row.id, status: row.status, published_at: row.published_at?.toISOString() ?? null });
  });

  r.post('/decks/:id/lock', { preValidation: needUser, schema: { params: idParams, tags } }, async (req) => {
    await modifiable(req, req.params.id);
    const row = await lockDeck(db, req.params.id);
    return ok({ id: row.id, status: row.status });
  });

  r.get('/decks/:id/stats', { preValidation: needUser, schema: { params: idParams, tags } }, async (req) => {
    requireUser(req);
    return ok(await deckStats(db, req.params.id));
  });

  r.get(
    '/collections/:collectionId/decks',
    { preValidation: needUser, schema: { params: collectionIdParams, querystring: socialQuery, tags } },
    async (req) => {
      requireUser(req);
      return ok(await listCollectionDecks(db, req.params.collectionId, req.query));
    },
  );
}

/** Deck routes (docs/api/content.md §4.2). */
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { iso } from '../../domain/time.ts';
import type { DeckService } from '../../services/decks.ts';
import { presentCollectionDeck, presentDeck, presentDeckDetail, presentUserDeck } from '../present/decks.ts';
import { collectionIdParams, ok } from '../schemas/common.ts';
import {
  collectionDecksResponse,
  createDeckBody,
  deckDetailResponse,
  deckParams,
  deckResponse,
  deckStatusResponse,
  patchDeckBody,
  publishResponse,
  socialQuery,
  userDecksResponse,
} from '../schemas/decks.ts';
import { deckStatsResponse } from '../schemas/outputs.ts';
import { needUser } from './preconditions.ts';

export interface DeckRoutesOptions {
  decks: DeckService;
}

const WHO = 'Needs a user_id (a user credential, or the service key with a user_id header).';
const CHANGE = 'For the deck owner, the owner of its collection, or the service key (403 otherwise).';

export const deckRoutes: FastifyPluginAsync<DeckRoutesOptions> = async (app, { decks }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['decks'];

  r.post(
    '/decks',
    {
      preValidation: needUser,
      schema: {
        tags,
        operationId: 'createDeck',
        summary: 'Create a deck',
        description: `An active, empty deck in a collection, owned by the caller (held for a social identity with the custodial fields). ${WHO}`,
        body: createDeckBody,
        response: { 201: deckResponse },
      },
    },
    async (req, reply) => reply.code(201).send(ok(presentDeck(await decks.create(req.caller, req.body)))),
  );

  r.get(
    '/decks',
    {
      preValidation: needUser,
      schema: {
        tags,
        operationId: 'listMyDecks',
        summary: "The caller's decks",
        description: `The caller's decks across collections, newest first, archived ones left out; optionally one custodial identity's. ${WHO}`,
        querystring: socialQuery,
        response: { 200: userDecksResponse },
      },
    },
    async (req) => ok((await decks.mine(req.caller, req.query)).map(presentUserDeck)),
  );

  r.get(
    '/decks/:id',
    {
      preValidation: needUser,
      schema: {
        tags,
        operationId: 'getDeck',
        summary: 'Get a deck',
        description: `The deck, its collection and its visible outputs oldest first with their position. ${WHO}`,
        params: deckParams,
        response: { 200: deckDetailResponse },
      },
    },
    async (req) => ok(presentDeckDetail(await decks.get(req.params.id))),
  );

  r.patch(
    '/decks/:id',
    {
      preValidation: needUser,
      schema: {
        tags,
        operationId: 'updateDeck',
        summary: 'Change a deck',
        description: `Name, description, cover output (a visible output of the deck) or status (any, from any status; a locked deck does not go straight back to active, 409). ${CHANGE}`,
        params: deckParams,
        body: patchDeckBody,
        response: { 200: deckResponse },
      },
    },
    async (req) => ok(presentDeck(await decks.update(req.caller, req.params.id, req.body))),
  );

  r.delete(
    '/decks/:id',
    {
      preValidation: needUser,
      schema: {
        tags,
        operationId: 'archiveDeck',
        summary: 'Archive a deck',
        description: `Soft delete: the deck becomes archived, from any status (it may return to active through PATCH). ${CHANGE}`,
        params: deckParams,
        response: { 200: deckStatusResponse },
      },
    },
    async (req) => {
      const row = await decks.archive(req.caller, req.params.id);
      return ok({ id: row.id, status: row.status });
    },
  );

  r.post(
    '/decks/:id/publish',
    {
      preValidation: needUser,
      schema: {
        tags,
        operationId: 'publishDeck',
        summary: 'Publish a deck',
        description: `The deck becomes published, from any status; published_at is set once. ${CHANGE}`,
        params: deckParams,
        response: { 200: publishResponse },
      },
    },
    async (req) => {
      const row = await decks.publish(req.caller, req.params.id);
      return ok({ id: row.id, status: row.status, published_at: iso(row.published_at) });
    },
  );

  r.post(
    '/decks/:id/lock',
    {
      preValidation: needUser,
      schema: {
        tags,
        operationId: 'lockDeck',
        summary: 'Lock a deck',
        description: `The deck becomes locked: no new outputs, none moved in or out, until it is archived or published (not straight back to active). Locking twice is a no-op. ${CHANGE}`,
        params: deckParams,
        response: { 200: deckStatusResponse },
      },
    },
    async (req) => {
      const row = await decks.lock(req.caller, req.params.id);
      return ok({ id: row.id, status: row.status });
    },
  );

  r.get(
    '/decks/:id/stats',
    {
      preValidation: needUser,
      schema: {
        tags,
        operationId: 'deckStats',
        summary: "A deck's output counts",
        description: `The deck's outputs by status (hidden ones not counted). ${WHO}`,
        params: deckParams,
        response: { 200: deckStatsResponse },
      },
    },
    async (req) => ok(await decks.stats(req.params.id)),
  );

  r.get(
    '/collections/:collectionId/decks',
    {
      preValidation: needUser,
      schema: {
        tags,
        operationId: 'listCollectionDecks',
        summary: "A collection's decks",
        description: `The collection's decks, newest first, archived ones left out; optionally one custodial identity's. ${WHO}`,
        params: collectionIdParams,
        querystring: socialQuery,
        response: { 200: collectionDecksResponse },
      },
    },
    async (req) => ok((await decks.listForCollection(req.params.collectionId, req.query)).map(presentCollectionDeck)),
  );
};

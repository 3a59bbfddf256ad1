/**
 * The public feed for the mini application (docs/api/content.md §4.7). Public: the mini app
 * shows it before anyone signs in (a decision: docs/api/content.md §5.4 leaves feed authentication open).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { FeedService } from '../../services/feed.ts';
import { presentFeedCollection, presentFeedOutput, type StreamSettings } from '../present/feed.ts';
import {
  deckOutputsParams,
  deckOutputsQuery,
  deckOutputsResponse,
  featuredQuery,
  featuredResponse,
  trendingQuery,
  trendingResponse,
} from '../schemas/feed.ts';

export interface FeedRoutesOptions {
  feed: FeedService;
  stream: StreamSettings;
}

export const feedRoutes: FastifyPluginAsync<FeedRoutesOptions> = async (app, { feed, stream }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['feed'];

  r.get(
    '/miniapp/collections/trending',
    {
      config: { public: true },
      schema: {
        tags,
        operationId: 'feedTrendingCollections',
        summary: 'Trending collections',
        description:
          'Collections with completed outputs, most completed outputs in the last `trending_hours` first, each with its featured deck. Cursor paginated (`after`). Public.',
        querystring: trendingQuery,
        response: { 200: trendingResponse },
      },
    },
    async (req) => {
      const q = req.query;
      const page = await feed.trending({
        limit: q.limit,
        ...(q.after ? { after: q.after } : {}),
        outputsPerDeck: q.outputs_per_deck,
        trendingHours: q.trending_hours,
        exclude: q.exclude ?? [],
      });
      return { data: page.items.map((item) => presentFeedCollection(item, stream)), cursor: page.cursor, error: null };
    },
  );

  r.get(
    '/miniapp/collections/featured',
    {
      config: { public: true },
      schema: {
        tags,
        operationId: 'feedFeaturedCollection',
        summary: 'The featured collection',
        description: 'The newest collection flagged featured, else the most trending one, with its featured deck. 404 when none. Public.',
        querystring: featuredQuery,
        response: { 200: featuredResponse },
      },
    },
    async (req) => ({ data: presentFeedCollection(await feed.featured(req.query.outputs_per_deck), stream), error: null }),
  );

  r.get(
    '/miniapp/decks/:deckId/outputs',
    {
      config: { public: true },
      schema: {
        tags,
        operationId: 'feedDeckOutputs',
        summary: "A deck's outputs",
        description: 'Completed outputs of a deck, newest first, cursor paginated (`after`). Public.',
        params: deckOutputsParams,
        querystring: deckOutputsQuery,
        response: { 200: deckOutputsResponse },
      },
    },
    async (req) => {
      const page = await feed.deckOutputs(req.params.deckId, {
        limit: req.query.limit,
        ...(req.query.after ? { after: req.query.after } : {}),
      });
      const cover = page.deck.cover_image_url ?? null;
      return {
        data: {
          deck_id: page.deck.id,
          deck_name: page.deck.name,
          outputs: page.outputs.map((o) => presentFeedOutput(o, page.creator, cover, stream)),
        },
        cursor: page.cursor,
        error: null,
      };
    },
  );
};

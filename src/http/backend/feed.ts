/**
 * The public feed for the mini application (content-service.md §4.7). Public: the mini app
 * shows it before anyone signs in (a decision: the spec leaves feed authentication open).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { deckFeedOutputs, featuredCollection, trendingCollections, type StreamSettings } from '../../db/feed.ts';
import { queryInt, UUID_RE, uuid } from '../schemas/common.ts';
import type { BackendDeps } from './app.ts';

const excludeList = z
  .string()
  .max(10_000)
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  )
  .refine((ids) => ids.every((id) => UUID_RE.test(id)), 'expected comma-separated collection UUIDs')
  .refine((ids) => ids.length <= 200, 'at most 200 excluded collections');

const cursorParam = z.string().min(1).max(500);

export function feedRoutes(app: FastifyInstance, deps: BackendDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps.database;
  const stream: StreamSettings = {
    hlsBase: deps.config.VIDEO_STREAM_BASE_URL.replace(/\/+$/, ''),
    thumbnailBase: deps.config.VIDEO_THUMBNAIL_BASE_URL.replace(/\/+$/, ''),
  };

  r.get(
    '/miniapp/collections/trending',
    {
      config: { public: true },
      schema: {
        tags: ['feed'],
        querystring: z.object({
          limit: queryInt(1, 100).default(20),
          after: cursorParam.optional(),
          outputs_per_deck: queryInt(0, 50).default(6),
          trending_hours: queryInt(1, 24 * 365).default(48),
          exclude: excludeList.optional(),
        }),
      },
    },
    async (req) => {
      const q = req.query;
      const page = await trendingCollections(
        db,
        {
          limit: q.limit,
          after: q.after,
          outputsPerDeck: q.outputs_per_deck,
          trendingHours: q.trending_hours,
          exclude: q.exclude ?? [],
        },
        stream,
      );
      return { data: page.items, cursor: page.cursor, error: null };
    },
  );

  r.get(
    '/miniapp/collections/featured',
    {
      config: { public: true },
      schema: { tags: ['feed'], querystring: z.object({ outputs_per_deck: queryInt(0, 50).default(6) }) },
    },
    async (req) => ({ data: await featuredCollection(db, req.query.outputs_per_deck, stream), error: null }),
  );

  r.get(
    '/miniapp/decks/:deckId/outputs',
    {
      config: { public: true },
      schema: {
        tags: ['feed'],
        params: z.object({ deckId: uuid }),
        querystring: z.object({ limit: queryInt(1, 100).default(20), after: cursorParam.optional() }),
      },
    },
    async (req) => {
      const page = await deckFeedOutputs(db, req.params.deckId, req.query, stream);
      return { data: page.data, cursor: page.cursor, error: null };
    },
  );
}

/** Request and response schemas of the public feed (docs/api/content.md §2.7, §4.7). */
import { z } from 'zod';
import { queryInt, UUID_RE, uuid } from './common.ts';
import { EXAMPLE_ID, EXAMPLE_TIME, EXAMPLE_URL, withExample } from './examples.ts';

export const excludeList = z
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

export const trendingQuery = z.object({
  limit: queryInt(1, 100).default(20),
  after: cursorParam.optional(),
  outputs_per_deck: queryInt(0, 50).default(6),
  trending_hours: queryInt(1, 24 * 365).default(48),
  exclude: excludeList.optional(),
});
export const featuredQuery = z.object({ outputs_per_deck: queryInt(0, 50).default(6) });
/** A published deck (the decks example publishes the hand-made one). */
export const deckOutputsParams = z.object({ deckId: withExample(uuid, EXAMPLE_ID.albumDeck) });
export const deckOutputsQuery = z.object({ limit: queryInt(1, 100).default(20), after: cursorParam.optional() });

const creator = z.object({ fid: z.string().nullable(), username: z.string().nullable(), pfp: z.string().nullable() });
const CREATOR = { fid: '20431', username: 'northlight', pfp: 'https://i.imgur.com/8fK3q2L.png' };

export const feedOutput = withExample(
  z.object({
    id: z.string(),
    url: z.string().nullable(),
    thumbnail_url: z.string().nullable(),
    mime_type: z.string().nullable(),
    status: z.string(),
    created_at: z.string().nullable(),
    parent_output_id: z.string().nullable(),
    stream_playback_id: z.string().nullable(),
    stream_asset_id: z.string().nullable(),
    creator,
    display_image: z.string().nullable().describe('thumbnail_url, else url (images), else the collection cover'),
    playback: z
      .object({ type: z.enum(['hls', 'direct']), url: z.string().nullable(), thumbnail_url: z.string().nullable() })
      .nullable()
      .describe('videos only: HLS through the video provider when a playback id exists, else the url'),
  }),
  {
    id: EXAMPLE_ID.output,
    url: EXAMPLE_URL.image,
    thumbnail_url: EXAMPLE_URL.thumbnail,
    mime_type: 'image/png',
    status: 'completed',
    created_at: EXAMPLE_TIME.minted,
    parent_output_id: null,
    stream_playback_id: null,
    stream_asset_id: null,
    creator: CREATOR,
    display_image: EXAMPLE_URL.thumbnail,
    playback: null,
  },
);
const FEED_OUTPUT = z.globalRegistry.get(feedOutput)!.example as z.output<typeof feedOutput>;

export const feedCollection = withExample(
  z.object({
    id: z.string(),
    title: z.string(),
    description: z.string(),
    cover_image: z.string().nullable(),
    creator,
    config: z.object({ price: z.number().nullable(), is_featured: z.boolean(), generations_per_payment: z.number().int() }),
    featured_deck: z
      .object({
        id: z.string(),
        name: z.string(),
        output_count: z.number().int(),
        has_more_outputs: z.boolean(),
        outputs: z.array(feedOutput),
      })
      .nullable(),
    total_decks: z.number().int(),
    total_outputs: z.number().int(),
    recent_outputs: z.number().int(),
  }),
  {
    id: EXAMPLE_ID.collection,
    title: 'Night Foxes',
    description: 'Fifty foxes under the northern lights, each with its own fur, accessory and sky.',
    cover_image: EXAMPLE_URL.cover,
    creator: CREATOR,
    config: { price: 0, is_featured: true, generations_per_payment: 1 },
    featured_deck: {
      id: EXAMPLE_ID.albumDeck,
      name: 'Favourites',
      output_count: 4,
      has_more_outputs: true,
      outputs: [FEED_OUTPUT],
    },
    total_decks: 3,
    total_outputs: 12,
    recent_outputs: 5,
  },
);

export const cursor = withExample(z.object({ next: z.string().nullable().describe('opaque; pass as `after`'), has_more: z.boolean() }), {
  next: 'eyJzY29yZSI6NSwiaWQiOiJiOGUwMGI3ZCJ9',
  has_more: true,
});

export const trendingResponse = z.object({ data: z.array(feedCollection), cursor, error: z.null() });
export const featuredResponse = z.object({ data: feedCollection, error: z.null() });
export const deckOutputsResponse = z.object({
  data: withExample(z.object({ deck_id: z.string(), deck_name: z.string(), outputs: z.array(feedOutput) }), {
    deck_id: EXAMPLE_ID.albumDeck,
    deck_name: 'Favourites',
    outputs: [FEED_OUTPUT],
  }),
  cursor,
  error: z.null(),
});

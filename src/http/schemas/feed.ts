/** Request and response schemas of the public feed (content-service.md §2.7, §4.7). */
import { z } from 'zod';
import { queryInt, UUID_RE, uuid } from './common.ts';

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
export const deckOutputsParams = z.object({ deckId: uuid });
export const deckOutputsQuery = z.object({ limit: queryInt(1, 100).default(20), after: cursorParam.optional() });

const creator = z.object({ fid: z.string().nullable(), username: z.string().nullable(), pfp: z.string().nullable() });

export const feedOutput = z.object({
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
});

export const feedCollection = z.object({
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
});

export const cursor = z.object({ next: z.string().nullable().describe('opaque; pass as `after`'), has_more: z.boolean() });

export const trendingResponse = z.object({ data: z.array(feedCollection), cursor, error: z.null() });
export const featuredResponse = z.object({ data: feedCollection, error: z.null() });
export const deckOutputsResponse = z.object({
  data: z.object({ deck_id: z.string(), deck_name: z.string(), outputs: z.array(feedOutput) }),
  cursor,
  error: z.null(),
});

/** Request and response schemas of outputs and develop (content-service.md §2.1, §4.1). */
import { z } from 'zod';
import { OUTPUT_SOURCES } from '../../domain/content-statuses.ts';
import { queryInt, socialOrg, socialPair, uuid } from './common.ts';
import { envelope } from './envelope.ts';

export const socialIdentifier = z.string().trim().min(1).max(255);

/**
 * An http(s) URL, or a storage path such as /upload-base64 returns. Never another scheme
 * (`javascript:`, `data:`), a protocol-relative `//host` or a backslash, which a browser showing
 * the feed would read as another origin.
 */
export const urlOrPath = z
  .string()
  .trim()
  .min(1)
  .max(2048)
  .refine((v) => {
    if (/^https?:\/\//i.test(v)) return URL.canParse(v);
    return !/^[a-z][a-z0-9+.-]*:/i.test(v) && !/\s/.test(v) && !v.startsWith('//') && !v.includes('\\') && !v.split('/').includes('..');
  }, 'expected an http(s) URL or a storage path');
export const mimeType = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z]+\/[a-z0-9.+-]+$/, 'expected a MIME type such as image/png');
const metadata = z.record(z.string(), z.unknown());

export const createOutputBody = z
  .object({
    collection_id: uuid,
    job_id: z.string().trim().min(1).max(200).optional(),
    source: z.enum(OUTPUT_SOURCES).optional(),
    input_metadata: metadata.optional(),
    social_org: socialOrg.optional(),
    social_identifier: socialIdentifier.optional(),
    deck_id: uuid.nullish(),
    auto_create_deck: z.boolean().default(true),
  })
  .refine(...socialPair);

export const completeOutputBody = z.object({
  url: urlOrPath,
  mime_type: mimeType.optional(),
  thumbnail_url: urlOrPath.optional(),
  flat_file_id: z.number().int().positive().optional(),
  output_metadata: metadata.optional(),
});

export const failOutputBody = z.object({ error_message: z.string().max(10_000).optional() }).nullish();
export const moveOutputBody = z.object({ deck_id: uuid.nullable() });

export const listOutputsQuery = z
  .object({
    deck_id: uuid.optional(),
    status: z.enum(['pending', 'processing', 'completed', 'failed']).optional(),
    social_org: socialOrg.optional(),
    social_identifier: socialIdentifier.optional(),
    limit: queryInt(1, 500).optional(),
    offset: queryInt(0, 1_000_000).optional(),
  })
  .refine(...socialPair);

const json = z.record(z.string(), z.unknown()).nullable();
const ref = z.object({ id: z.string(), name: z.string() });

export const output = z.object({
  id: z.string(),
  collection_id: z.string(),
  deck_id: z.string().nullable(),
  job_id: z.string().nullable(),
  user_id: z.string().nullable(),
  status: z.string(),
  source: z.string(),
  url: z.string().nullable(),
  mime_type: z.string().nullable(),
  thumbnail_url: z.string().nullable(),
  flat_file_id: z.number().int().nullable(),
  input_metadata: json,
  output_metadata: json,
  error_message: z.string().nullable(),
  is_custodial: z.boolean(),
  custodied_for: z.string().nullable(),
  parent_output_id: z.string().nullable(),
  token_metadata: json,
  created_at: z.string(),
  completed_at: z.string().nullable(),
});

export const outputResponse = envelope(output);
export const outputDetailResponse = envelope(
  output.extend({ deck: ref.nullable(), collection: z.object({ id: z.string(), title: z.string() }) }),
);
export const completionResponse = envelope(
  z.object({
    id: z.string(),
    status: z.string(),
    url: z.string().nullable(),
    mime_type: z.string().nullable(),
    thumbnail_url: z.string().nullable(),
    completed_at: z.string().nullable(),
  }),
);
export const failureResponse = envelope(z.object({ id: z.string(), status: z.string(), error_message: z.string().nullable() }));
export const statusResponse = envelope(z.object({ id: z.string(), status: z.string() }));
export const moveResponse = envelope(z.object({ id: z.string(), deck_id: z.string().nullable() }));
export const outputListResponse = envelope(
  z.array(
    z.object({
      id: z.string(),
      url: z.string().nullable(),
      status: z.string(),
      mime_type: z.string().nullable(),
      thumbnail_url: z.string().nullable(),
      deck_id: z.string().nullable(),
      deck: ref.nullable(),
      created_at: z.string(),
      completed_at: z.string().nullable(),
    }),
  ),
);
const byStatus = {
  completed: z.number().int(),
  pending: z.number().int(),
  failed: z.number().int(),
  processing: z.number().int(),
};
export const outputStatsResponse = envelope(
  z.object({ total: z.number().int(), byStatus: z.object({ ...byStatus, hidden: z.number().int() }) }),
);
export const deckStatsResponse = envelope(z.object({ byStatus: z.object(byStatus) }));

// Develop (content-service.md §4.1 POST /outputs/:id/develop, GET /outputs/develop/collections).
export const INPUT_TYPES = ['image', 'video', 'text'] as const;
export const developBody = z.object({ collection_id: uuid, variables: z.record(z.string(), z.unknown()).optional() });
export const developCollectionsQuery = z.object({ input_type: z.enum(INPUT_TYPES).optional() });
/** PUT /nft/collections/:collectionId/global (operator). */
export const setGlobalBody = z.object({
  is_global: z.boolean().default(true),
  input_type: z.enum(INPUT_TYPES).optional(),
  output_type: z.enum(INPUT_TYPES).optional(),
});
const developCollection = z.object({
  id: z.string(),
  title: z.string(),
  input_type: z.string().nullable(),
  output_type: z.string().nullable(),
});
export const developCollectionsResponse = envelope(
  z.array(developCollection.extend({ description: z.string(), cover_image_url: z.string().nullable() })),
);
export const developResponse = envelope(
  z.object({
    job_id: z.string(),
    output_id: z.string(),
    status: z.literal('pending'),
    develop_collection: developCollection,
    source_output: z.object({ id: z.string(), url: z.string().nullable(), mime_type: z.string().nullable() }),
  }),
);

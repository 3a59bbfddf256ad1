/** Request and response schemas of outputs and develop (docs/api/content.md §2.1, §4.1). */
import { z } from 'zod';
import { OUTPUT_SOURCES } from '../../domain/content-statuses.ts';
import { idParamsOf, queryInt, socialOrg, socialPair, uuid } from './common.ts';
import { envelope } from './envelope.ts';
import { EXAMPLE_ID, EXAMPLE_TIME, EXAMPLE_URL, withExample } from './examples.ts';

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
  .refine(...socialPair)
  .meta({
    example: {
      collection_id: EXAMPLE_ID.collection,
      source: 'direct_api',
      input_metadata: { variables: { fur: 'silver' }, workflow: 'comfyui_default' },
      auto_create_deck: true,
    },
  });

export const outputIdParams = idParamsOf(EXAMPLE_ID.output);
/** Failing or hiding an output: the example is a later one (a regeneration of token 1), not its artwork. */
export const laterOutputIdParams = idParamsOf(EXAMPLE_ID.secondOutput);

export const completeOutputBody = withExample(
  z.object({
    url: urlOrPath,
    mime_type: mimeType.optional(),
    thumbnail_url: urlOrPath.optional(),
    flat_file_id: z.number().int().positive().optional(),
    output_metadata: metadata.optional(),
  }),
  { url: EXAMPLE_URL.image, mime_type: 'image/png', output_metadata: { width: 1024, height: 1024, seed: 403363684 } },
);

export const failOutputBody = withExample(z.object({ error_message: z.string().max(10_000).optional() }).nullish(), {
  error_message: 'the renderer ran out of memory at 2048×2048',
});
export const moveOutputBody = withExample(z.object({ deck_id: uuid.nullable() }), { deck_id: EXAMPLE_ID.secondDeck });

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

const outputRecord = z.object({
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

const TRAITS = [
  { trait_type: 'Fur', value: 'Russet' },
  { trait_type: 'Accessory', value: 'Scarf' },
  { trait_type: 'Background', value: 'Aurora' },
];
/** Token 1's artwork, completed. */
const OUTPUT_EXAMPLE: z.output<typeof outputRecord> = {
  id: EXAMPLE_ID.output,
  collection_id: EXAMPLE_ID.collection,
  deck_id: EXAMPLE_ID.deck,
  job_id: EXAMPLE_ID.job,
  user_id: EXAMPLE_ID.user,
  status: 'completed',
  source: 'direct_api',
  url: EXAMPLE_URL.image,
  mime_type: 'image/png',
  thumbnail_url: EXAMPLE_URL.thumbnail,
  flat_file_id: 7,
  input_metadata: {
    seed: 3482353384,
    workflow: 'procedural',
    traits: TRAITS,
    variables: { fur: 'russet', accessory: 'a knitted scarf', background: 'a green aurora over snow' },
  },
  output_metadata: { width: 1024, height: 1024 },
  error_message: null,
  is_custodial: false,
  custodied_for: null,
  parent_output_id: null,
  token_metadata: {
    name: 'Night Foxes #1',
    description: 'Fifty foxes under the northern lights, each with its own fur, accessory and sky.',
    image: EXAMPLE_URL.image,
    external_url: EXAMPLE_URL.token,
    attributes: TRAITS,
  },
  created_at: EXAMPLE_TIME.minted,
  completed_at: EXAMPLE_TIME.completed,
};
export const output = outputRecord.meta({ example: OUTPUT_EXAMPLE });

export const outputResponse = envelope(output);
export const outputDetailResponse = envelope(
  withExample(outputRecord.extend({ deck: ref.nullable(), collection: z.object({ id: z.string(), title: z.string() }) }), {
    ...OUTPUT_EXAMPLE,
    deck: { id: EXAMPLE_ID.deck, name: 'Night Foxes #1' },
    collection: { id: EXAMPLE_ID.collection, title: 'Night Foxes' },
  }),
);
export const completionResponse = envelope(
  withExample(
    z.object({
      id: z.string(),
      status: z.string(),
      url: z.string().nullable(),
      mime_type: z.string().nullable(),
      thumbnail_url: z.string().nullable(),
      completed_at: z.string().nullable(),
    }),
    {
      id: EXAMPLE_ID.output,
      status: 'completed',
      url: EXAMPLE_URL.image,
      mime_type: 'image/png',
      thumbnail_url: EXAMPLE_URL.thumbnail,
      completed_at: EXAMPLE_TIME.completed,
    },
  ),
);
export const failureResponse = envelope(
  withExample(z.object({ id: z.string(), status: z.string(), error_message: z.string().nullable() }), {
    id: EXAMPLE_ID.secondOutput,
    status: 'failed',
    error_message: 'the renderer ran out of memory at 2048×2048',
  }),
);
/** Hiding an output, archiving or locking a deck: the record and its new status. */
export const statusResponse = envelope(
  withExample(z.object({ id: z.string(), status: z.string() }), { id: EXAMPLE_ID.secondOutput, status: 'hidden' }),
);
export const moveResponse = envelope(
  withExample(z.object({ id: z.string(), deck_id: z.string().nullable() }), { id: EXAMPLE_ID.output, deck_id: EXAMPLE_ID.secondDeck }),
);
export const outputListResponse = envelope(
  z.array(
    withExample(
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
      {
        id: EXAMPLE_ID.output,
        url: EXAMPLE_URL.image,
        status: 'completed',
        mime_type: 'image/png',
        thumbnail_url: EXAMPLE_URL.thumbnail,
        deck_id: EXAMPLE_ID.deck,
        deck: { id: EXAMPLE_ID.deck, name: 'Night Foxes #1' },
        created_at: EXAMPLE_TIME.minted,
        completed_at: EXAMPLE_TIME.completed,
      },
    ),
  ),
);
const byStatus = {
  completed: z.number().int(),
  pending: z.number().int(),
  failed: z.number().int(),
  processing: z.number().int(),
};
export const outputStatsResponse = envelope(
  withExample(z.object({ total: z.number().int(), byStatus: z.object({ ...byStatus, hidden: z.number().int() }) }), {
    total: 3,
    byStatus: { completed: 2, pending: 1, failed: 0, processing: 0, hidden: 0 },
  }),
);
export const deckStatsResponse = envelope(
  withExample(z.object({ byStatus: z.object(byStatus) }), { byStatus: { completed: 1, pending: 1, failed: 0, processing: 0 } }),
);

// Develop (docs/api/content.md §4.1 POST /outputs/:id/develop, GET /outputs/develop/collections).
export const INPUT_TYPES = ['image', 'video', 'text'] as const;
// The examples make the example collection a global one that develops images into images.
export const developBody = withExample(z.object({ collection_id: uuid, variables: z.record(z.string(), z.unknown()).optional() }), {
  collection_id: EXAMPLE_ID.collection,
  variables: { fur: 'silver' },
});
export const developCollectionsQuery = z.object({ input_type: z.enum(INPUT_TYPES).optional() });
/** PUT /nft/collections/:collectionId/global (operator). */
export const setGlobalBody = withExample(
  z.object({
    is_global: z.boolean().default(true),
    input_type: z.enum(INPUT_TYPES).optional(),
    output_type: z.enum(INPUT_TYPES).optional(),
  }),
  { is_global: true, input_type: 'image', output_type: 'image' },
);
/** The answer of PUT /nft/collections/:collectionId/global. */
export const globalCollectionResponse = envelope(
  withExample(
    z.object({
      id: z.string(),
      title: z.string(),
      description: z.string(),
      is_global: z.boolean(),
      input_type: z.string().nullable(),
      output_type: z.string().nullable(),
      cover_image_url: z.string().nullable(),
    }),
    {
      id: EXAMPLE_ID.collection,
      title: 'Night Foxes',
      description: 'Fifty foxes under the northern lights, each with its own fur, accessory and sky.',
      is_global: true,
      input_type: 'image',
      output_type: 'image',
      cover_image_url: EXAMPLE_URL.cover,
    },
  ),
);
const developCollection = z.object({
  id: z.string(),
  title: z.string(),
  input_type: z.string().nullable(),
  output_type: z.string().nullable(),
});
const DEVELOP_COLLECTION = { id: EXAMPLE_ID.collection, title: 'Night Foxes', input_type: 'image', output_type: 'image' };
export const developCollectionsResponse = envelope(
  z.array(
    withExample(developCollection.extend({ description: z.string(), cover_image_url: z.string().nullable() }), {
      ...DEVELOP_COLLECTION,
      description: 'Fifty foxes under the northern lights, each with its own fur, accessory and sky.',
      cover_image_url: EXAMPLE_URL.cover,
    }),
  ),
);
export const developResponse = envelope(
  withExample(
    z.object({
      job_id: z.string(),
      output_id: z.string(),
      status: z.literal('pending'),
      develop_collection: developCollection,
      source_output: z.object({ id: z.string(), url: z.string().nullable(), mime_type: z.string().nullable() }),
    }),
    {
      job_id: EXAMPLE_ID.secondJob,
      output_id: EXAMPLE_ID.secondOutput,
      status: 'pending',
      develop_collection: DEVELOP_COLLECTION,
      source_output: { id: EXAMPLE_ID.output, url: EXAMPLE_URL.image, mime_type: 'image/png' },
    },
  ),
);

/** Request and response schemas of decks (docs/api/content.md §2.2, §4.2). */
import { z } from 'zod';
import { DECK_STATUSES } from '../../domain/content-statuses.ts';
import { idParamsOf, socialOrg, socialPair, uuid } from './common.ts';
import { envelope } from './envelope.ts';
import { EXAMPLE_CHAIN, EXAMPLE_ID, EXAMPLE_TIME, EXAMPLE_URL, withExample } from './examples.ts';
import { socialIdentifier } from './outputs.ts';

const name = z.string().trim().min(1, 'name must not be empty').max(200);
const description = z.string().max(10_000);

export const createDeckBody = z
  .object({
    collection_id: uuid,
    name: name.optional(),
    description: description.optional(),
    social_org: socialOrg.optional(),
    social_identifier: socialIdentifier.optional(),
  })
  .refine(...socialPair)
  .meta({
    example: { collection_id: EXAMPLE_ID.collection, name: 'Favourites', description: 'The foxes I would frame.' },
  });

/** `{id}` of a deck: the example is a deck made by hand. */
export const deckParams = idParamsOf(EXAMPLE_ID.albumDeck);

export const patchDeckBody = withExample(
  z.object({
    name: name.optional(),
    description: description.optional(),
    cover_output_id: uuid.nullable().optional(),
    status: z.enum(DECK_STATUSES).optional(),
  }),
  { name: 'Favourites (winter)', description: 'The foxes I would frame, snow only.' },
);

export const socialQuery = z
  .object({ social_org: socialOrg.optional(), social_identifier: socialIdentifier.optional() })
  .refine(...socialPair);

/** A minted deck's token fields; null on a deck that is not a token. */
export const tokenFields = {
  token_id: z.number().int().nullable(),
  mint_status: z.string().nullable(),
  mint_tx_hash: z.string().nullable(),
  mint_recipient: z.string().nullable(),
  minted_at: z.string().nullable(),
  metadata_uri: z.string().nullable(),
  current_owner: z.string().nullable(),
  last_transfer_at: z.string().nullable(),
};

const deckRecord = z.object({
  id: z.string(),
  collection_id: z.string(),
  user_id: z.string().nullable(),
  name: z.string(),
  description: z.string(),
  status: z.string(),
  output_count: z.number().int(),
  cover_output_id: z.string().nullable(),
  published_at: z.string().nullable(),
  is_custodial: z.boolean(),
  custodied_for: z.string().nullable(),
  ...tokenFields,
  created_at: z.string(),
  updated_at: z.string(),
});

const NO_TOKEN = {
  token_id: null,
  mint_status: null,
  mint_tx_hash: null,
  mint_recipient: null,
  minted_at: null,
  metadata_uri: null,
  current_owner: null,
  last_transfer_at: null,
};
const DECK_EXAMPLE: z.output<typeof deckRecord> = {
  id: EXAMPLE_ID.albumDeck,
  collection_id: EXAMPLE_ID.collection,
  user_id: EXAMPLE_ID.user,
  name: 'Favourites',
  description: 'The foxes I would frame.',
  status: 'active',
  output_count: 1,
  cover_output_id: EXAMPLE_ID.output,
  published_at: null,
  is_custodial: false,
  custodied_for: null,
  ...NO_TOKEN,
  created_at: EXAMPLE_TIME.updated,
  updated_at: EXAMPLE_TIME.completed,
};
/** Token 1's deck: a minted deck carries the token fields. */
const TOKEN_FIELDS = {
  token_id: 1,
  mint_status: 'minted',
  mint_tx_hash: EXAMPLE_CHAIN.mintTx,
  mint_recipient: EXAMPLE_CHAIN.collector,
  minted_at: EXAMPLE_TIME.minted,
  metadata_uri: EXAMPLE_URL.token,
  current_owner: EXAMPLE_CHAIN.collector,
  last_transfer_at: EXAMPLE_TIME.minted,
};
export const deck = deckRecord.meta({ example: DECK_EXAMPLE });

export const deckResponse = envelope(deck);
export const deckDetailResponse = envelope(
  withExample(
    deckRecord.extend({
      collection: z.object({ id: z.string(), title: z.string(), cover_image_url: z.string().nullable() }),
      outputs: z.array(
        z.object({
          id: z.string(),
          url: z.string().nullable(),
          status: z.string(),
          mime_type: z.string().nullable(),
          thumbnail_url: z.string().nullable(),
          created_at: z.string(),
          position: z.number().int(),
        }),
      ),
    }),
    {
      ...DECK_EXAMPLE,
      collection: { id: EXAMPLE_ID.collection, title: 'Night Foxes', cover_image_url: EXAMPLE_URL.cover },
      outputs: [
        {
          id: EXAMPLE_ID.output,
          url: EXAMPLE_URL.image,
          status: 'completed',
          mime_type: 'image/png',
          thumbnail_url: EXAMPLE_URL.thumbnail,
          created_at: EXAMPLE_TIME.minted,
          position: 1,
        },
      ],
    },
  ),
);
export const publishResponse = envelope(
  withExample(z.object({ id: z.string(), status: z.string(), published_at: z.string().nullable() }), {
    id: EXAMPLE_ID.albumDeck,
    status: 'published',
    published_at: EXAMPLE_TIME.transferred,
  }),
);
/** Archiving or locking a deck: the deck and its new status. */
export const deckStatusResponse = envelope(
  withExample(z.object({ id: z.string(), status: z.string() }), { id: EXAMPLE_ID.albumDeck, status: 'locked' }),
);
const listed = { id: z.string(), name: z.string(), status: z.string(), output_count: z.number().int(), created_at: z.string() };
const LISTED_TOKEN_DECK = {
  id: EXAMPLE_ID.deck,
  name: 'Night Foxes #1',
  status: 'active',
  output_count: 1,
  created_at: EXAMPLE_TIME.minted,
};
export const collectionDecksResponse = envelope(
  z.array(
    withExample(z.object({ ...listed, is_custodial: z.boolean(), custodied_for: z.string().nullable(), ...tokenFields }), {
      ...LISTED_TOKEN_DECK,
      is_custodial: false,
      custodied_for: null,
      ...TOKEN_FIELDS,
    }),
  ),
);
export const userDecksResponse = envelope(
  z.array(
    withExample(z.object({ ...listed, ...tokenFields, collection: z.object({ id: z.string(), title: z.string() }) }), {
      ...LISTED_TOKEN_DECK,
      ...TOKEN_FIELDS,
      collection: { id: EXAMPLE_ID.collection, title: 'Night Foxes' },
    }),
  ),
);

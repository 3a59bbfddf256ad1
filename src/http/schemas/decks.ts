/** Request and response schemas of decks (content-service.md §2.2, §4.2). */
import { z } from 'zod';
import { DECK_STATUSES } from '../../domain/content-statuses.ts';
import { socialOrg, socialPair, uuid } from './common.ts';
import { envelope } from './envelope.ts';
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
  .refine(...socialPair);

export const patchDeckBody = z.object({
  name: name.optional(),
  description: description.optional(),
  cover_output_id: uuid.nullable().optional(),
  status: z.enum(DECK_STATUSES).optional(),
});

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

export const deck = z.object({
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

export const deckResponse = envelope(deck);
export const deckDetailResponse = envelope(
  deck.extend({
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
);
export const publishResponse = envelope(z.object({ id: z.string(), status: z.string(), published_at: z.string().nullable() }));
const listed = { id: z.string(), name: z.string(), status: z.string(), output_count: z.number().int(), created_at: z.string() };
export const collectionDecksResponse = envelope(
  z.array(z.object({ ...listed, is_custodial: z.boolean(), custodied_for: z.string().nullable(), ...tokenFields })),
);
export const userDecksResponse = envelope(
  z.array(z.object({ ...listed, ...tokenFields, collection: z.object({ id: z.string(), title: z.string() }) })),
);

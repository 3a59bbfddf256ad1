/** Decks as the API shows them (docs/api/content.md §2.2, §4.2). */
import type { DeckDetail, DeckRow, listUserDecks } from '../../db/decks.ts';
import { iso } from '../../domain/time.ts';

/**
 * A minted deck's token fields (docs/api/nft.md §2.3, §4.2), shown wherever a deck is: null on a
 * deck that is not a token. current_owner and last_transfer_at follow the indexer.
 */
export function presentTokenFields(row: DeckRow) {
  return {
    token_id: row.token_id,
    mint_status: row.mint_status,
    mint_tx_hash: row.mint_tx_hash,
    mint_recipient: row.mint_recipient,
    minted_at: iso(row.minted_at),
    metadata_uri: row.metadata_uri,
    current_owner: row.current_owner,
    last_transfer_at: iso(row.last_transfer_at),
  };
}

export function presentDeck(row: DeckRow) {
  return {
    id: row.id,
    collection_id: row.collection_id,
    user_id: row.user_id,
    name: row.name,
    description: row.description,
    status: row.status,
    output_count: row.output_count,
    cover_output_id: row.cover_output_id,
    published_at: iso(row.published_at),
    is_custodial: row.is_custodial,
    custodied_for: row.custodied_for,
    ...presentTokenFields(row),
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

/** GET /decks/:id: the deck, its collection and its visible outputs with their 1-based position. */
export const presentDeckDetail = (d: DeckDetail) => ({
  ...presentDeck(d.deck),
  collection: d.collection,
  outputs: d.outputs.map((o, i) => ({
    id: o.id,
    url: o.url,
    status: o.status,
    mime_type: o.mime_type,
    thumbnail_url: o.thumbnail_url,
    created_at: iso(o.created_at)!,
    position: i + 1,
  })),
});

export const presentCollectionDeck = (d: DeckRow) => ({
  id: d.id,
  name: d.name,
  status: d.status,
  output_count: d.output_count,
  created_at: iso(d.created_at)!,
  is_custodial: d.is_custodial,
  custodied_for: d.custodied_for,
  ...presentTokenFields(d),
});

export const presentUserDeck = ({ deck, collection }: Awaited<ReturnType<typeof listUserDecks>>[number]) => ({
  id: deck.id,
  name: deck.name,
  status: deck.status,
  output_count: deck.output_count,
  created_at: iso(deck.created_at)!,
  ...presentTokenFields(deck),
  collection,
});

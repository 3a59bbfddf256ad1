/** Responses of the minting routes (schemas: http/schemas/minting.ts). */
import type { DeckRow } from '../../db/minting.ts';
import { iso } from '../../domain/time.ts';
import type { DeckArtwork } from '../../services/minting.ts';

type ArtworkStatus = 'none' | 'generating' | 'completed' | 'failed';
const artworkStatus = (status: string | undefined): ArtworkStatus =>
  !status ? 'none' : status === 'completed' ? 'completed' : status === 'failed' ? 'failed' : 'generating';

/** Both spec shapes of a mint (§4.2 tokenId/txHash/…, §4.3 tx_hash/token_ids/deck_ids). */
export function presentMint(m: { txHash: string; recipient: string; tokenIds: number[]; deckIds: string[]; metadataUris: string[] }) {
  return {
    tokenId: m.tokenIds[0]!,
    txHash: m.txHash,
    recipient: m.recipient,
    deckId: m.deckIds[0]!,
    metadataUri: m.metadataUris[0]!,
    tx_hash: m.txHash,
    token_ids: m.tokenIds,
    deck_ids: m.deckIds,
  };
}

export const presentMints = (rows: DeckRow[]) => ({
  mints: rows.map((d) => ({
    id: d.id,
    token_id: d.token_id,
    mint_tx_hash: d.mint_tx_hash,
    mint_recipient: d.mint_recipient,
    mint_status: d.mint_status,
    minted_at: iso(d.minted_at),
  })),
});

export function presentMintStatus({ deck, output, job }: DeckArtwork) {
  return {
    deck_id: deck.id,
    collection_id: deck.collection_id,
    token_id: deck.token_id,
    mint_status: deck.mint_status,
    mint_tx_hash: deck.mint_tx_hash,
    mint_recipient: deck.mint_recipient,
    minted_at: iso(deck.minted_at),
    metadata_uri: deck.metadata_uri,
    current_owner: deck.current_owner,
    last_transfer_at: iso(deck.last_transfer_at),
    generation: {
      status: artworkStatus(output?.status),
      output_id: output?.id ?? null,
      job_id: output?.job_id ?? null,
      job_status: job?.status ?? null,
      progress: job?.progress ?? null,
      image: output?.status === 'completed' ? output.url : null,
      error: output?.error_message ?? job?.error_message ?? null,
    },
  };
}

/**
 * Projections (pure): what a range's transfers mean beyond their own rows.
 *
 * - app token mints: one row per mint call (a run of Transfer-from-zero logs of one transaction,
 *   one recipient, consecutive token ids and log indexes);
 * - ownership: each token's latest transfer in the range (ranges are applied in order, so it is
 *   the token's latest overall), and the decks that show it (`decks.current_owner`,
 *   `last_transfer_at`, `transfers.deck_id`).
 *
 * The store stage applies them in the range's transaction (src/indexer/store.ts).
 */
import type { MintRecord, TransferRecord } from '../domain/ports/indexer-rows.ts';
import type { DeckMatch, DeckOwner, TokenRef } from '../db/ownership.ts';
import { ZERO_ADDRESS } from './decode.ts';

/** The key of a token: its contract address (any case) and id. */
export const tokenKey = (t: TokenRef) => `${t.collection_address.toLowerCase()}:${t.token_id}`;

/** Runs of mints (see the header), in log order. */
export function groupMints(transfers: readonly TransferRecord[]): MintRecord[] {
  const out: MintRecord[] = [];
  let run: { mint: MintRecord; lastId: bigint; lastLog: number } | undefined;
  for (const t of transfers) {
    if (t.from_address !== ZERO_ADDRESS) {
      run = undefined;
      continue;
    }
    const id = BigInt(t.token_id);
    if (
      run &&
      run.mint.tx_hash === t.tx_hash &&
      run.mint.app_address === t.collection_address &&
      run.mint.to_address === t.to_address &&
      id === run.lastId + 1n &&
      t.log_index === run.lastLog + 1
    ) {
      run.mint.quantity += 1;
      run.lastId = id;
      run.lastLog = t.log_index;
      continue;
    }
    const mint: MintRecord = {
      app_address: t.collection_address,
      to_address: t.to_address,
      start_token_id: t.token_id,
      quantity: 1,
      block_number: t.block_number,
      block_hash: t.block_hash,
      tx_hash: t.tx_hash,
      log_index: t.log_index,
      timestamp: t.timestamp,
    };
    run = { mint, lastId: id, lastLog: t.log_index };
    out.push(mint);
  }
  return out;
}

/** Each token's last transfer among `transfers` (in log order). */
export function latestPerToken(transfers: readonly TransferRecord[]): TransferRecord[] {
  const latest = new Map<string, TransferRecord>();
  for (const t of transfers) latest.set(tokenKey(t), t);
  return [...latest.values()];
}

/**
 * The deck a transfer links to: of the decks matching its token, the one whose collection record
 * is newest (an address can have two records after a reset and redeploy).
 */
export function deckLinks(decks: readonly DeckMatch[]): Map<string, string> {
  const best = new Map<string, DeckMatch>();
  for (const d of decks) {
    const key = tokenKey(d);
    const seen = best.get(key);
    if (!seen || d.collection_created_at > seen.collection_created_at) best.set(key, d);
  }
  return new Map([...best].map(([key, d]) => [key, d.deck_id]));
}

/** Every matching deck takes its token's latest transfer: its recipient and time. */
export function ownersAfterRange(latest: readonly TransferRecord[], decks: readonly DeckMatch[]): DeckOwner[] {
  const byToken = new Map(latest.map((t) => [tokenKey(t), t]));
  return decks.flatMap((d) => {
    const t = byToken.get(tokenKey(d));
    return t ? [{ id: d.deck_id, current_owner: t.to_address, last_transfer_at: t.timestamp }] : [];
  });
}

/**
 * After a rollback: every deck of an affected token takes the latest transfer that remains, or
 * no owner at all when none remains.
 */
export function ownersAfterRollback(
  remaining: readonly (TokenRef & { to_address: string; timestamp: Date })[],
  decks: readonly DeckMatch[],
): DeckOwner[] {
  const byToken = new Map(remaining.map((t) => [tokenKey(t), t]));
  return decks.map((d) => {
    const t = byToken.get(tokenKey(d));
    return { id: d.deck_id, current_owner: t?.to_address ?? null, last_transfer_at: t?.timestamp ?? null };
  });
}

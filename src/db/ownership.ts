/**
 * The ownership projection's rows: `decks.current_owner` / `last_transfer_at` and the link
 * `transfers.deck_id` (docs/indexer.md, "Owners" and "Decks that appear after their transfers").
 * The indexer's store stage is the only caller; it runs these in the transaction of the range (or
 * rollback) whose transfers they reflect, so a deck's owner never disagrees with committed rows.
 *
 * A deck belongs to a token when its collection record has the token's contract address (any
 * case) on the same chain and the deck has the token id.
 */
import { and, desc, eq, inArray, isNotNull, isNull, sql } from 'drizzle-orm';
import type { Executor } from './client.ts';
import { columnTypes, jsonRecordset } from './recordset.ts';
import { collections, decks, transfers } from './schema/index.ts';

/** A token of a collection contract: (address as logged, decimal token id). */
export interface TokenRef {
  collection_address: string;
  token_id: string;
}

/** A deck matching a token, with its collection record's creation time (the newest record wins a link). */
export interface DeckMatch extends TokenRef {
  deck_id: string;
  collection_created_at: Date;
}

export interface DeckOwner {
  id: string;
  current_owner: string | null;
  last_transfer_at: Date | null;
}

const tokenTypes = { collection_address: 'text', token_id: 'numeric' };

/** The decks of these tokens on the chain (none when no collection record has their addresses). */
export async function decksOfTokens(ex: Executor, chainId: number, tokens: readonly TokenRef[]): Promise<DeckMatch[]> {
  if (tokens.length === 0) return [];
  // First the records of the range's contracts (a handful of addresses): most ranges of a
  // backfill touch none, and then the tokens need not be sent at all.
  const addresses = [...new Set(tokens.map((t) => t.collection_address.toLowerCase()))];
  const records = await ex
    .select({ address: sql<string>`lower(${collections.contract_address})` })
    .from(collections)
    .where(and(eq(collections.chain_id, chainId), inArray(sql`lower(${collections.contract_address})`, addresses)));
  if (records.length === 0) return [];
  const recorded = new Set(records.map((r) => r.address));
  const wanted = tokens.filter((t) => recorded.has(t.collection_address.toLowerCase()));
  return ex
    .select({
      deck_id: decks.id,
      collection_address: sql<string>`v.collection_address`,
      token_id: sql<string>`v.token_id::text`,
      collection_created_at: collections.created_at,
    })
    .from(collections)
    .innerJoin(decks, eq(decks.collection_id, collections.id))
    .innerJoin(
      jsonRecordset(
        wanted.map((t) => ({ collection_address: t.collection_address, token_id: t.token_id })),
        tokenTypes,
      ),
      sql`lower(${collections.contract_address}) = lower(v.collection_address) AND ${decks.token_id} = v.token_id`,
    )
    .where(and(eq(collections.chain_id, chainId), isNotNull(collections.contract_address)));
}

/** Sets the owners of decks (one statement). */
export async function setDeckOwners(ex: Executor, owners: readonly DeckOwner[]): Promise<void> {
  if (owners.length === 0) return;
  await ex
    .update(decks)
    .set({ current_owner: sql`v.current_owner`, last_transfer_at: sql`v.last_transfer_at`, updated_at: sql`now()` })
    .from(jsonRecordset(owners, columnTypes(decks, ['id', 'current_owner', 'last_transfer_at'])))
    .where(eq(decks.id, sql`v.id`));
}

/** Clears the owners of every deck of the chain's collections (the full reindex). */
export async function clearDeckOwners(ex: Executor, chainId: number): Promise<void> {
  await ex
    .update(decks)
    .set({ current_owner: null, last_transfer_at: null })
    .where(inArray(decks.collection_id, ex.select({ id: collections.id }).from(collections).where(eq(collections.chain_id, chainId))));
}

/** The latest stored transfer of each of these tokens (by block, then log index); tokens without any are absent. */
export async function latestTransfersOf(
  ex: Executor,
  chainId: number,
  tokens: readonly TokenRef[],
): Promise<(TokenRef & { to_address: string; timestamp: Date })[]> {
  if (tokens.length === 0) return [];
  return ex
    .selectDistinctOn([transfers.collection_address, transfers.token_id], {
      collection_address: transfers.collection_address,
      token_id: transfers.token_id,
      to_address: transfers.to_address,
      timestamp: transfers.timestamp,
    })
    .from(transfers)
    .innerJoin(
      jsonRecordset(tokens, tokenTypes),
      sql`${transfers.collection_address} = v.collection_address AND ${transfers.token_id} = v.token_id`,
    )
    .where(eq(transfers.chain_id, chainId))
    .orderBy(transfers.collection_address, transfers.token_id, desc(transfers.block_number), desc(transfers.log_index));
}

/**
 * Links transfers stored before their deck existed (deck_id null) to the deck that now matches;
 * the ids of the decks that got a link.
 */
export async function linkTransfersToDecks(ex: Executor, chainId: number): Promise<string[]> {
  const linked = await ex
    .update(transfers)
    .set({ deck_id: sql`${decks.id}` })
    .from(collections)
    .innerJoin(decks, eq(decks.collection_id, collections.id))
    .where(
      and(
        isNull(transfers.deck_id),
        eq(transfers.chain_id, chainId),
        eq(collections.chain_id, chainId),
        isNotNull(collections.contract_address),
        sql`lower(${collections.contract_address}) = lower(${transfers.collection_address})`,
        sql`${decks.token_id} = ${transfers.token_id}`,
      ),
    )
    .returning({ deck_id: decks.id });
  return [...new Set(linked.map((l) => l.deck_id))];
}

/** Each deck's owner from its latest linked transfer. */
export async function ownersFromLinkedTransfers(ex: Executor, deckIds: readonly string[]): Promise<DeckOwner[]> {
  if (deckIds.length === 0) return [];
  const rows = await ex
    .selectDistinctOn([transfers.deck_id], {
      id: transfers.deck_id,
      current_owner: transfers.to_address,
      last_transfer_at: transfers.timestamp,
    })
    .from(transfers)
    .where(inArray(transfers.deck_id, [...deckIds]))
    .orderBy(transfers.deck_id, desc(transfers.block_number), desc(transfers.log_index));
  return rows.flatMap((r) => (r.id ? [{ id: r.id, current_owner: r.current_owner, last_transfer_at: r.last_transfer_at }] : []));
}

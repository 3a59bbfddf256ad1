/**
 * Reads over the indexer's tables for the ownership routes (docs/api/nft.md §4.2) and the indexer
 * package API (§4.4); docs/indexer.md lists their orders. Typed rows, no presentation (that is
 * src/http/present/indexer.ts). Lists are newest first unless the API says otherwise.
 */
import { and, asc, desc, eq, exists, getTableColumns, isNotNull, isNull, or, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Executor } from './client.ts';
import { appTokenMints, apps, collections, decks, ownerTokenTransfers, transfers } from './schema/index.ts';

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

export interface Page {
  limit: number;
  offset: number;
}

// ---------- §4.2 ownership ----------

export async function collectionExists(ex: Executor, collectionId: string): Promise<boolean> {
  const [row] = await ex.select({ id: collections.id }).from(collections).where(eq(collections.id, collectionId));
  return row !== undefined;
}

/** The decks of a collection that have a token id, by token id. */
export function collectionTokens(ex: Executor, collectionId: string) {
  return ex
    .select({
      id: decks.id,
      token_id: decks.token_id,
      current_owner: decks.current_owner,
      mint_recipient: decks.mint_recipient,
      mint_status: decks.mint_status,
      last_transfer_at: decks.last_transfer_at,
    })
    .from(decks)
    .where(and(eq(decks.collection_id, collectionId), isNotNull(decks.token_id)))
    .orderBy(asc(decks.token_id));
}

export interface DeckToken {
  id: string;
  collection_id: string;
  token_id: number | null;
}

export async function deckToken(ex: Executor, deckId: string): Promise<DeckToken | undefined> {
  const [row] = await ex
    .select({ id: decks.id, collection_id: decks.collection_id, token_id: decks.token_id })
    .from(decks)
    .where(eq(decks.id, deckId));
  return row;
}

export type TransferRow = typeof transfers.$inferSelect;

/**
 * A deck's transfers, newest first: the linked rows plus rows indexed before the deck existed
 * (deck_id null, matched by its collection's address and the token id).
 */
export function deckTransfers(ex: Executor, deck: DeckToken): Promise<TransferRow[]> {
  const unlinked =
    deck.token_id === null
      ? undefined
      : and(
          isNull(transfers.deck_id),
          eq(transfers.token_id, String(deck.token_id)),
          exists(
            ex
              .select({ one: sql`1` })
              .from(collections)
              .where(
                and(
                  eq(collections.id, deck.collection_id),
                  eq(collections.chain_id, transfers.chain_id),
                  sql`lower(${collections.contract_address}) = lower(${transfers.collection_address})`,
                ),
              ),
          ),
        );
  return ex
    .select()
    .from(transfers)
    .where(or(eq(transfers.deck_id, deck.id), unlinked))
    .orderBy(desc(transfers.block_number), desc(transfers.log_index));
}

// ---------- §4.4 owner tokens (a collection's ownership) ----------

/** Each app's owner token: its first OwnershipTransferred (the mint) and its latest (the owner); newest mint first. */
export function ownerTokens(ex: Executor, chainId: number, page: Page, app?: string) {
  const o = ownerTokenTransfers;
  const where = and(eq(o.chain_id, chainId), app ? eq(o.app_address, app) : undefined);
  const current = ex
    .selectDistinctOn([o.app_address], {
      app_address: o.app_address,
      owner: o.to_address,
      block_number: o.block_number,
      timestamp: o.timestamp,
    })
    .from(o)
    .where(where)
    .orderBy(o.app_address, desc(o.block_number), desc(o.log_index))
    .as('cur');
  const first = ex
    .selectDistinctOn([o.app_address], {
      app_address: o.app_address,
      block_number: o.block_number,
      log_index: o.log_index,
      timestamp: o.timestamp,
      tx_hash: o.tx_hash,
    })
    .from(o)
    .where(where)
    .orderBy(o.app_address, asc(o.block_number), asc(o.log_index))
    .as('first');
  return ex
    .select({
      app_address: current.app_address,
      owner: current.owner,
      updated_block: current.block_number,
      updated_at: current.timestamp,
      minted_block: first.block_number,
      minted_at: first.timestamp,
      mint_tx_hash: first.tx_hash,
    })
    .from(current)
    .innerJoin(first, eq(first.app_address, current.app_address))
    .orderBy(desc(first.block_number), desc(first.log_index))
    .limit(page.limit)
    .offset(page.offset);
}

export type OwnerTokenRow = Awaited<ReturnType<typeof ownerTokens>>[number];

/** An app's OwnershipTransferred rows, newest first. */
export function ownerTokenHistory(ex: Executor, chainId: number, app: string) {
  const o = ownerTokenTransfers;
  return ex
    .select({
      from_address: o.from_address,
      to_address: o.to_address,
      block_number: o.block_number,
      tx_hash: o.tx_hash,
      log_index: o.log_index,
      timestamp: o.timestamp,
    })
    .from(o)
    .where(and(eq(o.chain_id, chainId), eq(o.app_address, app)))
    .orderBy(desc(o.block_number), desc(o.log_index));
}

// ---------- §4.4 apps ----------

/** Apps, newest first, with the count of mint transfers, the current owner and our collection record's id. */
export function listApps(ex: Executor, chainId: number, page: Page, app?: string) {
  return ex
    .select({
      ...getTableColumns(apps),
      total_minted: sql<number>`(SELECT count(*) FROM ${transfers} WHERE ${transfers.chain_id} = ${apps.chain_id}
        AND ${transfers.collection_address} = ${apps.address} AND ${transfers.from_address} = ${ZERO_ADDRESS})::int`,
      owner: sql<string | null>`(SELECT ${ownerTokenTransfers.to_address} FROM ${ownerTokenTransfers}
        WHERE ${ownerTokenTransfers.chain_id} = ${apps.chain_id} AND ${ownerTokenTransfers.app_address} = ${apps.address}
        ORDER BY ${ownerTokenTransfers.block_number} DESC, ${ownerTokenTransfers.log_index} DESC LIMIT 1)`,
      collection_id: sql<string | null>`(SELECT ${collections.id} FROM ${collections}
        WHERE ${collections.chain_id} = ${apps.chain_id} AND lower(${collections.contract_address}) = lower(${apps.address})
        ORDER BY ${collections.created_at} DESC LIMIT 1)`,
    })
    .from(apps)
    .where(and(eq(apps.chain_id, chainId), app ? eq(apps.address, app) : undefined))
    .orderBy(desc(apps.block_number), desc(apps.log_index))
    .limit(page.limit)
    .offset(page.offset);
}

export type AppRow = Awaited<ReturnType<typeof listApps>>[number];

/** An app is known when the factory created it or any of its transfers is indexed. */
export async function appKnown(ex: Executor, chainId: number, app: string): Promise<boolean> {
  const [created] = await ex
    .select({ id: apps.id })
    .from(apps)
    .where(and(eq(apps.chain_id, chainId), eq(apps.address, app)))
    .limit(1);
  if (created) return true;
  const [moved] = await ex
    .select({ id: transfers.id })
    .from(transfers)
    .where(and(eq(transfers.chain_id, chainId), eq(transfers.collection_address, app)))
    .limit(1);
  return moved !== undefined;
}

// ---------- §4.4 app tokens and mints ----------

/** Each token's latest transfer (its owner) and its mint, by app and token id. */
export function appTokens(ex: Executor, chainId: number, page: Page, app?: string) {
  const t = transfers;
  const current = ex
    .selectDistinctOn([t.collection_address, t.token_id], {
      collection_address: t.collection_address,
      token_id: t.token_id,
      owner: t.to_address,
      block_number: t.block_number,
      timestamp: t.timestamp,
    })
    .from(t)
    .where(and(eq(t.chain_id, chainId), app ? eq(t.collection_address, app) : undefined))
    .orderBy(t.collection_address, t.token_id, desc(t.block_number), desc(t.log_index))
    .as('cur');
  const mint = alias(transfers, 'm');
  return ex
    .select({
      app_address: current.collection_address,
      token_id: current.token_id,
      owner: current.owner,
      last_transfer_block: current.block_number,
      last_transfer_at: current.timestamp,
      minted_to: mint.to_address,
      minted_at: mint.timestamp,
      mint_tx_hash: mint.tx_hash,
    })
    .from(current)
    .leftJoin(
      mint,
      and(
        eq(mint.chain_id, chainId),
        eq(mint.collection_address, current.collection_address),
        eq(mint.token_id, current.token_id),
        eq(mint.from_address, ZERO_ADDRESS),
      ),
    )
    .orderBy(current.collection_address, current.token_id)
    .limit(page.limit)
    .offset(page.offset);
}

export type AppTokenRow = Awaited<ReturnType<typeof appTokens>>[number];

/** Mint calls, newest first. */
export function appTokenMintList(ex: Executor, chainId: number, page: Page, app?: string) {
  return ex
    .select()
    .from(appTokenMints)
    .where(and(eq(appTokenMints.chain_id, chainId), app ? eq(appTokenMints.app_address, app) : undefined))
    .orderBy(desc(appTokenMints.block_number), desc(appTokenMints.log_index))
    .limit(page.limit)
    .offset(page.offset);
}

export type MintRow = typeof appTokenMints.$inferSelect;

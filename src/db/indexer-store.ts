/**
 * The indexer's tables (docs/indexer.md): `indexer_state`, `indexed_blocks`, `apps`, `transfers`,
 * `app_token_mints`, `owner_token_transfers`, `contract_upgrades`. Writes only; the indexer's
 * store stage (src/indexer/store.ts) is their one caller and runs them inside one transaction per
 * block range. Reads for the API are in indexer-queries.ts.
 *
 * Invariants: every log row is unique by (chain_id, tx_hash, log_index) and inserted with ON
 * CONFLICT DO NOTHING, so re-running a range adds nothing; the returned keys are the rows this
 * statement really added (the publish stage announces only those). Bulk rows go through
 * recordset.ts (one JSON parameter per 5,000 rows). The rows are the indexer's types
 * (src/domain/ports/indexer-rows.ts); the checks below keep the tables and them the same.
 */
import { and, desc, eq, gt, isNotNull, lt, ne, or, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type {
  AppRecord,
  BlockRecord,
  IndexerState,
  IndexerStatus,
  LogLocation,
  MintRecord,
  OwnerTransferRecord,
  RemovedTransfer,
  TransferRecord,
  UpgradeRecord,
} from '../domain/ports/indexer-rows.ts';
import type { Executor } from './client.ts';
import type { Assert, Same } from './port-rows.ts';
import { selectFromRecordset } from './recordset.ts';
import {
  appTokenMints,
  apps,
  collections,
  contractUpgrades,
  indexedBlocks,
  indexerState,
  ownerTokenTransfers,
  transfers,
} from './schema/index.ts';

const STATUSES: readonly string[] = ['idle', 'indexing', 'reindexing'] satisfies IndexerStatus[];

/** Where a log is: its block, transaction and position, and the block's time. */
type Located = keyof LogLocation;
type LogRow<T extends PgTable, K extends keyof T['$inferInsert']> = Required<
  Pick<T['$inferInsert'], K | Extract<Located, keyof T['$inferInsert']>>
>;

// The indexer's own row types (src/domain/ports/indexer-rows.ts), column for column: each log row is
// its table's insert, the state its table's row (the status narrowed).
type _AppRecord = Assert<Same<AppRecord, LogRow<typeof apps, 'address' | 'factory_address' | 'name' | 'symbol' | 'creator'>>>;
type _TransferRecord = Assert<
  Same<TransferRecord, LogRow<typeof transfers, 'collection_address' | 'token_id' | 'from_address' | 'to_address'>>
>;
type _OwnerTransferRecord = Assert<
  Same<OwnerTransferRecord, LogRow<typeof ownerTokenTransfers, 'app_address' | 'from_address' | 'to_address'>>
>;
type _MintRecord = Assert<Same<MintRecord, LogRow<typeof appTokenMints, 'app_address' | 'to_address' | 'start_token_id' | 'quantity'>>>;
/** `cuts` is jsonb: stored as the FacetCut[] it is given. */
type _UpgradeRecord = Assert<
  Same<Omit<UpgradeRecord, 'cuts'>, LogRow<typeof contractUpgrades, 'contract_address' | 'init_address' | 'init_calldata'>>
>;
type _IndexerState = Assert<Same<Omit<IndexerState, 'status'>, Omit<typeof indexerState.$inferSelect, 'status'>>>;

export const stateId = (chainId: number) => `chain:${chainId}`;

// ---------- indexer_state ----------

export async function readIndexerState(ex: Executor, chainId: number): Promise<IndexerState | undefined> {
  const [row] = await ex
    .select()
    .from(indexerState)
    .where(eq(indexerState.id, stateId(chainId)));
  if (!row) return undefined;
  return { ...row, status: STATUSES.includes(row.status) ? (row.status as IndexerStatus) : 'indexing' };
}

/** The chain's row at `startBlock − 1`, status `indexing`, unless it exists. */
export async function createIndexerState(ex: Executor, chainId: number, startBlock: number): Promise<void> {
  await ex
    .insert(indexerState)
    .values({
      id: stateId(chainId),
      status: 'indexing',
      last_indexed_block: startBlock - 1,
      chain_id: chainId,
      started_at: sql`now()`,
      start_block: startBlock,
    })
    .onConflictDoNothing();
}

export async function markIndexerStarted(ex: Executor, chainId: number): Promise<void> {
  await ex
    .update(indexerState)
    .set({ started_at: sql`now()`, updated_at: sql`now()` })
    .where(eq(indexerState.id, stateId(chainId)));
}

export async function recordIndexerError(ex: Executor, chainId: number, message: string): Promise<void> {
  await ex
    .update(indexerState)
    .set({ last_error: message.slice(0, 2000), updated_at: sql`now()` })
    .where(eq(indexerState.id, stateId(chainId)));
}

/** After a pass: the status and the head; written only when something changed (the pass runs every second). */
export async function settleIndexerState(ex: Executor, chainId: number, status: IndexerStatus, head: number): Promise<void> {
  await ex
    .update(indexerState)
    .set({ status, head_block: head, updated_at: sql`now()`, last_error: null })
    .where(
      and(
        eq(indexerState.id, stateId(chainId)),
        or(ne(indexerState.status, status), sql`${indexerState.head_block} IS DISTINCT FROM ${head}`, isNotNull(indexerState.last_error)),
      ),
    );
}

/** The range up to `last` (hash `hash`) is indexed: the commit point of a range's transaction. */
export async function setIndexerProgress(
  ex: Executor,
  chainId: number,
  p: { last: number; hash: string | null; status: IndexerStatus; head?: number },
): Promise<void> {
  await ex
    .update(indexerState)
    .set({
      last_indexed_block: p.last,
      last_indexed_hash: p.hash,
      status: p.status,
      ...(p.head === undefined ? {} : { head_block: p.head, last_error: null }),
      updated_at: sql`now()`,
    })
    .where(eq(indexerState.id, stateId(chainId)));
}

/** Back to `startBlock − 1` with status `reindexing` (the full reindex). */
export async function resetIndexerState(ex: Executor, chainId: number, startBlock: number): Promise<void> {
  await ex
    .update(indexerState)
    .set({
      status: 'reindexing',
      last_indexed_block: startBlock - 1,
      last_indexed_hash: null,
      start_block: startBlock,
      started_at: sql`now()`,
      updated_at: sql`now()`,
      last_error: null,
    })
    .where(eq(indexerState.id, stateId(chainId)));
}

/** Rolled back to `block` (a reorg): `reindexing` stays, anything else becomes `indexing`. */
export async function rewindIndexerState(ex: Executor, chainId: number, block: number, hash: string | null): Promise<void> {
  await ex
    .update(indexerState)
    .set({
      last_indexed_block: block,
      last_indexed_hash: hash,
      status: sql`CASE WHEN ${indexerState.status} = 'reindexing' THEN 'reindexing' ELSE 'indexing' END`,
      updated_at: sql`now()`,
    })
    .where(eq(indexerState.id, stateId(chainId)));
}

// ---------- what to follow ----------

/** Collections to follow on the chain: the factory's (apps) and every collection record's contract. */
export async function followedAddresses(ex: Executor, chainId: number): Promise<string[]> {
  const fromApps = await ex.select({ address: apps.address }).from(apps).where(eq(apps.chain_id, chainId));
  const fromRecords = await ex
    .selectDistinct({ address: collections.contract_address })
    .from(collections)
    .where(and(eq(collections.chain_id, chainId), isNotNull(collections.contract_address)));
  return [...fromApps.map((r) => r.address), ...fromRecords.flatMap((r) => (r.address ? [r.address] : []))];
}

// ---------- one range ----------

const CHUNK = 5000;
const LOCATED: Located[] = ['block_number', 'block_hash', 'tx_hash', 'log_index', 'timestamp'];

/** Runs `write` on chunks of `rows` (one statement each); the concatenated results. */
async function inChunks<R, O>(rows: readonly R[], write: (part: readonly R[]) => Promise<O[]>): Promise<O[]> {
  const out: O[] = [];
  for (let i = 0; i < rows.length; i += CHUNK) out.push(...(await write(rows.slice(i, i + CHUNK))));
  return out;
}

export const insertApps = (ex: Executor, chainId: number, rows: readonly AppRecord[]) =>
  inChunks(rows, (part) =>
    ex
      .insert(apps)
      .select(
        selectFromRecordset(apps, part, ['address', 'factory_address', 'name', 'symbol', 'creator', ...LOCATED], { chain_id: chainId }),
      )
      .onConflictDoNothing()
      .returning({ tx_hash: apps.tx_hash, log_index: apps.log_index }),
  );

/**
 * Transfers with the deck they belong to, when one exists already (else deck_id null; linked
 * later). With `report` false the added rows are not returned (mints: announced per mint call, not
 * per token; leaving them out of RETURNING spares a backfill most of its result rows).
 */
export const insertTransfers = (
  ex: Executor,
  chainId: number,
  rows: readonly (TransferRecord & { deck_id: string | null })[],
  report = true,
) =>
  inChunks(rows, async (part) => {
    const insert = ex
      .insert(transfers)
      .select(
        selectFromRecordset(transfers, part, ['collection_address', 'token_id', 'deck_id', 'from_address', 'to_address', ...LOCATED], {
          chain_id: chainId,
        }),
      )
      .onConflictDoNothing();
    if (!report) {
      await insert;
      return [];
    }
    return insert.returning({ tx_hash: transfers.tx_hash, log_index: transfers.log_index });
  });

export const insertMints = (ex: Executor, chainId: number, rows: readonly MintRecord[]) =>
  inChunks(rows, (part) =>
    ex
      .insert(appTokenMints)
      .select(
        selectFromRecordset(appTokenMints, part, ['app_address', 'to_address', 'start_token_id', 'quantity', ...LOCATED], {
          chain_id: chainId,
        }),
      )
      .onConflictDoNothing()
      .returning({ tx_hash: appTokenMints.tx_hash, log_index: appTokenMints.log_index }),
  );

export const insertOwnerTransfers = (ex: Executor, chainId: number, rows: readonly OwnerTransferRecord[]) =>
  inChunks(rows, (part) =>
    ex
      .insert(ownerTokenTransfers)
      .select(
        selectFromRecordset(ownerTokenTransfers, part, ['app_address', 'from_address', 'to_address', ...LOCATED], { chain_id: chainId }),
      )
      .onConflictDoNothing()
      .returning({ tx_hash: ownerTokenTransfers.tx_hash, log_index: ownerTokenTransfers.log_index }),
  );

export const insertUpgrades = (ex: Executor, chainId: number, rows: readonly UpgradeRecord[]) =>
  inChunks(rows, (part) =>
    ex
      .insert(contractUpgrades)
      .select(
        selectFromRecordset(contractUpgrades, part, ['contract_address', 'init_address', 'init_calldata', 'cuts', ...LOCATED], {
          chain_id: chainId,
        }),
      )
      .onConflictDoNothing()
      .returning({ tx_hash: contractUpgrades.tx_hash, log_index: contractUpgrades.log_index }),
  );

/** Block hashes for reorg detection; a block seen again takes its new hash. */
export async function upsertBlocks(ex: Executor, chainId: number, rows: readonly BlockRecord[]): Promise<void> {
  await inChunks(rows, async (part) => {
    await ex
      .insert(indexedBlocks)
      .select(selectFromRecordset(indexedBlocks, part, ['block_number', 'block_hash', 'parent_hash'], { chain_id: chainId }))
      .onConflictDoUpdate({
        target: [indexedBlocks.chain_id, indexedBlocks.block_number],
        set: { block_hash: sql`excluded.block_hash`, parent_hash: sql`excluded.parent_hash` },
      });
    return [];
  });
}

// ---------- block hashes ----------

/** Up to `limit` stored block hashes below `below`, newest first. */
export async function storedBlocks(
  ex: Executor,
  chainId: number,
  below: number,
  limit: number,
): Promise<{ number: number; hash: string }[]> {
  return ex
    .select({ number: indexedBlocks.block_number, hash: indexedBlocks.block_hash })
    .from(indexedBlocks)
    .where(and(eq(indexedBlocks.chain_id, chainId), lt(indexedBlocks.block_number, below)))
    .orderBy(desc(indexedBlocks.block_number))
    .limit(limit);
}

/** Keeps the sparse hash history bounded. */
export async function pruneBlocks(ex: Executor, chainId: number, below: number): Promise<void> {
  await ex.delete(indexedBlocks).where(and(eq(indexedBlocks.chain_id, chainId), lt(indexedBlocks.block_number, below)));
}

// ---------- rollback and reindex ----------

/** The tokens that have a transfer above `block` (their owners change when those rows go). */
export async function tokensTransferredAbove(
  ex: Executor,
  chainId: number,
  block: number,
): Promise<{ collection_address: string; token_id: string }[]> {
  return ex
    .selectDistinct({ collection_address: transfers.collection_address, token_id: transfers.token_id })
    .from(transfers)
    .where(and(eq(transfers.chain_id, chainId), gt(transfers.block_number, block)));
}

const LOG_TABLES = [transfers, appTokenMints, ownerTokenTransfers, contractUpgrades, apps] as const;

/** Deletes every indexed row above `block` (a reorg); the transfers removed. */
export async function deleteAbove(ex: Executor, chainId: number, block: number): Promise<RemovedTransfer[]> {
  let removed: RemovedTransfer[] = [];
  for (const table of LOG_TABLES) {
    if (table === transfers) {
      removed = await ex
        .delete(transfers)
        .where(and(eq(transfers.chain_id, chainId), gt(transfers.block_number, block)))
        .returning({
          collection_address: transfers.collection_address,
          token_id: transfers.token_id,
          from_address: transfers.from_address,
          to_address: transfers.to_address,
          tx_hash: transfers.tx_hash,
          log_index: transfers.log_index,
          block_number: transfers.block_number,
        });
      continue;
    }
    await ex.delete(table).where(and(eq(table.chain_id, chainId), gt(table.block_number, block)));
  }
  await ex.delete(indexedBlocks).where(and(eq(indexedBlocks.chain_id, chainId), gt(indexedBlocks.block_number, block)));
  return removed;
}

/** Deletes every indexed row of the chain (the full reindex). */
export async function deleteChain(ex: Executor, chainId: number): Promise<void> {
  for (const table of LOG_TABLES) await ex.delete(table).where(eq(table.chain_id, chainId));
  await ex.delete(indexedBlocks).where(eq(indexedBlocks.chain_id, chainId));
}

/** Stored transfers of the chain (bench and checks). */
export async function countTransfers(ex: Executor, chainId?: number): Promise<number> {
  const [row] = await ex
    .select({ n: sql<number>`count(*)::int` })
    .from(transfers)
    .where(chainId === undefined ? undefined : eq(transfers.chain_id, chainId));
  return row?.n ?? 0;
}

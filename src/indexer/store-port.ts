/**
 * The store as the engine sees it: the one writer of the indexer's rows (port; src/indexer/store.ts
 * is the database implementation, unit tests use an in-memory one).
 *
 * Invariants every implementation keeps: `commitRange` writes a range's rows, its projections,
 * its block hashes and the new `last_indexed_block` all or nothing; re-committing a range adds
 * nothing twice and reports only rows it really added (transfers from zero need not be reported:
 * mints are announced per mint call); `rollbackTo` removes everything above the
 * ancestor and recomputes the owners it touched, all or nothing.
 *
 * The rows it takes and returns are the indexer's own types (src/domain/ports/indexer-rows.ts),
 * which src/db/indexer-store.ts writes; this port imports nothing from src/db.
 */
import type { BlockRecord, IndexerState, IndexerStatus, RemovedTransfer, TransferRecord } from '../domain/ports/indexer-rows.ts';
import type { Added, RangeRows } from './publish.ts';

export interface RangeWrite extends RangeRows {
  from: number;
  to: number;
  /** Hash of block `to`. */
  lastHash: string;
  /** Status once this range is committed. */
  status: IndexerStatus;
  head: number;
  /** Each token's latest transfer in the range (projections.latestPerToken). */
  latest: readonly TransferRecord[];
  blocks: readonly BlockRecord[];
}

export interface IndexerStore {
  readonly chainId: number;
  state(): Promise<IndexerState | undefined>;
  /** The chain's state, created at `startBlock − 1` (status `indexing`) on first use. */
  ensureState(startBlock: number): Promise<IndexerState>;
  markStarted(): Promise<void>;
  recordError(message: string): Promise<void>;
  /** The status and head after a pass (no write when nothing changed). */
  settle(status: IndexerStatus, head: number): Promise<void>;
  /** Addresses of the collections to follow (apps and collection records of the chain). */
  followedAddresses(): Promise<string[]>;
  commitRange(write: RangeWrite): Promise<Added>;
  /** Stored block hashes below `below`, newest first. */
  storedBlocks(below: number, limit: number): Promise<{ number: number; hash: string }[]>;
  pruneBlocks(below: number): Promise<void>;
  /** Rolls back to the common ancestor; the transfers removed (oldest first). */
  rollbackTo(ancestor: { number: number; hash: string | null }): Promise<RemovedTransfer[]>;
  /** Full reindex: every row of the chain gone, owners cleared, state back to `startBlock − 1`, `reindexing`. */
  reset(startBlock: number): Promise<void>;
  /** Links transfers stored before their deck existed and sets those decks' owners; the decks linked. */
  linkDecks(): Promise<number>;
}

/**
 * The rows the ownership indexer's stages produce and its store port (src/indexer/store-port.ts)
 * takes and returns: owned by the indexer (decode, projections, sync, the engine), written by
 * src/db/indexer-store.ts, which asserts that each log row is its table's insert for these
 * columns. Types only, in src/domain so that both sides import them and neither imports the other.
 */

export type IndexerStatus = 'idle' | 'indexing' | 'reindexing';

/** A chain's `indexer_state` row, its status narrowed. */
export interface IndexerState {
  id: string;
  status: IndexerStatus;
  last_indexed_block: number;
  last_indexed_hash: string | null;
  chain_id: number;
  started_at: Date | null;
  updated_at: Date;
  head_block: number | null;
  start_block: number | null;
  last_error: string | null;
}

/** Where a log is: its block, transaction and position, and the block's time. */
export interface LogLocation {
  block_number: number;
  block_hash: string;
  tx_hash: string;
  log_index: number;
  timestamp: Date;
}

/** A collection created by a factory (`apps`). */
export interface AppRecord extends LogLocation {
  address: string;
  factory_address: string;
  name: string;
  symbol: string;
  creator: string;
}

/** An ERC-721 Transfer (`transfers`); `token_id` decimal. */
export interface TransferRecord extends LogLocation {
  collection_address: string;
  token_id: string;
  from_address: string;
  to_address: string;
}

/** A collection's OwnershipTransferred (`owner_token_transfers`). */
export interface OwnerTransferRecord extends LogLocation {
  app_address: string;
  from_address: string;
  to_address: string;
}

/** One mint call: a run of Transfer-from-zero logs of one transaction (`app_token_mints`); `start_token_id` decimal. */
export interface MintRecord extends LogLocation {
  app_address: string;
  to_address: string;
  start_token_id: string;
  quantity: number;
}

export interface FacetCut {
  facetAddress: string;
  action: 'add' | 'replace' | 'remove';
  functionSelectors: string[];
}

/** A DiamondCut (`contract_upgrades`). */
export interface UpgradeRecord extends LogLocation {
  contract_address: string;
  init_address: string;
  init_calldata: string;
  cuts: FacetCut[];
}

export interface BlockRecord {
  block_number: number;
  block_hash: string;
  parent_hash: string | null;
}

/** A row's identity in the API's and the publish stage's terms. */
export interface LogKey {
  tx_hash: string;
  log_index: number;
}

/** A transfer a reorg removed (for the realtime retraction, docs/indexer.md). */
export interface RemovedTransfer {
  collection_address: string;
  token_id: string;
  from_address: string;
  to_address: string;
  tx_hash: string;
  log_index: number;
  block_number: number;
}

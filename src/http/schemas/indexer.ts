/**
 * Request and response schemas of the ownership routes (nft-service.md §4.2; the admin proxy's
 * /api/nft/ownership* forward to them) and of the indexer package API (§4.4). docs/indexer.md.
 */
import { z } from 'zod';
import { address, queryInt } from './common.ts';

// ---------- requests ----------

const chainIdQuery = queryInt(1, 2 ** 31 - 1);
export const pageQuery = z.object({
  limit: queryInt(1, 1000).optional(),
  offset: queryInt(0, 1_000_000_000).optional(),
  chainId: chainIdQuery.optional(),
});
export const chainQuery = z.object({ chainId: chainIdQuery.optional() });
export const appListQuery = pageQuery.extend({ appAddress: address.optional() });
export const appParams = z.object({ appId: address });
export const ownerTokenParams = z.object({ id: address });
export const contractParams = z.object({ contract: z.string().min(1).max(100) });
export const readParams = contractParams.extend({ function: z.string().min(1).max(100) });
export const readQuery = z.object({
  address,
  args: z.string().max(10_000).optional(),
  chainId: chainIdQuery.optional(),
});

// ---------- §4.2 ownership ----------

export const ownershipToken = z.object({
  id: z.string(),
  token_id: z.number(),
  current_owner: z.string().nullable(),
  mint_recipient: z.string().nullable(),
  mint_status: z.string().nullable(),
  last_transfer_at: z.string().nullable(),
});

/** §2.10 transfer record plus chain_id, collection_address, token_id, block_hash, is_mint. */
export const transferRecord = z.object({
  id: z.string(),
  deck_id: z.string(),
  chain_id: z.number(),
  collection_address: z.string(),
  token_id: z.string(),
  from_address: z.string(),
  to_address: z.string(),
  block_number: z.string(),
  block_hash: z.string(),
  tx_hash: z.string(),
  log_index: z.number(),
  timestamp: z.string(),
  is_mint: z.boolean(),
});

/** §2.10 indexer state plus the watchdog's live view. */
export const indexerStateView = z.object({
  id: z.literal('singleton'),
  status: z.enum(['idle', 'indexing', 'reindexing']),
  last_indexed_block: z.string(),
  chain_id: z.number(),
  started_at: z.string().nullable(),
  updated_at: z.string().nullable(),
  head_block: z.string().nullable(),
  lag_blocks: z.number().nullable(),
  running: z.boolean(),
  behind: z.boolean(),
  stalled: z.boolean(),
  warnings: z.array(z.string()),
  last_error: z.string().nullable(),
  initialized: z.boolean(),
  down: z.boolean().describe('no process follows the chain (none here, no live holder of the indexer lease)'),
  indexer_process: z.object({
    running_in: z.enum(['this', 'other', 'none']),
    holder: z.string().nullable().describe('the other process holding the indexer lease (host:pid:id)'),
  }),
});

// ---------- §4.4 ----------

const ownerTokenBase = z.object({
  id: z.string(),
  token_id: z.string(),
  contract_address: z.string(),
  chain_id: z.number(),
  owner: z.string(),
  minted_block: z.string(),
  minted_at: z.string(),
  mint_tx_hash: z.string(),
  updated_block: z.string(),
  updated_at: z.string(),
});
export const ownerToken = ownerTokenBase;
export const ownerTokenDetail = ownerTokenBase.extend({
  transfers: z.array(
    z.object({
      from_address: z.string(),
      to_address: z.string(),
      block_number: z.string(),
      tx_hash: z.string(),
      log_index: z.number(),
      timestamp: z.string(),
    }),
  ),
});

export const app = z.object({
  id: z.string(),
  address: z.string(),
  chain_id: z.number(),
  type: z.literal('collection'),
  name: z.string(),
  symbol: z.string(),
  creator: z.string(),
  owner: z.string().nullable(),
  owner_token_id: z.string(),
  factory_address: z.string(),
  collection_id: z.string().nullable(),
  totalMinted: z.number(),
  block_number: z.string(),
  tx_hash: z.string(),
  created_at: z.string(),
});

export const appToken = z.object({
  app_address: z.string(),
  token_id: z.string(),
  owner: z.string(),
  minted_to: z.string().nullable(),
  minted_at: z.string().nullable(),
  mint_tx_hash: z.string().nullable(),
  last_transfer_block: z.string(),
  last_transfer_at: z.string(),
});

export const appTokenMint = z.object({
  id: z.string(),
  app_address: z.string(),
  to: z.string(),
  start_token_id: z.string(),
  quantity: z.number(),
  block_number: z.string(),
  tx_hash: z.string(),
  log_index: z.number(),
  timestamp: z.string(),
});

export const contractRead = z.object({
  contract: z.string(),
  function: z.string(),
  address: z.string(),
  chain_id: z.number(),
  result: z.string().describe('the return value as a string: bigints in decimal, tuples and arrays as JSON'),
});

export const contractInfo = z.object({
  name: z.string(),
  abi: z.array(z.looseObject({})).describe('the contract ABI (JSON)'),
  address: z.string().nullable(),
  chain_id: z.number(),
});

/**
 * Request and response schemas of the ownership routes (docs/api/nft.md §4.2; the admin proxy's
 * /api/nft/ownership* forward to them) and of the indexer package API (§4.4). docs/indexer.md.
 */
import { z } from 'zod';
import { address, queryInt } from './common.ts';
import { EXAMPLE_CHAIN, EXAMPLE_ID, EXAMPLE_TIME, withExample } from './examples.ts';

// ---------- requests ----------

const chainIdQuery = queryInt(1, 2 ** 31 - 1);
export const pageQuery = z.object({
  limit: queryInt(1, 1000).optional(),
  offset: queryInt(0, 1_000_000_000).optional(),
  chainId: chainIdQuery.optional(),
});
export const chainQuery = z.object({ chainId: chainIdQuery.optional() });
export const appListQuery = pageQuery.extend({ appAddress: address.optional() });
/** A collection contract (an "app"): the example collection's address. */
const appAddress = withExample(address, EXAMPLE_CHAIN.collection);
export const appParams = z.object({ appId: appAddress });
export const ownerTokenParams = z.object({ id: appAddress });
export const contractParams = z.object({ contract: withExample(z.string().min(1).max(100), 'Collection') });
export const readParams = contractParams.extend({ function: withExample(z.string().min(1).max(100), 'balanceOf') });
export const readQuery = z.object({
  address: appAddress,
  args: withExample(z.string().max(10_000), `["${EXAMPLE_CHAIN.collector}"]`).optional(),
  chainId: chainIdQuery.optional(),
});

// ---------- §4.2 ownership ----------

export const ownershipToken = withExample(
  z.object({
    id: z.string(),
    token_id: z.number(),
    current_owner: z.string().nullable(),
    mint_recipient: z.string().nullable(),
    mint_status: z.string().nullable(),
    last_transfer_at: z.string().nullable(),
  }),
  {
    id: EXAMPLE_ID.deck,
    token_id: 1,
    current_owner: EXAMPLE_CHAIN.nextOwner,
    mint_recipient: EXAMPLE_CHAIN.collector,
    mint_status: 'minted',
    last_transfer_at: EXAMPLE_TIME.transferred,
  },
);

/** §2.10 transfer record plus chain_id, collection_address, token_id, block_hash, is_mint. */
export const transferRecord = withExample(
  z.object({
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
  }),
  {
    id: EXAMPLE_ID.transfer,
    deck_id: EXAMPLE_ID.deck,
    chain_id: EXAMPLE_CHAIN.chainId,
    collection_address: EXAMPLE_CHAIN.collection,
    token_id: '1',
    from_address: EXAMPLE_CHAIN.collector,
    to_address: EXAMPLE_CHAIN.nextOwner,
    block_number: '21',
    block_hash: EXAMPLE_CHAIN.blockHash,
    tx_hash: EXAMPLE_CHAIN.transferTx,
    log_index: 1,
    timestamp: EXAMPLE_TIME.transferred,
    is_mint: false,
  },
);

/** §2.10 indexer state plus the watchdog's live view. */
export const indexerStateView = withExample(
  z.object({
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
  }),
  {
    id: 'singleton',
    status: 'idle',
    last_indexed_block: '21',
    chain_id: EXAMPLE_CHAIN.chainId,
    started_at: EXAMPLE_TIME.created,
    updated_at: EXAMPLE_TIME.transferred,
    head_block: '21',
    lag_blocks: 0,
    running: true,
    behind: false,
    stalled: false,
    warnings: [],
    last_error: null,
    initialized: true,
    down: false,
    indexer_process: { running_in: 'this', holder: null },
  },
);

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
/** The example collection's owner token: the platform wallet owns the contract since its deployment. */
const OWNER_TOKEN_EXAMPLE: z.output<typeof ownerTokenBase> = {
  id: EXAMPLE_CHAIN.collection,
  token_id: EXAMPLE_CHAIN.collection,
  contract_address: EXAMPLE_CHAIN.collection,
  chain_id: EXAMPLE_CHAIN.chainId,
  owner: EXAMPLE_CHAIN.platformWallet,
  minted_block: '12',
  minted_at: EXAMPLE_TIME.deployed,
  mint_tx_hash: EXAMPLE_CHAIN.deployTx,
  updated_block: '12',
  updated_at: EXAMPLE_TIME.deployed,
};
export const ownerToken = ownerTokenBase.meta({ example: OWNER_TOKEN_EXAMPLE });
export const ownerTokenDetail = withExample(
  ownerTokenBase.extend({
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
  }),
  {
    ...OWNER_TOKEN_EXAMPLE,
    transfers: [
      {
        from_address: '0x0000000000000000000000000000000000000000',
        to_address: EXAMPLE_CHAIN.platformWallet,
        block_number: '12',
        tx_hash: EXAMPLE_CHAIN.deployTx,
        log_index: 0,
        timestamp: EXAMPLE_TIME.deployed,
      },
    ],
  },
);

export const app = withExample(
  z.object({
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
  }),
  {
    id: EXAMPLE_CHAIN.collection,
    address: EXAMPLE_CHAIN.collection,
    chain_id: EXAMPLE_CHAIN.chainId,
    type: 'collection',
    name: 'Night Foxes',
    symbol: 'NIGHTFOX',
    creator: EXAMPLE_CHAIN.platformWallet,
    owner: EXAMPLE_CHAIN.platformWallet,
    owner_token_id: EXAMPLE_CHAIN.collection,
    factory_address: EXAMPLE_CHAIN.factory,
    collection_id: EXAMPLE_ID.collection,
    totalMinted: 2,
    block_number: '12',
    tx_hash: EXAMPLE_CHAIN.deployTx,
    created_at: EXAMPLE_TIME.deployed,
  },
);

export const appToken = withExample(
  z.object({
    app_address: z.string(),
    token_id: z.string(),
    owner: z.string(),
    minted_to: z.string().nullable(),
    minted_at: z.string().nullable(),
    mint_tx_hash: z.string().nullable(),
    last_transfer_block: z.string(),
    last_transfer_at: z.string(),
  }),
  {
    app_address: EXAMPLE_CHAIN.collection,
    token_id: '1',
    owner: EXAMPLE_CHAIN.nextOwner,
    minted_to: EXAMPLE_CHAIN.collector,
    minted_at: EXAMPLE_TIME.minted,
    mint_tx_hash: EXAMPLE_CHAIN.mintTx,
    last_transfer_block: '21',
    last_transfer_at: EXAMPLE_TIME.transferred,
  },
);

export const appTokenMint = withExample(
  z.object({
    id: z.string(),
    app_address: z.string(),
    to: z.string(),
    start_token_id: z.string(),
    quantity: z.number(),
    block_number: z.string(),
    tx_hash: z.string(),
    log_index: z.number(),
    timestamp: z.string(),
  }),
  {
    id: '6c1e9f42-8d7b-4a35-b0e2-5f9a3c7d1e84',
    app_address: EXAMPLE_CHAIN.collection,
    to: EXAMPLE_CHAIN.collector,
    start_token_id: '1',
    quantity: 1,
    block_number: '14',
    tx_hash: EXAMPLE_CHAIN.mintTx,
    log_index: 0,
    timestamp: EXAMPLE_TIME.minted,
  },
);

export const contractRead = withExample(
  z.object({
    contract: z.string(),
    function: z.string(),
    address: z.string(),
    chain_id: z.number(),
    result: z.string().describe('the return value as a string: bigints in decimal, tuples and arrays as JSON'),
  }),
  { contract: 'Collection', function: 'balanceOf', address: EXAMPLE_CHAIN.collection, chain_id: EXAMPLE_CHAIN.chainId, result: '1' },
);

export const contractInfo = withExample(
  z.object({
    name: z.string(),
    abi: z.array(z.looseObject({})).describe('the contract ABI (JSON)'),
    address: z.string().nullable(),
    chain_id: z.number(),
  }),
  {
    name: 'Collection',
    // Two of its entries.
    abi: [
      {
        inputs: [],
        name: 'totalSupply',
        outputs: [{ internalType: 'uint256', name: '', type: 'uint256' }],
        stateMutability: 'view',
        type: 'function',
      },
      {
        inputs: [{ internalType: 'address', name: 'owner', type: 'address' }],
        name: 'balanceOf',
        outputs: [{ internalType: 'uint256', name: '', type: 'uint256' }],
        stateMutability: 'view',
        type: 'function',
      },
    ],
    address: null,
    chain_id: EXAMPLE_CHAIN.chainId,
  },
);

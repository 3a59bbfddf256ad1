/** The console's collection views (services/collection-views.ts; docs/collections.md "Console views"). */
import { z } from 'zod';
import { collectionView, DEPLOYED_COLLECTION_EXAMPLE } from './collections.ts';
import { address, queryInt, uuid } from './common.ts';
import { EXAMPLE_CHAIN, EXAMPLE_ID, EXAMPLE_PNG_BASE64, EXAMPLE_TIME, EXAMPLE_URL, withExample } from './examples.ts';
import { artworkStatus } from './minting.ts';

const nullableString = z.string().nullable();
const cursor = z.string().trim().min(1).max(512).optional().describe('next_cursor of the previous page');

export const collectionListQuery = z.object({
  cursor,
  limit: queryInt(1, 100).default(20),
  q: z.string().trim().min(1).max(200).optional().describe('case-insensitive part of the title'),
  status: z.string().trim().min(1).max(20).optional().describe('draft or deployed'),
  chain_id: queryInt(1, 2 ** 31 - 1).optional(),
  user_id: z.string().trim().min(1).max(255).optional().describe("operator only: one user's collections"),
  contract_address: address.optional().describe('only the collections deployed at this contract address (any case)'),
});

export const collectionListItem = withExample(
  z.object({
    id: z.string(),
    title: z.string(),
    status: z.string(),
    mint_status: z.string(),
    chain_id: z.number().nullable(),
    chain_name: nullableString.describe('the chain by name'),
    is_global: z.boolean().describe('a develop tool: never deployed nor minted'),
    contract_address: nullableString,
    cover_image_url: nullableString,
    editions: z.number(),
    minted: z.number(),
    max_supply: z.number().nullable(),
    user_id: nullableString,
    created_at: z.string(),
  }),
  {
    id: EXAMPLE_ID.collection,
    title: 'Night Foxes',
    status: 'deployed',
    mint_status: 'deployed',
    chain_id: EXAMPLE_CHAIN.chainId,
    chain_name: 'Local dev chain (31337)',
    is_global: false,
    contract_address: EXAMPLE_CHAIN.collection,
    cover_image_url: EXAMPLE_URL.cover,
    editions: 50,
    minted: 2,
    max_supply: 50,
    user_id: EXAMPLE_ID.user,
    created_at: EXAMPLE_TIME.created,
  },
);

export const collectionList = z.object({ collections: z.array(collectionListItem), next_cursor: nullableString });

export const collectionOverview = withExample(
  z.object({
    collection: collectionView,
    chain: z
      .object({
        chain_id: z.number(),
        address: z.string(),
        name: z.string(),
        symbol: z.string(),
        owner: z.string(),
        minter: z.string(),
        totalSupply: z.string(),
        maxSupply: z.string(),
        mintActive: z.boolean(),
        royalty: z.object({ receiver: z.string(), bps: z.number() }).nullable(),
      })
      .nullable()
      .describe('what the contract says now; null before deployment or when the chain did not answer'),
    chain_error: nullableString,
    share: z
      .object({ page_url: z.string(), embed_url: z.string() })
      .describe("the public mint page and its embed widget's address (docs/mint-page.md)"),
  }),
  {
    collection: DEPLOYED_COLLECTION_EXAMPLE,
    chain: {
      chain_id: EXAMPLE_CHAIN.chainId,
      address: EXAMPLE_CHAIN.collection,
      name: 'Night Foxes',
      symbol: 'NIGHTFOX',
      owner: EXAMPLE_CHAIN.platformWallet,
      minter: EXAMPLE_CHAIN.platformWallet,
      totalSupply: '2',
      maxSupply: '50',
      mintActive: true,
      royalty: { receiver: EXAMPLE_CHAIN.creatorWallet, bps: 500 },
    },
    chain_error: null,
    share: {
      page_url: `http://localhost:3000/mint/${EXAMPLE_ID.collection}`,
      embed_url: `http://localhost:3000/mint/${EXAMPLE_ID.collection}?embed=1`,
    },
  },
);

const trait = z.object({ trait_type: z.string(), value: z.union([z.string(), z.number()]) });

const tokenRecord = z.object({
  token_id: z.number(),
  deck_id: z.string(),
  owner: nullableString.describe('the indexed owner, else the mint recipient'),
  recipient: nullableString,
  mint_status: nullableString,
  metadata_uri: nullableString,
  mint_tx_hash: nullableString,
  mint_recipient: nullableString,
  current_owner: nullableString,
  artwork_status: artworkStatus,
  traits: z.array(trait),
  image: nullableString,
  generation: z.object({
    state: z.enum(['queued', 'generating', 'completed', 'failed', 'none']),
    job_id: nullableString,
    progress: z.number(),
  }),
  tx_hash: nullableString,
  minted_at: nullableString,
});

/** Token 1 of the example collection: minted to a collector, its artwork generated. */
const TOKEN_EXAMPLE: z.output<typeof tokenRecord> = {
  token_id: 1,
  deck_id: EXAMPLE_ID.deck,
  owner: EXAMPLE_CHAIN.collector,
  recipient: EXAMPLE_CHAIN.collector,
  mint_status: 'minted',
  metadata_uri: EXAMPLE_URL.token,
  mint_tx_hash: EXAMPLE_CHAIN.mintTx,
  mint_recipient: EXAMPLE_CHAIN.collector,
  current_owner: EXAMPLE_CHAIN.collector,
  artwork_status: 'completed',
  traits: [
    { trait_type: 'Fur', value: 'Russet' },
    { trait_type: 'Accessory', value: 'Scarf' },
    { trait_type: 'Background', value: 'Aurora' },
  ],
  image: EXAMPLE_URL.image,
  generation: { state: 'completed', job_id: EXAMPLE_ID.job, progress: 100 },
  tx_hash: EXAMPLE_CHAIN.mintTx,
  minted_at: EXAMPLE_TIME.minted,
};
export const tokenItem = tokenRecord.meta({ example: TOKEN_EXAMPLE });

export const tokenListQuery = z.object({
  page: queryInt(1, 1_000_000).default(1),
  limit: queryInt(1, 100).default(50),
  trait: z
    .union([z.string().max(300), z.array(z.string().max(300)).max(20)])
    .optional()
    .transform((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]))
    .describe('<trait_type>:<value>, repeatable: tokens having every one'),
});

export const tokenList = withExample(z.object({ tokens: z.array(tokenItem), page: z.number(), limit: z.number(), total: z.number() }), {
  tokens: [TOKEN_EXAMPLE],
  page: 1,
  limit: 50,
  total: 2,
});

const transferRecord = z.object({
  kind: z.enum(['mint', 'transfer']),
  token_id: z.number(),
  from: z.string(),
  to: z.string(),
  tx_hash: z.string(),
  block_number: z.number(),
  log_index: z.number(),
  timestamp: z.string(),
  purchase: z
    .object({
      buyer: z.string(),
      currency: z.string().nullable().describe('"native" or the ERC-20 address'),
      amount: z.string().nullable().describe("the whole purchase's payment, in the currency's smallest unit"),
      quantity: z.number().nullable(),
      payouts: z
        .array(z.object({ address: z.string(), amount: z.string() }))
        .nullable()
        .describe('each recipient’s share as the contract split it'),
    })
    .optional()
    .describe('present when a collector bought this token on chain (docs/minting.md "On-chain sale")'),
});
const MINT_EVENT: z.output<typeof transferRecord> = {
  kind: 'mint',
  token_id: 1,
  from: '0x0000000000000000000000000000000000000000',
  to: EXAMPLE_CHAIN.collector,
  tx_hash: EXAMPLE_CHAIN.mintTx,
  block_number: 14,
  log_index: 0,
  timestamp: EXAMPLE_TIME.minted,
};
const TRANSFER_EVENT: z.output<typeof transferRecord> = {
  kind: 'transfer',
  token_id: 1,
  from: EXAMPLE_CHAIN.collector,
  to: EXAMPLE_CHAIN.nextOwner,
  tx_hash: EXAMPLE_CHAIN.transferTx,
  block_number: 21,
  log_index: 1,
  timestamp: EXAMPLE_TIME.transferred,
};
const transfer = transferRecord.meta({ example: MINT_EVENT });

export const tokenDetail = withExample(
  tokenRecord.extend({
    metadata: z.record(z.string(), z.unknown()).nullable().describe('the ERC-721 document its tokenURI serves'),
    transfers: z.array(transfer),
    transactions: z.array(z.object({ kind: z.string(), tx_hash: nullableString, status: z.string(), created_at: z.string() })),
  }),
  {
    ...TOKEN_EXAMPLE,
    owner: EXAMPLE_CHAIN.nextOwner,
    current_owner: EXAMPLE_CHAIN.nextOwner,
    metadata: {
      name: 'Night Foxes #1',
      description: 'Fifty foxes under the northern lights, each with its own fur, accessory and sky.',
      image: EXAMPLE_URL.image,
      external_url: EXAMPLE_URL.token,
      attributes: TOKEN_EXAMPLE.traits,
    },
    transfers: [TRANSFER_EVENT, MINT_EVENT],
    transactions: [
      { kind: 'mint', tx_hash: EXAMPLE_CHAIN.mintTx, status: 'mined', created_at: EXAMPLE_TIME.minted },
      {
        kind: 'metadata_update',
        tx_hash: '0x3b1f7c0e9d2a4c6b8e0f1a3c5d7e9b2a4c6e8f0a1b3c5d7e9f1a3b5c7d9e1f3a',
        status: 'mined',
        created_at: EXAMPLE_TIME.completed,
      },
    ],
  },
);

export const tokenDetailParams = z.object({
  collectionId: withExample(uuid, EXAMPLE_ID.collection),
  tokenId: withExample(z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER), 1),
});

export const rarity = withExample(
  z.object({
    minted: z.number(),
    traits: z.array(
      z.object({ trait_type: z.string(), values: z.array(z.object({ value: z.string(), count: z.number(), share: z.number() })) }),
    ),
  }),
  {
    minted: 2,
    traits: [
      {
        trait_type: 'Accessory',
        values: [
          { value: 'Glasses', count: 1, share: 0.5 },
          { value: 'Scarf', count: 1, share: 0.5 },
        ],
      },
      { trait_type: 'Background', values: [{ value: 'Aurora', count: 2, share: 1 }] },
      {
        trait_type: 'Fur',
        values: [
          { value: 'Arctic white', count: 1, share: 0.5 },
          { value: 'Russet', count: 1, share: 0.5 },
        ],
      },
    ],
  },
);

export const activityQuery = z.object({ cursor, limit: queryInt(1, 100).default(50) });
export const activity = withExample(z.object({ events: z.array(transfer), next_cursor: nullableString }), {
  events: [TRANSFER_EVENT, MINT_EVENT],
  next_cursor: null,
});

export const coverBody = withExample(
  z.object({
    base64Data: z.string().min(1, 'required').describe('the image, base64 or a data URL (png, jpeg, webp, gif; at most 10 MB)'),
    mimeType: z.enum(['image/png', 'image/jpeg', 'image/webp', 'image/gif']).optional(),
  }),
  { base64Data: EXAMPLE_PNG_BASE64, mimeType: 'image/png' },
);

/** GET /nft/collections/:id/gas (docs/collections.md "Gas spent"). */
export const collectionGasSpent = withExample(
  z.object({
    collection_id: z.string(),
    chain_id: z.number().int().nullable().describe('null before deployment'),
    transactions: z.number().int().describe('recorded platform transactions with a receipt: the deploy, mints, admin calls'),
    gas_used: z.string().describe('their gasUsed, summed (decimal)'),
    gas_wei: z.string().describe('their gasUsed × effectiveGasPrice, summed: wei as a decimal string'),
    gas_eth: z.string().describe('gas_wei in ether, exact'),
  }),
  {
    collection_id: EXAMPLE_ID.collection,
    chain_id: EXAMPLE_CHAIN.chainId,
    transactions: 3,
    gas_used: '380112',
    gas_wei: '380112000000000',
    gas_eth: '0.000380112',
  },
);

/** The console's collection views (services/collection-views.ts; docs/collections.md "Console views"). */
import { z } from 'zod';
import { collectionView } from './collections.ts';
import { queryInt, uuid } from './common.ts';
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
  contract_address: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, 'expected a 0x-prefixed 20-byte hex address')
    .optional()
    .describe('only the collections deployed at this contract address (any case)'),
});

export const collectionListItem = z.object({
  id: z.string(),
  title: z.string(),
  status: z.string(),
  mint_status: z.string(),
  chain_id: z.number().nullable(),
  contract_address: nullableString,
  cover_image_url: nullableString,
  editions: z.number(),
  minted: z.number(),
  max_supply: z.number().nullable(),
  user_id: nullableString,
  created_at: z.string(),
});

export const collectionList = z.object({ collections: z.array(collectionListItem), next_cursor: nullableString });

export const collectionOverview = z.object({
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
});

const trait = z.object({ trait_type: z.string(), value: z.union([z.string(), z.number()]) });

export const tokenItem = z.object({
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

export const tokenListQuery = z.object({
  page: queryInt(1, 1_000_000).default(1),
  limit: queryInt(1, 100).default(50),
  trait: z
    .union([z.string().max(300), z.array(z.string().max(300)).max(20)])
    .optional()
    .transform((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]))
    .describe('<trait_type>:<value>, repeatable: tokens having every one'),
});

export const tokenList = z.object({ tokens: z.array(tokenItem), page: z.number(), limit: z.number(), total: z.number() });

const transfer = z.object({
  kind: z.enum(['mint', 'transfer']),
  token_id: z.number(),
  from: z.string(),
  to: z.string(),
  tx_hash: z.string(),
  block_number: z.number(),
  log_index: z.number(),
  timestamp: z.string(),
});

export const tokenDetail = tokenItem.extend({
  metadata: z.record(z.string(), z.unknown()).nullable().describe('the ERC-721 document its tokenURI serves'),
  transfers: z.array(transfer),
  transactions: z.array(z.object({ kind: z.string(), tx_hash: nullableString, status: z.string(), created_at: z.string() })),
});

export const tokenDetailParams = z.object({ collectionId: uuid, tokenId: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER) });

export const rarity = z.object({
  minted: z.number(),
  traits: z.array(
    z.object({ trait_type: z.string(), values: z.array(z.object({ value: z.string(), count: z.number(), share: z.number() })) }),
  ),
});

export const activityQuery = z.object({ cursor, limit: queryInt(1, 100).default(50) });
export const activity = z.object({ events: z.array(transfer), next_cursor: nullableString });

export const coverBody = z.object({
  base64Data: z.string().min(1, 'required').describe('the image, base64 or a data URL (png, jpeg, webp, gif; at most 10 MB)'),
  mimeType: z.enum(['image/png', 'image/jpeg', 'image/webp', 'image/gif']).optional(),
});

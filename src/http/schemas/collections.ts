/** Collection request and response schemas (nft-service.md §2.1, §2.4, §4.1, §4.2, §4.3), shared by the backend and the admin proxy. */
import { z } from 'zod';
import { generationDataInput } from '../../domain/generation-data.ts';
import { blockchain, socialOrg, socialPair, uuid } from './common.ts';

const title = z.string().trim().min(1, 'title must not be empty').max(200);
const editions = z.number().int().min(1).max(1_000_000);
const price = z.number().nonnegative().finite();

export const createCollectionBody = z
  .object({
    title,
    description: z.string().max(10_000).default(''),
    editions: editions.default(1),
    price: price.default(0),
    blockchain: blockchain.default('ARBITRUM'),
    data: generationDataInput,
    project_id: uuid.optional(),
    social_org: socialOrg.optional(),
    social_identifier: z.string().trim().min(1).max(255).optional(),
    /** The creator a service-key call makes it for (else the user_id header, else the platform); a user may name only themselves. */
    owner_user_id: uuid.optional(),
  })
  .refine(...socialPair);

const hexAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'expected a 0x-prefixed 20-byte hex address');
// Years 1970–9999: a year below 100 would come back shifted by the date parsing of the drivers.
const instant = z.iso.datetime({ offset: true, message: 'expected an ISO 8601 date-time' }).refine((v) => {
  const year = new Date(v).getUTCFullYear();
  return year >= 1970 && year <= 9999;
}, 'expected a date-time between 1970 and 9999');

/** A collection's mint policy (docs/minting.md "Mint policy"); null clears a field. */
export const mintPolicyFields = {
  mint_access: z
    .enum(['owner', 'public'])
    .optional()
    .describe('owner (default): only the owner and the operator mint; public: anyone, by this policy'),
  mint_price: z
    .union([
      z.string().regex(/^\d{1,60}$/, 'expected stablecoin units as a string of digits'),
      z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
    ])
    .transform(String)
    .nullable()
    .optional()
    .describe('stablecoin units per token (6 decimals); null: price × 10^6'),
  payout_address: hexAddress
    .refine((a) => !/^0x0{40}$/.test(a), 'the zero address cannot receive payments')
    .nullable()
    .optional()
    .describe('where public mint payments go'),
  max_per_wallet: z.number().int().min(1).max(1_000_000).nullable().optional(),
  mint_allowlist: z
    .array(hexAddress)
    .min(1)
    .max(5000)
    .nullable()
    .optional()
    .describe('addresses allowed to mint publicly (more: use mint_merkle_root)'),
  mint_merkle_root: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, 'expected a 0x-prefixed 32-byte hex Merkle root')
    .nullable()
    .optional()
    .describe('root of a sorted-pair keccak256 tree of keccak256(address) leaves; mints send merkle_proof'),
  mint_start: instant.nullable().optional(),
  mint_end: instant.nullable().optional(),
};

export const updateCollectionBody = z.object({
  title: title.optional(),
  description: z.string().max(10_000).optional(),
  editions: editions.optional(),
  price: price.optional(),
  data: generationDataInput.optional(),
  ...mintPolicyFields,
});

export const generateCollectionBody = z
  .object({
    concept: z.string().trim().min(3, 'concept must be at least 3 characters').max(2000),
    save: z.boolean().default(false),
    blockchain: blockchain.default('ARBITRUM'),
    project_id: uuid.optional(),
    social_org: socialOrg.optional(),
    social_identifier: z.string().trim().min(1).max(255).optional(),
    /** The creator a service-key call makes it for (else the user_id header, else the platform); a user may name only themselves. */
    owner_user_id: uuid.optional(),
  })
  .refine(...socialPair);

export const setupCollectionBody = z.object({
  prompt: z.string().trim().min(3, 'prompt must be at least 3 characters').max(2000),
  style_preferences: z.string().trim().max(500).optional(),
});

const nullableString = z.string().nullable();

/** Generation data v2 as stored: version, steps, generations, variables (docs/collections.md "Generation data"). */
export const generationData = z
  .looseObject({ version: z.string() })
  .describe('generation data v2: {version: "v2", steps, generations, variables}, normalized (docs/collections.md)');

/** A collection record as both apps present it (http/present/collections.ts). */
export const collectionView = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  editions: z.number(),
  price: z.number(),
  blockchain: z.string(),
  data: generationData,
  project_id: nullableString,
  user_id: nullableString.describe('the owner; null: the platform'),
  social_org: nullableString,
  social_identifier: nullableString,
  is_custodial: z.boolean(),
  custodied_for: nullableString,
  status: z.string(),
  cover_image_url: nullableString,
  contract_address: nullableString,
  chain_id: z.number().nullable(),
  deploy_tx_hash: nullableString,
  base_token_uri: nullableString,
  mint_status: z.string().describe('draft, deploying, deployed/active, paused, completed'),
  deployed: z.boolean(),
  max_supply: z.number().nullable(),
  tokens_minted: z.number(),
  royalty_bps: z.number().nullable(),
  royalty_receiver: nullableString,
  mint_policy: z.object({
    access: z.enum(['owner', 'public']),
    price: z.string().describe('stablecoin units per token, in effect (mint_price, else price × 10^6)'),
    mint_price: nullableString,
    payout_address: nullableString,
    max_per_wallet: z.number().nullable(),
    allowlist: z.array(z.string()).nullable(),
    merkle_root: nullableString,
    start: nullableString,
    end: nullableString,
  }),
  created_at: z.string(),
  updated_at: z.string(),
});

/** Derived deploy form values (§2.4). */
export const contractParams = z.object({
  name: z.string(),
  symbol: z.string(),
  baseURI: z.string(),
  contractURI: z.string(),
  maxSupply: z.number(),
});

export const collectionWithParams = { collection: collectionView, contractParams };

/** A definition generated from a concept (§4.1.1). */
export const generatedCollection = z.object({
  title: z.string(),
  description: z.string(),
  prompt: z.string(),
  variables: z.array(z.looseObject({ name: z.string() })),
  data: generationData,
});

export const generateCollectionResult = { generated: generatedCollection, collection_id: z.string().optional() };

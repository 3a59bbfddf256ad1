/** Collection request and response schemas (docs/api/nft.md §2.1, §2.4, §4.1, §4.2, §4.3), shared by the backend and the admin proxy. */
import { z } from 'zod';
import { deriveContractParams } from '../../domain/contract-params.ts';
import { generationDataInput, normalizeGenerationData, type GenerationData, type Variable } from '../../domain/generation-data.ts';
import { MAX_PRICE } from '../../domain/mint-policy.ts';
import { address, blockchain, socialOrg, socialPair, uuid } from './common.ts';
import { EXAMPLE_CHAIN, EXAMPLE_ID, EXAMPLE_TIME, EXAMPLE_URL, withExample } from './examples.ts';

const title = z.string().trim().min(1, 'title must not be empty').max(200);
const editions = z.number().int().min(1).max(1_000_000);
/** Whole stablecoins per token, 0 to MAX_PRICE (domain/mint-policy.ts; docs/minting.md "Mint policy"). */
const price = z
  .number()
  .nonnegative()
  .max(MAX_PRICE, `at most ${MAX_PRICE.toLocaleString('en-US')} whole stablecoins (larger amounts: mint_price in units)`);

/**
 * Generation data v2 as a creator writes it (docs/collections.md "Generation data"): one image step
 * whose intent names the variables, three trait variables with weighted options, and one a minter
 * may set (a reference image, blank by default).
 */
export const GENERATION_DATA_EXAMPLE = {
  version: 'v2' as const,
  steps: [
    {
      id: 1,
      nodeName: 'image',
      nodePayload: {
        intent: 'portrait of a $fur fox wearing $accessory, $background behind it, soft rim light, film grain',
        user_image: null,
        optional_ref_image: '$ref_image_1',
        seed: null,
      },
    },
  ],
  generations: { hashes: [], generations: 0, use_custom_hashes: false },
  variables: [
    {
      name: 'fur',
      type: 'pick' as const,
      value_type: 'strings' as const,
      is_feature: true,
      feature_name: 'Fur',
      is_selectable: true,
      is_user_customizable: false,
      required: false,
      value: [
        { value: 'russet', display_name: 'Russet', weight: 60 },
        { value: 'arctic white', display_name: 'Arctic white', weight: 30 },
        { value: 'silver', display_name: 'Silver', weight: 10 },
      ],
    },
    {
      name: 'accessory',
      type: 'pick' as const,
      value_type: 'strings' as const,
      is_feature: true,
      feature_name: 'Accessory',
      is_selectable: true,
      is_user_customizable: false,
      required: false,
      value: [
        { value: 'a knitted scarf', display_name: 'Scarf', weight: 50 },
        { value: 'round brass glasses', display_name: 'Glasses', weight: 35 },
        { value: 'a crown of ferns', display_name: 'Fern crown', weight: 15 },
      ],
    },
    {
      name: 'background',
      type: 'pick' as const,
      value_type: 'strings' as const,
      is_feature: true,
      feature_name: 'Background',
      is_selectable: false,
      is_user_customizable: false,
      required: false,
      value: [
        { value: 'a green aurora over snow', display_name: 'Aurora', weight: 70 },
        { value: 'a birch forest at dusk', display_name: 'Birch forest', weight: 30 },
      ],
    },
    {
      name: 'ref_image_1',
      type: 'pick' as const,
      value_type: 'strings' as const,
      is_feature: false,
      feature_name: 'Reference image',
      is_selectable: false,
      is_user_customizable: true,
      required: false,
      value: [{ value: 'blank://placeholder', display_name: 'none', weight: 1 }],
    },
  ],
};

export { price as priceField };

export const createCollectionBody = z
  .object({
    title,
    description: z.string().max(10_000).default(''),
    editions: editions.default(1),
    price: price.default(0),
    blockchain: blockchain.optional().describe("default: the family of the platform's chain (NFT_CHAIN_ID; docs/chain.md)"),
    /** Optional like every field but the title: an empty v2 definition (docs/collections.md). */
    data: generationDataInput.prefault({ version: 'v2' }),
    project_id: uuid.optional(),
    social_org: socialOrg.optional(),
    social_identifier: z.string().trim().min(1).max(255).optional(),
    /** The creator a service-key call makes it for (else the user_id header, else the platform); a user may name only themselves. */
    owner_user_id: uuid.optional(),
  })
  .refine(...socialPair)
  .meta({
    example: {
      title: 'Night Foxes',
      description: 'Fifty foxes under the northern lights, each with its own fur, accessory and sky.',
      editions: 50,
      price: 0,
      blockchain: 'ARBITRUM',
      data: GENERATION_DATA_EXAMPLE,
    },
  });

const hexAddress = address;
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

export const updateCollectionBody = withExample(
  z.object({
    title: title.optional(),
    description: z.string().max(10_000).optional(),
    editions: editions.optional(),
    price: price.optional(),
    data: generationDataInput.optional(),
    ...mintPolicyFields,
  }),
  {
    description: 'Fifty foxes under the northern lights. Public mint: 5 USDC, two per wallet, for one week.',
    mint_access: 'public',
    mint_price: '5000000',
    payout_address: EXAMPLE_CHAIN.creatorWallet,
    max_per_wallet: 2,
    mint_start: '2025-06-10T16:00:00Z',
    mint_end: '2025-06-17T16:00:00Z',
  },
);

export const generateCollectionBody = z
  .object({
    concept: z.string().trim().min(3, 'concept must be at least 3 characters').max(2000),
    save: z.boolean().default(false),
    blockchain: blockchain.optional().describe("default: the family of the platform's chain (NFT_CHAIN_ID; docs/chain.md)"),
    project_id: uuid.optional(),
    social_org: socialOrg.optional(),
    social_identifier: z.string().trim().min(1).max(255).optional(),
    /** The creator a service-key call makes it for (else the user_id header, else the platform); a user may name only themselves. */
    owner_user_id: uuid.optional(),
  })
  .refine(...socialPair)
  .meta({ example: { concept: 'foxes under the northern lights', save: false, blockchain: 'ARBITRUM' } });

export const setupCollectionBody = withExample(
  z.object({
    prompt: z.string().trim().min(3, 'prompt must be at least 3 characters').max(2000),
    style_preferences: z.string().trim().max(500).optional(),
  }),
  { prompt: 'foxes under the northern lights', style_preferences: 'watercolour' },
);

const nullableString = z.string().nullable();

/** The example as stored: normalized (placeholders for social_pfp and ref_image_1..5 added). */
const STORED_DATA_EXAMPLE = normalizeGenerationData(GENERATION_DATA_EXAMPLE) as GenerationData & Record<string, unknown>;

/** Generation data v2 as stored: version, steps, generations, variables (docs/collections.md "Generation data"). */
export const generationData = z
  .looseObject({ version: z.string() })
  .describe('generation data v2: {version: "v2", steps, generations, variables}, normalized (docs/collections.md)')
  .meta({ example: STORED_DATA_EXAMPLE });

/** A collection record as both apps present it (http/present/collections.ts). */
const collectionRecord = z.object({
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
  chain_name: nullableString.describe('the chain by name: "Arbitrum One", "Local dev chain (31337)"'),
  is_global: z.boolean().describe('a develop tool (built-in Animate, Variation, or marked by the operator): never deployed nor minted'),
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

/** The create example as stored: a draft, owned by the user who created it. */
export const COLLECTION_EXAMPLE: z.output<typeof collectionRecord> = {
  id: EXAMPLE_ID.collection,
  title: 'Night Foxes',
  description: 'Fifty foxes under the northern lights, each with its own fur, accessory and sky.',
  editions: 50,
  price: 0,
  blockchain: 'ARBITRUM',
  data: STORED_DATA_EXAMPLE,
  project_id: null,
  user_id: EXAMPLE_ID.user,
  social_org: null,
  social_identifier: null,
  is_custodial: false,
  custodied_for: null,
  status: 'draft',
  cover_image_url: null,
  contract_address: null,
  chain_id: null,
  chain_name: null,
  is_global: false,
  deploy_tx_hash: null,
  base_token_uri: null,
  mint_status: 'draft',
  deployed: false,
  max_supply: null,
  tokens_minted: 0,
  royalty_bps: null,
  royalty_receiver: null,
  mint_policy: {
    access: 'owner',
    price: '0',
    mint_price: null,
    payout_address: null,
    max_per_wallet: null,
    allowlist: null,
    merkle_root: null,
    start: null,
    end: null,
  },
  created_at: EXAMPLE_TIME.created,
  updated_at: EXAMPLE_TIME.created,
};

/** The same collection once deployed on the dev chain, two tokens minted, with a cover. */
export const DEPLOYED_COLLECTION_EXAMPLE: z.output<typeof collectionRecord> = {
  ...COLLECTION_EXAMPLE,
  status: 'deployed',
  cover_image_url: EXAMPLE_URL.cover,
  contract_address: EXAMPLE_CHAIN.collection,
  chain_id: EXAMPLE_CHAIN.chainId,
  chain_name: 'Local dev chain (31337)',
  deploy_tx_hash: EXAMPLE_CHAIN.deployTx,
  base_token_uri: EXAMPLE_URL.baseURI,
  mint_status: 'deployed',
  deployed: true,
  max_supply: 50,
  tokens_minted: 2,
  royalty_bps: 500,
  royalty_receiver: EXAMPLE_CHAIN.creatorWallet,
  updated_at: EXAMPLE_TIME.deployed,
};

/** A collection record (its example: the draft COLLECTION_EXAMPLE). */
export const collectionView = collectionRecord.meta({ example: COLLECTION_EXAMPLE });

/** Derived deploy form values (§2.4). */
export const contractParams = withExample(
  z.object({
    name: z.string(),
    symbol: z.string(),
    baseURI: z.string(),
    contractURI: z.string(),
    maxSupply: z.number(),
  }),
  deriveContractParams(COLLECTION_EXAMPLE, EXAMPLE_URL.base),
);

export const collectionWithParams = { collection: collectionView, contractParams };

/** A definition generated from a concept (§4.1.1). */
export const generatedCollection = withExample(
  z.object({
    title: z.string(),
    description: z.string(),
    prompt: z.string(),
    variables: z.array(z.looseObject({ name: z.string() })),
    data: generationData,
  }),
  {
    title: 'Foxes Under the Northern Lights',
    description:
      'A generative collection of foxes under the northern lights. Each token draws its fur, accessory and background from weighted options, so rarer combinations make rarer pieces.',
    prompt: GENERATION_DATA_EXAMPLE.steps[0]!.nodePayload.intent,
    variables: STORED_DATA_EXAMPLE.variables.filter((v) => v.is_feature) as Array<Variable & Record<string, unknown>>,
    data: STORED_DATA_EXAMPLE,
  },
);

export const generateCollectionResult = { generated: generatedCollection, collection_id: z.string().optional() };

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

export const updateCollectionBody = z.object({
  title: title.optional(),
  description: z.string().max(10_000).optional(),
  editions: editions.optional(),
  price: price.optional(),
  data: generationDataInput.optional(),
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

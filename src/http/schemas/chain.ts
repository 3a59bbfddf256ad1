/** The admin proxy's chain routes (nft-service.md §2.6–§2.8, §4.1, §4.1.3–§4.1.5; docs/chain-operations.md). */
import { FACTORY_COMPONENTS } from '../../chain/factory.ts';
import { z } from 'zod';
import { ADMIN_ACTION_NAMES } from '../../chain/collection.ts';
import { DEV_CHAIN_ID } from '../../chain/chains.ts';
import { collectionView } from './collections.ts';
import { address, queryInt, uuid } from './common.ts';

export const chainIdQuery = queryInt(1, 2 ** 53 - 1).default(DEV_CHAIN_ID);
export const chainIdBody = z.number().int().positive().default(DEV_CHAIN_ID);
export const MAX_ADDRESSES = 100;

export const deployPlatformBody = z
  .object({ chainId: chainIdBody, force: z.boolean().default(false) })
  .default({ chainId: DEV_CHAIN_ID, force: false });

export const factoryQuery = z.object({ chainId: chainIdQuery, factoryAddress: address.optional() });
export const collectionsQuery = z.object({
  chainId: chainIdQuery,
  addresses: z.string().max(MAX_ADDRESSES * 50, `at most ${MAX_ADDRESSES} addresses`),
});

export const deployCollectionBody = z.object({
  chainId: chainIdBody,
  name: z.string().min(1).max(255),
  symbol: z.string().min(1).max(255),
  baseURI: z.string().max(65_535),
  contractURI: z.string().max(65_535),
  maxSupply: z
    .string()
    .regex(/^[1-9][0-9]{0,12}$/, 'expected a positive integer as a decimal string')
    .refine((v) => !/^[0-9]+$/.test(v) || BigInt(v) < 2n ** 40n, 'must be below 2^40'),
  platformCollectionId: uuid.optional(),
  /** Extensions: default the platform wallet (owner: the platformCollectionId creator's linked wallet when they have one; minter) and no royalty. */
  owner: address.optional(),
  minter: address.optional(),
  royaltyReceiver: address.optional(),
  royaltyBps: z.number().int().min(0).max(10_000).optional(),
});

export const adminActionBody = z.object({
  chainId: chainIdBody,
  collectionAddress: address,
  action: z.enum(ADMIN_ACTION_NAMES),
  /** Checked against the action's type (chain/collection.ts); freezeUpgrades takes none. */
  value: z.unknown().optional(),
});

export const metadataQuery = z.object({
  chainId: chainIdQuery,
  address,
  type: z.enum(['contract', 'token', 'tokens']),
  tokenId: z
    .string()
    .regex(/^[0-9]{1,78}$/, 'expected a token id (decimal integer)')
    .optional(),
});

/** A factory deployment record (§2.7): chain, deployer, time, block and the contract addresses. */
export const deploymentRecord = z.object({
  chainId: z.number(),
  deployer: z.string(),
  timestamp: z.string(),
  blockNumber: z.number(),
  contracts: z.record(z.string(), z.string()),
});

/** Factory state (§2.8); only `address` when the factory has no code (stale). */
export const factoryState = z.object({
  address: z.string(),
  collectionCount: z.string().optional(),
  owner: z.string().optional(),
  facets: z
    .object(Object.fromEntries(FACTORY_COMPONENTS.map((f) => [f, z.string()])) as Record<(typeof FACTORY_COMPONENTS)[number], z.ZodString>)
    .optional(),
});

/** An on-chain collection (§2.6). */
export const onChainCollection = z.object({
  address: z.string(),
  name: z.string(),
  symbol: z.string(),
  owner: z.string(),
  minter: z.string(),
  totalSupply: z.string(),
  maxSupply: z.string(),
  mintActive: z.boolean(),
  contractURI: z.string(),
  collectionId: z.string().nullable(),
});

export const deployedCollection = {
  collection: onChainCollection.pick({
    address: true,
    name: true,
    symbol: true,
    owner: true,
    totalSupply: true,
    maxSupply: true,
    mintActive: true,
  }),
  txHash: z.string(),
  salt: z.string(),
  predictedAddress: z.string(),
  platformCollection: collectionView.optional().describe('the platform record after the write-back (with platformCollectionId)'),
};

/** One of the three metadata reads (§4.1.3): contract, token or tokens. */
export const metadataResult = {
  uri: z.string().optional(),
  owner: z.string().optional(),
  metadata: z.unknown().optional().describe('the fetched JSON document, null when it could not be fetched'),
  metadataError: z.string().optional(),
  tokens: z.array(z.object({ tokenId: z.string(), uri: z.string(), owner: z.string() })).optional(),
  totalSupply: z.string().optional(),
  capped: z.boolean().optional(),
};

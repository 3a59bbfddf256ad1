/** The admin proxy's chain routes (docs/api/nft.md §2.6–§2.8, §4.1, §4.1.3–§4.1.5; docs/chain-operations.md). */
import { FACTORY_COMPONENTS } from '../../chain/factory.ts';
import { z } from 'zod';
import { ADMIN_ACTION_NAMES } from '../../chain/collection.ts';
import { DEV_CHAIN_ID } from '../../chain/chains.ts';
import { collectionView } from './collections.ts';
import { MAX_CONTRACT_SUPPLY, MAX_NAME_BYTES, MAX_ROYALTY_BPS, MAX_SYMBOL_BYTES, MAX_URI_BYTES } from '../../domain/contract-limits.ts';
import { address, maxBytes, queryInt, uuid } from './common.ts';
import { adminSuccess } from './envelope.ts';
import { MAX_ADDRESSES } from '../../services/onchain-reads.ts';
import { EXAMPLE_CHAIN, EXAMPLE_ID, EXAMPLE_URL, withExample } from './examples.ts';

export { MAX_ADDRESSES };

export const chainIdQuery = queryInt(1, 2 ** 53 - 1).default(DEV_CHAIN_ID);
export const chainIdBody = z.number().int().positive().default(DEV_CHAIN_ID);

export const deployPlatformBody = withExample(z.object({ chainId: chainIdBody, force: z.boolean().default(false) }), {
  chainId: EXAMPLE_CHAIN.chainId,
  force: false,
}).default({ chainId: DEV_CHAIN_ID, force: false });

export const factoryQuery = z.object({ chainId: chainIdQuery, factoryAddress: address.optional() });
export const collectionsQuery = z.object({
  chainId: chainIdQuery,
  addresses: withExample(z.string().max(MAX_ADDRESSES * 50, `at most ${MAX_ADDRESSES} addresses`), EXAMPLE_CHAIN.collection),
});

export const deployCollectionBody = withExample(
  z.object({
    chainId: chainIdBody,
    // The contract's limits (domain/contract-limits.ts; docs/contracts.md "URI limits"), in bytes.
    name: z.string().min(1).pipe(maxBytes(MAX_NAME_BYTES)),
    symbol: z.string().min(1).pipe(maxBytes(MAX_SYMBOL_BYTES)),
    baseURI: maxBytes(MAX_URI_BYTES),
    contractURI: maxBytes(MAX_URI_BYTES),
    maxSupply: z
      .string()
      .regex(/^[1-9][0-9]{0,12}$/, 'expected a positive integer as a decimal string')
      .refine((v) => !/^[0-9]+$/.test(v) || BigInt(v) <= BigInt(MAX_CONTRACT_SUPPLY), `at most ${MAX_CONTRACT_SUPPLY} (2^40 - 2)`),
    platformCollectionId: uuid.optional(),
    /** Extensions: default the platform wallet (owner: the platformCollectionId creator's linked wallet when they have one; minter) and no royalty. */
    owner: address.optional(),
    minter: address.optional(),
    royaltyReceiver: address.optional(),
    royaltyBps: z.number().int().min(0).max(MAX_ROYALTY_BPS).optional(),
  }),
  {
    chainId: EXAMPLE_CHAIN.chainId,
    name: 'Night Foxes',
    symbol: 'NIGHTFOX',
    baseURI: EXAMPLE_URL.baseURI,
    contractURI: EXAMPLE_URL.contractURI,
    maxSupply: '50',
    royaltyReceiver: EXAMPLE_CHAIN.creatorWallet,
    royaltyBps: 500,
  },
);

export const adminActionBody = withExample(
  z.object({
    chainId: chainIdBody,
    collectionAddress: address,
    action: z.enum(ADMIN_ACTION_NAMES),
    /** Checked against the action's type (chain/collection.ts); freezeUpgrades takes none. */
    value: z.unknown().optional(),
  }),
  { chainId: EXAMPLE_CHAIN.chainId, collectionAddress: EXAMPLE_CHAIN.collection, action: 'setMintActive', value: true },
);

export const metadataQuery = z.object({
  chainId: chainIdQuery,
  address: withExample(address, EXAMPLE_CHAIN.collection),
  type: z.enum(['contract', 'token', 'tokens']),
  tokenId: withExample(z.string().regex(/^[0-9]{1,78}$/, 'expected a token id (decimal integer)'), '1').optional(),
});

/** The platform contracts on a fresh dev chain (anvil deploys them at these addresses). */
const FACETS = {
  diamondCutFacet: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  diamondLoupeFacet: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
  ownershipFacet: '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0',
  erc721Facet: '0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9',
  mintFacet: '0xDc64a140Aa3E981100a9becA4E685f962f0cF6C9',
  contractURIFacet: '0x5FC8d32690cc91D4c39d9d3abcBD16989F875707',
  metadataUpdateFacet: '0x0165878A594ca255338adfa4d48449f69242Eb8F',
  royaltyFacet: '0xa513E6E4b8f2a923D98304ec87F64353C4D5C853',
  fairnessFacet: '0x2279B7A0a67DB372996a5FaB50D91eAA73d2eBe6',
  saleFacet: '0x8A791620dd6260079BF849Dc5567aDC3F2FdC318',
  collectionInit: '0x610178dA211FEF7D417bC0e6FeD39F05609AD788',
  router: '0x8dAF17A20c9DBA35f005b6324F493785D239719d',
};

/** A factory deployment record (§2.7): chain, deployer, time, block and the contract addresses. */
export const deploymentRecord = withExample(
  z.object({
    chainId: z.number(),
    deployer: z.string(),
    timestamp: z.string(),
    blockNumber: z.number(),
    contracts: z.record(z.string(), z.string()),
  }),
  {
    chainId: EXAMPLE_CHAIN.chainId,
    deployer: EXAMPLE_CHAIN.platformWallet,
    timestamp: '2025-06-02T09:00:12.481Z',
    blockNumber: 10,
    contracts: {
      DiamondCutFacet: FACETS.diamondCutFacet,
      DiamondLoupeFacet: FACETS.diamondLoupeFacet,
      OwnershipFacet: FACETS.ownershipFacet,
      ERC721Facet: FACETS.erc721Facet,
      MintFacet: FACETS.mintFacet,
      ContractURIFacet: FACETS.contractURIFacet,
      CollectionInit: FACETS.collectionInit,
      DiamondFactory: EXAMPLE_CHAIN.factory,
      MetadataUpdateFacet: FACETS.metadataUpdateFacet,
      RoyaltyFacet: FACETS.royaltyFacet,
      FairnessFacet: FACETS.fairnessFacet,
      SaleFacet: FACETS.saleFacet,
      DiamondRouter: FACETS.router,
      Stablecoin: EXAMPLE_CHAIN.stablecoin,
    },
  },
);
const DEPLOYMENT_EXAMPLE = z.globalRegistry.get(deploymentRecord)!.example as z.output<typeof deploymentRecord>;

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
export const onChainCollection = withExample(
  z.object({
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
  }),
  {
    address: EXAMPLE_CHAIN.collection,
    name: 'Night Foxes',
    symbol: 'NIGHTFOX',
    owner: EXAMPLE_CHAIN.platformWallet,
    minter: EXAMPLE_CHAIN.platformWallet,
    totalSupply: '2',
    maxSupply: '50',
    mintActive: true,
    contractURI: EXAMPLE_URL.contractURI,
    collectionId: EXAMPLE_ID.collection,
  },
);

export const deployedCollection = {
  collection: withExample(
    onChainCollection.pick({
      address: true,
      name: true,
      symbol: true,
      owner: true,
      totalSupply: true,
      maxSupply: true,
      mintActive: true,
    }),
    {
      address: EXAMPLE_CHAIN.collection,
      name: 'Night Foxes',
      symbol: 'NIGHTFOX',
      owner: EXAMPLE_CHAIN.platformWallet,
      totalSupply: '0',
      maxSupply: '50',
      mintActive: true,
    },
  ),
  txHash: withExample(z.string(), EXAMPLE_CHAIN.deployTx),
  salt: withExample(z.string(), '0x6f1d0e7c43b2a9f8e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2'),
  predictedAddress: withExample(z.string(), EXAMPLE_CHAIN.collection),
  platformCollection: collectionView.optional().describe('the platform record after the write-back (with platformCollectionId)'),
};

/** One of the three metadata reads (§4.1.3): contract, token or tokens. The example: a token. */
export const metadataResult = {
  uri: withExample(z.string(), EXAMPLE_URL.token).optional(),
  owner: withExample(z.string(), EXAMPLE_CHAIN.collector).optional(),
  metadata: withExample(z.unknown(), {
    name: 'Night Foxes #1',
    description: 'Fifty foxes under the northern lights, each with its own fur, accessory and sky.',
    image: EXAMPLE_URL.image,
    external_url: EXAMPLE_URL.token,
    attributes: [
      { trait_type: 'Fur', value: 'Russet' },
      { trait_type: 'Accessory', value: 'Scarf' },
      { trait_type: 'Background', value: 'Aurora' },
    ],
  })
    .optional()
    .describe('the fetched JSON document, null when it could not be fetched'),
  metadataError: z.string().optional(),
  tokens: z.array(z.object({ tokenId: z.string(), uri: z.string(), owner: z.string() })).optional(),
  totalSupply: z.string().optional(),
  capped: z.boolean().optional(),
};

// ---- the answers of the chain routes (admin/chain.ts) ----

export const deploymentAnswer = withExample(
  adminSuccess({ deployment: deploymentRecord, stale: z.boolean(), error: z.string().optional() }),
  { success: true, deployment: DEPLOYMENT_EXAMPLE, stale: false },
);
export const platformDeployAnswer = withExample(
  adminSuccess({ deployment: deploymentRecord, stale: z.literal(false), deployed: z.boolean() }),
  { success: true, deployment: DEPLOYMENT_EXAMPLE, stale: false, deployed: true },
);
export const factoryAnswer = withExample(adminSuccess({ stale: z.boolean(), factory: factoryState, error: z.string().optional() }), {
  success: true,
  stale: false,
  factory: {
    address: EXAMPLE_CHAIN.factory,
    collectionCount: '1',
    owner: EXAMPLE_CHAIN.platformWallet,
    facets: FACETS,
  },
});
export const onChainCollectionsAnswer = withExample(
  adminSuccess({ collections: z.array(onChainCollection), invalidAddresses: z.array(z.string()) }),
  {
    success: true,
    collections: [z.globalRegistry.get(onChainCollection)!.example as z.output<typeof onChainCollection>],
    invalidAddresses: [],
  },
);
export const adminActionAnswer = withExample(adminSuccess({ txHash: z.string(), action: z.string(), value: z.unknown() }), {
  success: true,
  txHash: '0x2c7b4e1f9a0d3c6e8b5a2f4d7c9e1b3a5d8f0c2e4b6a9d1f3c5e7a9b2d4f6e8a',
  action: 'setMintActive',
  value: true,
});
export const metadataAnswer = adminSuccess(metadataResult);

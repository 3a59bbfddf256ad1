/** Deployment request and response schemas (docs/api/nft.md §3, §4.1.5, §4.3; docs/chain-operations.md). */
import { z } from 'zod';
import { collectionView, contractParams, COLLECTION_EXAMPLE, DEPLOYED_COLLECTION_EXAMPLE } from './collections.ts';
import { deriveContractParams } from '../../domain/contract-params.ts';
import { address, txHash } from './common.ts';
import { EXAMPLE_CHAIN, EXAMPLE_URL, withExample } from './examples.ts';

/**
 * deploy-status: the platform's write of a record's deployment state. `deployed` (default) writes
 * back a deployment (checked on chain); `deploying` claims the record for a deployment the admin
 * proxy is about to send (answers `claimed_at`, which names the transaction); `draft` gives that
 * claim back.
 */
export const deployStatusBody = z
  .object({
    status: z.enum(['deployed', 'deploying', 'draft']).default('deployed'),
    contract_address: address.optional().describe('status deployed: required'),
    chain_id: z.number().int().positive().optional().describe("status deployed: the contract's chain (default NFT_CHAIN_ID)"),
    deploy_tx_hash: txHash
      .optional()
      .describe("status deployed: the createCollection transaction (default: found from the factory's CollectionCreated event)"),
    base_token_uri: z.string().min(1).max(2048).nullable().optional(),
    max_supply: z
      .number()
      .int()
      .min(1)
      .max(2 ** 31 - 1, 'must fit the record (at most 2147483647)')
      .optional()
      .describe('status deployed: the maxSupply the contract was deployed with'),
    claimed_at: z.iso.datetime({ message: 'expected the ISO time of the claim' }).optional(),
  })
  .superRefine((b, ctx) => {
    const required = b.status === 'deployed' ? (['contract_address'] as const) : b.status === 'draft' ? (['claimed_at'] as const) : [];
    for (const field of required) {
      if (b[field] === undefined) ctx.addIssue({ code: 'custom', path: [field], message: `required when status is ${b.status}` });
    }
  })
  .meta({
    example: {
      status: 'deployed',
      contract_address: EXAMPLE_CHAIN.collection,
      chain_id: EXAMPLE_CHAIN.chainId,
      deploy_tx_hash: EXAMPLE_CHAIN.deployTx,
      base_token_uri: EXAMPLE_URL.baseURI,
      max_supply: 50,
    },
  });

export const deployStatusResult = withExample(
  z.object({
    collection: collectionView,
    contractParams,
    claimed_at: z.string().optional().describe('the claim (status deploying): its time names the deployment transaction'),
    owner_wallet: z
      .string()
      .nullable()
      .optional()
      .describe("the claim (status deploying): the creator's linked wallet, the default owner() of the contract (null: none)"),
  }),
  {
    collection: { ...DEPLOYED_COLLECTION_EXAMPLE, tokens_minted: 0, cover_image_url: null, royalty_bps: null, royalty_receiver: null },
    contractParams: deriveContractParams(COLLECTION_EXAMPLE, EXAMPLE_URL.base),
  },
);

/** Deploy by collection id: every field optional, defaults from the record (its contractParams). */
export const designDeployFields = z.object({
  max_supply: z
    .number()
    .int()
    .min(1)
    .max(2 ** 31 - 1, 'must fit the record (at most 2147483647)')
    .optional()
    .describe("default: the collection's editions"),
  royalty_bps: z.number().int().min(0).max(10_000).optional().describe('default 0'),
  royalty_receiver: address.optional().describe("default: the contract's owner()"),
  /** The contract's owner(); default the creator's linked wallet, else the platform wallet. */
  owner: address.optional(),
  name: z.string().trim().min(1).max(255).optional().describe('default: contractParams.name (from the title)'),
  symbol: z.string().trim().min(1).max(32).optional().describe('default: contractParams.symbol (from the title)'),
});

/** Five percent royalty to the creator's wallet; name, symbol, supply and owner from the record. */
const DEPLOY_EXAMPLE = { royalty_bps: 500, royalty_receiver: EXAMPLE_CHAIN.creatorWallet };

/** The body may be left out entirely (Fastify gives null then). */
export const designDeployBody = withExample(designDeployFields.nullish(), DEPLOY_EXAMPLE).transform((b) => b ?? {});

export const designDeployResult = withExample(
  z.object({
    contract_address: z.string().nullable(),
    tx_hash: z.string().nullable(),
    base_token_uri: z.string().nullable(),
    chain_id: z.number().nullable(),
    collection: collectionView,
  }),
  {
    contract_address: EXAMPLE_CHAIN.collection,
    tx_hash: EXAMPLE_CHAIN.deployTx,
    base_token_uri: EXAMPLE_URL.baseURI,
    chain_id: EXAMPLE_CHAIN.chainId,
    collection: { ...DEPLOYED_COLLECTION_EXAMPLE, tokens_minted: 0, cover_image_url: null },
  },
);

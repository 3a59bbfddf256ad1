/**
 * Admin proxy chain routes (nft-service.md §4.1): platform deployment, factory state, collection
 * deployment and reads, admin actions, metadata. Every write goes through the chain's TxSender.
 * Decisions: docs/chain-operations.md.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { getAddress, type Address, type PublicClient } from 'viem';
import { z } from 'zod';
import { collectionAbi } from '../../../contracts/abi/index.ts';
import { ADMIN_ACTION_NAMES, parseAdminValue, readCollection, runAdminAction } from '../../chain/collection.ts';
import { deployCollection, readFactory } from '../../chain/factory.ts';
import { fetchMetadata } from '../../chain/metadata-proxy.ts';
import { shortError, type ChainServices } from '../../chain/platform-chain.ts';
import { DEV_CHAIN_ID } from '../../chain/chains.ts';
import { AppError } from '../../domain/errors.ts';
import { address, queryInt, uuid } from '../schemas/common.ts';
import type { AdminDeps } from './app.ts';

const tags = ['chain'];
const chainIdQuery = queryInt(1, 2 ** 53 - 1).default(DEV_CHAIN_ID);
const chainIdBody = z.number().int().positive().default(DEV_CHAIN_ID);
export const MAX_ENUMERATED_TOKENS = 100;
const MAX_ADDRESSES = 100;

function need(deps: AdminDeps): ChainServices {
  if (!deps.chain) throw new AppError('unavailable', 'chain operations are not configured in this admin proxy');
  return deps.chain;
}

/** The live factory of a chain, or 409 naming the stale record (§7.1). */
async function liveFactory(chain: ChainServices, chainId: number): Promise<{ factory: Address; stamp: string }> {
  const status = await chain.deploymentStatus(chainId);
  if (status.stale) throw new AppError('conflict', status.error!, { stale: true });
  return { factory: status.factoryAddress, stamp: `${status.deployment.blockNumber}:${status.deployment.timestamp}` };
}

async function requireContract(chain: ChainServices, chainId: number, addr: string): Promise<Address> {
  if (!(await chain.hasCode(chainId, addr))) throw new AppError('not_found', `no contract at ${addr} on chain ${chainId}`);
  return getAddress(addr);
}

const rpc = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError('upstream', `${what}: ${shortError(err)}`);
  }
};

const collectionBody = z.object({
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
  /** Extensions: default the platform wallet (owner, minter) and no royalty. */
  owner: address.optional(),
  minter: address.optional(),
  royaltyReceiver: address.optional(),
  royaltyBps: z.number().int().min(0).max(10_000).optional(),
});

export function adminChainRoutes(app: FastifyInstance, deps: AdminDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get('/api/nft/deploy', { schema: { querystring: z.object({ chainId: chainIdQuery }), tags } }, async (req) => {
    const s = await need(deps).deploymentStatus(req.query.chainId);
    return { success: true, deployment: s.deployment, stale: s.stale, ...(s.error ? { error: s.error } : {}) };
  });

  r.post(
    '/api/nft/deploy',
    {
      schema: {
        body: z.object({ chainId: chainIdBody, force: z.boolean().default(false) }).default({ chainId: DEV_CHAIN_ID, force: false }),
        tags,
      },
    },
    async (req) => {
      const chain = need(deps);
      const { chainId, force } = req.body;
      if (!force) {
        const existing = chain.deployment(chainId);
        if (existing && (await chain.hasCode(chainId, existing.contracts.DiamondFactory))) {
          return { success: true, deployment: existing, stale: false, deployed: false };
        }
      }
      const deployment = await chain.deployPlatform(chainId);
      return { success: true, deployment, stale: false, deployed: true };
    },
  );

  r.get(
    '/api/nft/factory',
    { schema: { querystring: z.object({ chainId: chainIdQuery, factoryAddress: address.optional() }), tags } },
    async (req) => {
      const chain = need(deps);
      const { chainId } = req.query;
      const factoryAddress = req.query.factoryAddress
        ? getAddress(req.query.factoryAddress)
        : (await chain.deploymentStatus(chainId)).factoryAddress;
      if (!(await chain.hasCode(chainId, factoryAddress))) {
        return {
          success: true,
          stale: true,
          factory: { address: factoryAddress },
          error: `factory ${factoryAddress} has no code on chain ${chainId} (was the chain reset?); redeploy with POST /api/nft/deploy`,
        };
      }
      const factory = await rpc(`reading factory ${factoryAddress}`, () => readFactory(chain.client(chainId), factoryAddress));
      return { success: true, stale: false, factory };
    },
  );

  r.get(
    '/api/nft/collections',
    {
      schema: {
        querystring: z.object({ chainId: chainIdQuery, addresses: z.string().max(100 * 50, 'at most 100 addresses') }),
        tags,
      },
    },
    async (req) => {
      const chain = need(deps);
      const { chainId } = req.query;
      const list = [
        ...new Set(
          req.query.addresses
            .split(',')
            .map((a) => a.trim())
            .filter(Boolean),
        ),
      ];
      if (list.length > MAX_ADDRESSES) throw new AppError('invalid', `query.addresses: at most ${MAX_ADDRESSES} addresses`);
      const client = chain.client(chainId);
      const results = await Promise.all(
        list.map(async (a) => {
          if (!/^0x[0-9a-fA-F]{40}$/.test(a)) return { invalid: a };
          try {
            if (!(await chain.hasCode(chainId, a))) return { invalid: a };
            return { collection: await readCollection(client, getAddress(a)) };
          } catch (err) {
            if (err instanceof AppError && err.kind !== 'upstream') throw err;
            // No code, or code that does not answer the collection calls.
            return { invalid: a };
          }
        }),
      );
      return {
        success: true,
        collections: results.flatMap((x) => (x.collection ? [x.collection] : [])),
        invalidAddresses: results.flatMap((x) => (x.invalid ? [x.invalid] : [])),
      };
    },
  );

  r.post('/api/nft/collections', { schema: { body: collectionBody, tags } }, async (req) => {
    const chain = need(deps);
    const b = req.body;
    const { factory, stamp } = await liveFactory(chain, b.chainId);
    if (b.platformCollectionId) {
      // 404 when the record does not exist, 409 when it is deployed already: before any gas is spent.
      const found = await deps.backend.call<{ collection: { contract_address: string | null; chain_id: number | null } }>(
        'GET',
        `nft/collections/${b.platformCollectionId}`,
      );
      if (found.collection.contract_address) {
        throw new AppError(
          'conflict',
          `collection ${b.platformCollectionId} is already deployed at ${found.collection.contract_address} on chain ${found.collection.chain_id}; reset it first`,
        );
      }
    }
    const sender = chain.sender(b.chainId);
    const wallet = sender.address;
    const client = chain.client(b.chainId);
    const deployed = await deployCollection({
      client,
      sender,
      factory,
      params: {
        name: b.name,
        symbol: b.symbol,
        baseURI: b.baseURI,
        contractURI: b.contractURI,
        maxSupply: BigInt(b.maxSupply),
        royaltyReceiver: b.royaltyReceiver ? getAddress(b.royaltyReceiver) : '0x0000000000000000000000000000000000000000',
        royaltyBps: b.royaltyBps ?? 0,
        owner: b.owner ? getAddress(b.owner) : wallet,
        minter: b.minter ? getAddress(b.minter) : wallet,
      },
      // One deployment per platform collection and factory deployment, even for concurrent repeats.
      idempotencyKey: b.platformCollectionId ? `deploy-collection:${b.platformCollectionId}:${factory}:${stamp}` : undefined,
    });
    const onChain = await rpc('reading the new collection', () => readCollection(client, deployed.address));
    const result = {
      success: true,
      collection: {
        address: onChain.address,
        name: onChain.name,
        symbol: onChain.symbol,
        owner: onChain.owner,
        totalSupply: onChain.totalSupply,
        maxSupply: onChain.maxSupply,
        mintActive: onChain.mintActive,
      },
      txHash: deployed.txHash,
      salt: deployed.salt,
      predictedAddress: deployed.predictedAddress,
    };
    if (!b.platformCollectionId) return result;
    try {
      const written = await deps.backend.call<{ collection: unknown }>('POST', `nft/collections/${b.platformCollectionId}/deploy-status`, {
        body: {
          contract_address: deployed.address,
          chain_id: b.chainId,
          deploy_tx_hash: deployed.txHash,
          base_token_uri: b.baseURI,
        },
      });
      return { ...result, platformCollection: written.collection };
    } catch (err) {
      // The contract exists: say where, so the write-back can be repeated by hand.
      const message = err instanceof Error ? err.message : String(err);
      throw new AppError(
        err instanceof AppError ? err.kind : 'upstream',
        `collection deployed at ${deployed.address} (tx ${deployed.txHash}) but the write-back failed: ${message}`,
        { address: deployed.address, txHash: deployed.txHash },
      );
    }
  });

  r.post(
    '/api/nft/admin',
    {
      schema: {
        body: z.object({ chainId: chainIdBody, collectionAddress: address, action: z.enum(ADMIN_ACTION_NAMES), value: z.unknown() }),
        tags,
      },
    },
    async (req) => {
      const chain = need(deps);
      const { chainId, action } = req.body;
      const value = parseAdminValue(action, req.body.value);
      const collection = await requireContract(chain, chainId, req.body.collectionAddress);
      const { txHash } = await runAdminAction({
        client: chain.client(chainId),
        sender: chain.sender(chainId),
        address: collection,
        action,
        value,
      });
      return { success: true, txHash, action, value };
    },
  );

  r.get(
    '/api/nft/metadata',
    {
      schema: {
        querystring: z.object({
          chainId: chainIdQuery,
          address,
          type: z.enum(['contract', 'token', 'tokens']),
          tokenId: z
            .string()
            .regex(/^[0-9]{1,78}$/, 'expected a token id (decimal integer)')
            .optional(),
        }),
        tags,
      },
    },
    async (req) => {
      const chain = need(deps);
      const { chainId, type } = req.query;
      const addr = await requireContract(chain, chainId, req.query.address);
      const client = chain.client(chainId);
      const fetchOpts = { rewrites: deps.metadataRewrites ?? defaultRewrites(deps) };
      if (type === 'contract') {
        const uri = await rpc('contractURI()', () => read<string>(client, addr, 'contractURI'));
        const m = await fetchMetadata(uri, fetchOpts);
        return { success: true, uri, metadata: m.ok ? m.metadata : null, ...(m.ok ? {} : { metadataError: m.error }) };
      }
      if (type === 'token') {
        if (req.query.tokenId === undefined) throw new AppError('invalid', 'query.tokenId: required when type is token');
        const tokenId = BigInt(req.query.tokenId);
        const total = await rpc('totalSupply()', () => read<bigint>(client, addr, 'totalSupply'));
        if (tokenId < 1n || tokenId > total) throw new AppError('not_found', `token ${tokenId} of ${addr}`);
        const [uri, owner] = await rpc('tokenURI/ownerOf', () =>
          Promise.all([read<string>(client, addr, 'tokenURI', [tokenId]), read<string>(client, addr, 'ownerOf', [tokenId])]),
        );
        const m = await fetchMetadata(uri, fetchOpts);
        return {
          success: true,
          uri,
          owner: getAddress(owner),
          metadata: m.ok ? m.metadata : null,
          ...(m.ok ? {} : { metadataError: m.error }),
        };
      }
      const total = await rpc('totalSupply()', () => read<bigint>(client, addr, 'totalSupply'));
      const count = Number(total < BigInt(MAX_ENUMERATED_TOKENS) ? total : BigInt(MAX_ENUMERATED_TOKENS));
      const tokens = await rpc('tokenURI/ownerOf', () =>
        Promise.all(
          Array.from({ length: count }, async (_, i) => {
            const id = BigInt(i + 1);
            const [uri, owner] = await Promise.all([
              read<string>(client, addr, 'tokenURI', [id]),
              read<string>(client, addr, 'ownerOf', [id]),
            ]);
            return { tokenId: id.toString(), uri, owner: getAddress(owner) };
          }),
        ),
      );
      return { success: true, tokens, totalSupply: total.toString(), capped: total > BigInt(MAX_ENUMERATED_TOKENS) };
    },
  );
}

function read<T>(client: PublicClient, address: Address, functionName: string, args: unknown[] = []): Promise<T> {
  return client.readContract({ address, abi: collectionAbi, functionName: functionName as never, args: args as never }) as Promise<T>;
}

/** Our own metadata host resolves through the backend this proxy talks to. */
function defaultRewrites(deps: AdminDeps): Array<{ from: string; to: string }> {
  const { METADATA_BASE_URL, BACKEND_API_URL } = deps.config;
  return METADATA_BASE_URL && BACKEND_API_URL && METADATA_BASE_URL !== BACKEND_API_URL
    ? [{ from: METADATA_BASE_URL, to: BACKEND_API_URL }]
    : [];
}

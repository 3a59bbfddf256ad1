/**
 * Admin proxy chain routes (docs/api/nft.md §4.1; docs/chain-operations.md): platform deployment,
 * factory state, collection reads, admin actions, metadata. Every write goes through the chain's
 * tx sender. The whole plugin needs chain services (503 without). Collection deployment is
 * admin/deploy.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { BaseError, ContractFunctionRevertedError, ContractFunctionZeroDataError, getAddress, type Address, type PublicClient } from 'viem';
import { z } from 'zod';
import { collectionAbi } from '../../../contracts/abi/index.ts';
import { readCollection } from '../../chain/collection.ts';
import { authorizeOperatorDeploy, type ContractRecords, runAdminActionAs } from '../../services/chain-admin.ts';
import { readFactory } from '../../chain/factory.ts';
import { fetchMetadata } from '../../chain/metadata-proxy.ts';
import { shortError, type ChainServices } from '../../chain/platform-chain.ts';
import { isAcceptedAddress } from '../../domain/address.ts';
import { AppError } from '../../domain/errors.ts';
import { requires } from '../plugins/availability.ts';
import {
  adminActionAnswer,
  adminActionBody,
  chainIdQuery,
  collectionsQuery,
  deploymentAnswer,
  deployPlatformBody,
  factoryAnswer,
  factoryQuery,
  MAX_ADDRESSES,
  metadataAnswer,
  metadataQuery,
  onChainCollectionsAnswer,
  platformDeployAnswer,
} from '../schemas/chain.ts';
import type { AdminDeps } from './deps.ts';

const tags = ['chain'];
export const MAX_ENUMERATED_TOKENS = 100;
export const NO_CHAIN = 'chain operations are not configured in this admin proxy';

export async function requireContract(chain: ChainServices, chainId: number, addr: string): Promise<Address> {
  if (!(await chain.hasCode(chainId, addr))) throw new AppError('not_found', `no contract at ${addr} on chain ${chainId}`);
  return getAddress(addr);
}

/** Whether a contract read failed because the contract refused it (a revert, or no data back). */
const refusedByContract = (err: unknown): boolean =>
  err instanceof BaseError &&
  Boolean(err.walk((e) => e instanceof ContractFunctionRevertedError || e instanceof ContractFunctionZeroDataError));

/**
 * An RPC read; a failure that is not ours is a 502 naming what was read. `notA`: the read is of
 * an address the client named, as a kind of contract; a revert (or no data back) then means the
 * address is not that kind of contract — the client's mistake, a 400 (`notA` names the field).
 */
export const rpc = async <T>(what: string, fn: () => Promise<T>, notA?: string): Promise<T> => {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AppError) throw err;
    if (notA && refusedByContract(err)) throw new AppError('invalid', `${notA} (${what} reverted)`);
    throw new AppError('upstream', `${what}: ${shortError(err)}`);
  }
};

export async function adminChainRoutes(app: FastifyInstance, deps: AdminDeps) {
  requires(app, () => deps.chain !== undefined, NO_CHAIN);
  const r = app.withTypeProvider<ZodTypeProvider>();
  const chainOf = () => deps.chain!;

  r.get(
    '/api/nft/deploy',
    {
      schema: {
        operationId: 'getPlatformDeployment',
        summary: 'Platform deployment record of a chain',
        description:
          'The factory deployment record (§2.7); stale true plus error when the recorded factory has no code. 404 without a record.',
        tags,
        querystring: z.object({ chainId: chainIdQuery }),
        response: { 200: deploymentAnswer },
      },
    },
    async (req) => {
      const s = await chainOf().deploymentStatus(req.query.chainId);
      return { success: true as const, deployment: s.deployment, stale: s.stale, ...(s.error ? { error: s.error } : {}) };
    },
  );

  r.post(
    '/api/nft/deploy',
    {
      schema: {
        operationId: 'deployPlatform',
        summary: 'Deploy the platform contracts',
        description:
          'The operator only (403 for users). Deploys the factory and facets through the tx sender when there is no record or it is stale (deployed true); otherwise answers the live record (deployed false). force deploys anew.',
        tags,
        body: deployPlatformBody,
        response: { 200: platformDeployAnswer },
      },
    },
    async (req) => {
      authorizeOperatorDeploy(req.caller, 'platform.deploy');
      const chain = chainOf();
      const { chainId, force } = req.body;
      if (!force) {
        // What the chain lost is restored first (the platform contracts included), so a chain
        // that only lost its last blocks never gets a second deployment.
        const { deployment, deployed } = await chain.ensureDeployed(chainId);
        return { success: true as const, deployment, stale: false as const, deployed };
      }
      const deployment = await chain.deployPlatform(chainId);
      return { success: true as const, deployment, stale: false as const, deployed: true };
    },
  );

  r.get(
    '/api/nft/factory',
    {
      schema: {
        operationId: 'getFactory',
        summary: 'Factory state',
        description:
          'collectionCount, owner and facet addresses of the factory (§2.8): the chain record, or factoryAddress. stale true when it has no code.',
        tags,
        querystring: factoryQuery,
        response: { 200: factoryAnswer },
      },
    },
    async (req) => {
      const chain = chainOf();
      const { chainId } = req.query;
      const factoryAddress = req.query.factoryAddress
        ? getAddress(req.query.factoryAddress)
        : (await chain.deploymentStatus(chainId)).factoryAddress;
      if (!(await chain.hasCode(chainId, factoryAddress))) {
        return {
          success: true as const,
          stale: true,
          factory: { address: factoryAddress },
          error: `factory ${factoryAddress} has no code on chain ${chainId} (was the chain reset?); redeploy with POST /api/nft/deploy`,
        };
      }
      const factory = await rpc(
        `reading factory ${factoryAddress}`,
        () => readFactory(chain.client(chainId), factoryAddress),
        // The recorded factory refusing is ours to fix (502); an address the client named, theirs.
        req.query.factoryAddress ? `query.factoryAddress: ${factoryAddress} is not a collection factory on chain ${chainId}` : undefined,
      );
      return { success: true as const, stale: false, factory };
    },
  );

  r.get(
    '/api/nft/collections',
    {
      schema: {
        operationId: 'readCollections',
        summary: 'Read collections on chain',
        description: `Up to ${MAX_ADDRESSES} comma-separated addresses: those that answer the collection calls in collections (§2.6), the others (malformed, no code, not a collection) in invalidAddresses as given.`,
        tags,
        querystring: collectionsQuery,
        response: { 200: onChainCollectionsAnswer },
      },
    },
    async (req) => {
      const chain = chainOf();
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
          // Malformed or mistyped (a wrong checksum): listed as invalid, as given (docs/chain-operations.md).
          if (!isAcceptedAddress(a)) return { invalid: a };
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
        success: true as const,
        collections: results.flatMap((x) => (x.collection ? [x.collection] : [])),
        invalidAddresses: results.flatMap((x) => (x.invalid ? [x.invalid] : [])),
      };
    },
  );

  r.post(
    '/api/nft/admin',
    {
      // The platform wallet signs: a user's credential is checked now, not from the lookup cache.
      config: { freshCaller: true },
      schema: {
        operationId: 'runAdminAction',
        summary: 'Run an admin action on a collection contract',
        description:
          'setMintActive, setMinter, setMaxSupply, setBaseURI, setContractURI, transferOwnership, freezeUpgrades or freezeMetadata (value true or absent), signed by the platform wallet. The operator, or the owner of the collection record whose contract it is (403 for anyone else). value is checked against the action type (400); a creator-owned contract (owner() is not the platform wallet) is 409 naming the owner and the call they send from their wallet; a contract refusal is 409 with the decoded error.',
        tags,
        body: adminActionBody,
        response: { 200: adminActionAnswer },
      },
    },
    async (req) => {
      const { txHash, action, value } = await runAdminActionAs(req.caller, chainOf(), req.body, contractRecordsOf(deps));
      return { success: true as const, txHash, action, value };
    },
  );

  r.get(
    '/api/nft/metadata',
    {
      schema: {
        operationId: 'proxyMetadata',
        summary: 'Metadata of a collection or its tokens',
        description: `contract: {uri, metadata}; token: {uri, owner, metadata}; tokens: {tokens, totalSupply, capped} for ids 1…min(totalSupply, ${MAX_ENUMERATED_TOKENS}). A document that cannot be fetched gives metadata null and metadataError.`,
        tags,
        querystring: metadataQuery,
        response: { 200: metadataAnswer },
      },
    },
    async (req) => {
      const chain = chainOf();
      const { chainId, type } = req.query;
      const addr = await requireContract(chain, chainId, req.query.address);
      const client = chain.client(chainId);
      const fetchOpts = {
        rewrites: deps.metadataRewrites ?? defaultRewrites(deps),
        allowOrigins: ownOrigins(deps),
        ...(deps.fetchResolver ? { resolve: deps.fetchResolver } : {}),
      };
      const fetched = async (uri: string) => {
        const m = await fetchMetadata(uri, fetchOpts);
        return { metadata: m.ok ? m.metadata : null, ...(m.ok ? {} : { metadataError: m.error }) };
      };
      const notACollection = `query.address: ${addr} is not a collection contract on chain ${chainId}`;
      if (type === 'contract') {
        const uri = await rpc('contractURI()', () => read<string>(client, addr, 'contractURI'), notACollection);
        return { success: true as const, uri, ...(await fetched(uri)) };
      }
      const totalSupply = () => rpc('totalSupply()', () => read<bigint>(client, addr, 'totalSupply'), notACollection);
      if (type === 'token') {
        if (req.query.tokenId === undefined) throw new AppError('invalid', 'query.tokenId: required when type is token');
        const tokenId = BigInt(req.query.tokenId);
        const total = await totalSupply();
        if (tokenId < 1n || tokenId > total) throw new AppError('not_found', `token ${tokenId} of ${addr}`);
        const [uri, owner] = await rpc('tokenURI/ownerOf', () =>
          Promise.all([read<string>(client, addr, 'tokenURI', [tokenId]), read<string>(client, addr, 'ownerOf', [tokenId])]),
        );
        return { success: true as const, uri, owner: getAddress(owner), ...(await fetched(uri)) };
      }
      const total = await totalSupply();
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
      return { success: true as const, tokens, totalSupply: total.toString(), capped: total > BigInt(MAX_ENUMERATED_TOKENS) };
    },
  );
}

/**
 * The owners of the collection records naming a contract, asked of the backend with the service
 * key (the proxy's own lookup, docs/api/nft.md §5.2): the policy needs every record, not the
 * caller's view of them.
 */
export function contractRecordsOf(deps: AdminDeps): ContractRecords {
  return {
    async ownersOf(chainId, address) {
      const page = await deps.backend.call<{ collections: Array<{ user_id: string | null }> }>('GET', 'nft/collections', {
        query: { contract_address: address, chain_id: String(chainId), limit: '100' },
      });
      return page.collections.map((c) => c.user_id);
    },
  };
}

function read<T>(client: PublicClient, address: Address, functionName: string, args: unknown[] = []): Promise<T> {
  return client.readContract({ address, abi: collectionAbi, functionName: functionName as never, args: args as never }) as Promise<T>;
}

/**
 * Hosts a metadata URI may name even on an internal address: our own backend and metadata host
 * (the embedded setup serves them on loopback; our metadata host resolves through the backend this
 * proxy talks to) and OUTSIDE_FETCH_ALLOW_ORIGINS. Configuration only.
 */
function ownOrigins(deps: AdminDeps): string[] {
  const { METADATA_BASE_URL, BACKEND_API_URL, OUTSIDE_FETCH_ALLOW_ORIGINS } = deps.config;
  const out = [...OUTSIDE_FETCH_ALLOW_ORIGINS];
  for (const u of [METADATA_BASE_URL, BACKEND_API_URL]) {
    if (u) out.push(new URL(u).origin);
  }
  return out;
}

function defaultRewrites(deps: AdminDeps): Array<{ from: string; to: string }> {
  const { METADATA_BASE_URL, BACKEND_API_URL } = deps.config;
  return METADATA_BASE_URL && BACKEND_API_URL && METADATA_BASE_URL !== BACKEND_API_URL
    ? [{ from: METADATA_BASE_URL, to: BACKEND_API_URL }]
    : [];
}

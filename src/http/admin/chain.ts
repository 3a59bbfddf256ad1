/**
 * Admin proxy chain routes (docs/api/nft.md §4.1; docs/chain-operations.md): platform deployment,
 * factory state, collection reads, admin actions, metadata. Every write goes through the chain's
 * tx sender. The whole plugin needs chain services (503 without). Collection deployment is
 * admin/deploy.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { runAdminActionAs, type ContractRecords } from '../../services/chain-admin.ts';
import { createOnchainReads, MAX_ADDRESSES, MAX_ENUMERATED_TOKENS } from '../../services/onchain-reads.ts';
import { deployPlatformAs } from '../../services/operator-deploy.ts';
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
  metadataAnswer,
  metadataQuery,
  onChainCollectionsAnswer,
  platformDeployAnswer,
} from '../schemas/chain.ts';
import type { AdminDeps } from './deps.ts';

const tags = ['chain'];
export const NO_CHAIN = 'chain operations are not configured in this admin proxy';

export async function adminChainRoutes(app: FastifyInstance, deps: AdminDeps) {
  requires(app, () => deps.chain !== undefined, NO_CHAIN);
  const r = app.withTypeProvider<ZodTypeProvider>();
  const chainOf = () => deps.chain!;
  let reads: ReturnType<typeof createOnchainReads> | undefined;
  const readsOf = () =>
    (reads ??= createOnchainReads(chainOf(), {
      rewrites: deps.metadataRewrites ?? defaultRewrites(deps),
      allowOrigins: ownOrigins(deps),
      ...(deps.fetchResolver ? { resolve: deps.fetchResolver } : {}),
    }));

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
      const { deployment, deployed } = await deployPlatformAs(req.caller, chainOf(), req.body);
      return { success: true as const, deployment, stale: false as const, deployed };
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
      return { success: true as const, ...(await readsOf().factory(req.query.chainId, req.query.factoryAddress)) };
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
      return { success: true as const, ...(await readsOf().collections(req.query.chainId, req.query.addresses.split(','))) };
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
      const { type: _type, ...read } = await readsOf().metadata(req.query);
      return { success: true as const, ...read };
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

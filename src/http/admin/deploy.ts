/**
 * POST /api/nft/collections (docs/api/nft.md §4.1, §4.1.5; docs/chain-operations.md): the
 * operator deploys a collection contract from raw parameters (services/operator-deploy.ts). With
 * platformCollectionId the record lives on the backend: this file is its adapter over HTTP.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DeployRecords } from '../../services/deploy.ts';
import { deployCollectionAs, type RecordClaims } from '../../services/operator-deploy.ts';
import { requires } from '../plugins/availability.ts';
import type { CollectionView } from '../present/collections.ts';
import { deployCollectionBody, deployedCollection } from '../schemas/chain.ts';
import { adminSuccess } from '../schemas/envelope.ts';
import type { AdminDeps } from './deps.ts';
import type { BackendClient } from './backend-client.ts';
import { NO_CHAIN } from './chain.ts';

/** The collection records, on the backend over HTTP (its deploy-status route). */
function backendClaims(backend: BackendClient): RecordClaims<CollectionView> {
  const status = (collectionId: string, body: Record<string, unknown>) =>
    backend.call<{ collection: CollectionView; claimed_at: string; owner_wallet?: string | null }>(
      'POST',
      `nft/collections/${collectionId}/deploy-status`,
      { body },
    );
  return {
    async claim(collectionId) {
      const c = await status(collectionId, { status: 'deploying' });
      return { claimedAt: c.claimed_at, ownerWallet: c.owner_wallet ?? null };
    },
    records: (collectionId, writeBack): DeployRecords<CollectionView> => ({
      writeBack: async (d) =>
        (await status(collectionId, { contract_address: d.address, deploy_tx_hash: d.txHash, ...writeBack })).collection,
      release: async (claimedAt) => {
        await status(collectionId, { status: 'draft', claimed_at: claimedAt });
      },
    }),
  };
}

export async function adminDeployRoutes(app: FastifyInstance, deps: AdminDeps) {
  requires(app, () => deps.chain !== undefined, NO_CHAIN);
  const claims = backendClaims(deps.backend);
  app.withTypeProvider<ZodTypeProvider>().post(
    '/api/nft/collections',
    {
      schema: {
        operationId: 'deployCollection',
        summary: 'Deploy a collection contract',
        description:
          'The operator only (403 for users, who deploy their collection by id: POST /api/nft/collections/deploy). Reads collectionCount (the salt), predicts the address, sends createCollection through the tx sender and takes the address from CollectionCreated. With platformCollectionId the record is claimed first (404 unknown, 409 deployed or being deployed) and the address written back through deploy-status. 409 against a stale factory.',
        tags: ['chain'],
        body: deployCollectionBody,
        response: { 200: adminSuccess(deployedCollection) },
      },
    },
    async (req) => {
      const b = req.body;
      const { deployed, onChain, record } = await deployCollectionAs(req.caller, deps.chain!, claims, b);
      req.log.info(
        {
          collection_id: b.platformCollectionId ?? null,
          contract_address: deployed.address,
          chain_id: b.chainId,
          tx_hash: deployed.txHash,
        },
        'collection deployed',
      );
      return {
        success: true as const,
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
        ...(record ? { platformCollection: record } : {}),
      };
    },
  );
}

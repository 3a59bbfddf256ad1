/**
 * POST /api/nft/collections (docs/api/nft.md §4.1, §4.1.5; docs/chain-operations.md): deploys a
 * collection through the factory with the platform wallet. With platformCollectionId it runs the
 * deploy service's one path with the record on the backend: claim it (deploy-status `deploying`),
 * deploy under the claim's key, write the address back (deploy-status), or give the claim back;
 * a claim this request leaves behind is settled by the backend's crash repair. owner() is `owner`,
 * else the record creator's linked wallet, else the platform wallet (docs/permissions.md).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { getAddress, zeroAddress } from 'viem';
import { readCollection } from '../../chain/collection.ts';
import { AppError } from '../../domain/errors.ts';
import { authorizeOperatorDeploy } from '../../services/chain-admin.ts';
import { DeployPending, deployUnderClaim, type DeployRecords, type Deployed } from '../../services/deploy.ts';
import { deployChainOf } from '../../services/nft-ports.ts';
import { requires } from '../plugins/availability.ts';
import type { CollectionView } from '../present/collections.ts';
import { deployCollectionBody, deployedCollection } from '../schemas/chain.ts';
import { adminSuccess } from '../schemas/envelope.ts';
import type { AdminDeps } from './deps.ts';
import type { BackendClient } from './backend-client.ts';
import { NO_CHAIN, rpc } from './chain.ts';

/** The record side of the deployment path, on the backend over HTTP. */
function backendRecords(
  backend: BackendClient,
  collectionId: string,
  writeBack: { chain_id: number; base_token_uri: string; max_supply?: number },
): DeployRecords<CollectionView> {
  const status = (body: Record<string, unknown>) =>
    backend.call<{ collection: CollectionView }>('POST', `nft/collections/${collectionId}/deploy-status`, { body });
  return {
    writeBack: async (d) => (await status({ contract_address: d.address, deploy_tx_hash: d.txHash, ...writeBack })).collection,
    release: async (claimedAt) => {
      await status({ status: 'draft', claimed_at: claimedAt });
    },
  };
}

export async function adminDeployRoutes(app: FastifyInstance, deps: AdminDeps) {
  requires(app, () => deps.chain !== undefined, NO_CHAIN);
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
      authorizeOperatorDeploy(req.caller, 'collection.deploy_raw');
      const chain = deps.chain!;
      const deployChain = deployChainOf(chain);
      const b = req.body;
      const status = await deployChain.factory(b.chainId);
      if (status.stale) throw new AppError('conflict', status.error ?? `the factory of chain ${b.chainId} has no code`, { stale: true });
      const wallet = deployChain.walletAddress(b.chainId);
      const params = {
        name: b.name,
        symbol: b.symbol,
        baseURI: b.baseURI,
        contractURI: b.contractURI,
        maxSupply: BigInt(b.maxSupply),
        royaltyReceiver: b.royaltyReceiver ? getAddress(b.royaltyReceiver) : zeroAddress,
        royaltyBps: b.royaltyBps ?? 0,
        owner: b.owner ? getAddress(b.owner) : wallet,
        minter: b.minter ? getAddress(b.minter) : wallet,
      };
      let deployed: Deployed;
      let platformCollection: CollectionView | undefined;
      if (b.platformCollectionId) {
        const id = b.platformCollectionId;
        const claim = await deps.backend.call<{ claimed_at: string; owner_wallet?: string | null }>(
          'POST',
          `nft/collections/${id}/deploy-status`,
          { body: { status: 'deploying' } },
        );
        // Without an explicit owner, the record's creator owns the contract when they linked a wallet.
        if (!b.owner && claim.owner_wallet) params.owner = getAddress(claim.owner_wallet);
        const records = backendRecords(deps.backend, id, {
          chain_id: b.chainId,
          base_token_uri: b.baseURI,
          // The record's column holds 32 bits; a larger cap stays on chain only (the overview reads it).
          ...(Number(b.maxSupply) <= 2 ** 31 - 1 ? { max_supply: Number(b.maxSupply) } : {}),
        });
        const done = await deployUnderClaim(deployChain, records, {
          collectionId: id,
          claimedAt: claim.claimed_at,
          chainId: b.chainId,
          factory: status.factoryAddress,
          params,
        });
        deployed = done.deployed;
        platformCollection = done.record;
      } else {
        deployed = await deployChain.deploy(b.chainId, status.factoryAddress, params, undefined).catch((err: unknown) => {
          if (err instanceof DeployPending)
            throw new AppError('unavailable', `the deployment transaction ${err.hash ?? ''} is not mined yet`);
          throw err;
        });
      }
      req.log.info(
        {
          collection_id: b.platformCollectionId ?? null,
          contract_address: deployed.address,
          chain_id: b.chainId,
          tx_hash: deployed.txHash,
        },
        'collection deployed',
      );
      const onChain = await rpc('reading the new collection', () => readCollection(chain.client(b.chainId), deployed.address));
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
        ...(platformCollection ? { platformCollection } : {}),
      };
    },
  );
}

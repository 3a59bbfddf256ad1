/**
 * Backend deployment routes (docs/api/nft.md §3, §4.1.5, §4.3; docs/chain-operations.md): the
 * deploy-status write of the platform and the design-stage deploy. Both run the deploy service's
 * one claim → deploy → write back → recover path; every route here needs the chain (503 without).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Address } from 'viem';
import type { CollectionRow } from '../../db/collections.ts';
import { requires } from '../plugins/availability.ts';
import { collectionWithParams, presentCollection } from '../present/collections.ts';
import { collectionAsIdParams, collectionIdParams, ok } from '../schemas/common.ts';
import { deployStatusBody, deployStatusResult, designDeployBody, designDeployResult } from '../schemas/deploy.ts';
import { envelope } from '../schemas/envelope.ts';
import type { NftRouteOptions } from './collections.ts';

const tags = ['deployment'];

export async function deployRoutes(app: FastifyInstance, { nft, metadataBaseUrl }: NftRouteOptions) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  requires(app, () => nft.has.chain, 'chain operations are not configured in this backend');

  r.post(
    '/nft/collections/:collectionId/deploy-status',
    {
      schema: {
        operationId: 'updateDeployStatus',
        summary: 'Record a deployment state (platform only)',
        description:
          'Service key only. status deployed (default): write back a deployment after checking on chain that the transaction created the contract through the known factory (the same write again is accepted; another address is 409). status deploying: claim the record for a deployment (409 when deployed or being deployed); status draft: give that claim back.',
        tags,
        params: collectionIdParams,
        body: deployStatusBody,
        response: { 200: envelope(deployStatusResult) },
      },
    },
    async (req) => {
      const b = req.body;
      const update =
        b.status === 'deploying'
          ? { status: b.status }
          : b.status === 'draft'
            ? { status: b.status, claimed_at: b.claimed_at! }
            : {
                status: b.status,
                contract_address: b.contract_address as Address,
                chain_id: b.chain_id,
                deploy_tx_hash: b.deploy_tx_hash,
                base_token_uri: b.base_token_uri,
                ...(b.max_supply !== undefined ? { max_supply: b.max_supply } : {}),
              };
      const { row, claimedAt, ownerWallet } = await nft.deploy.updateStatus(req.caller, req.params.collectionId, update);
      if (update.status === 'deployed')
        req.log.info(
          { collection_id: row.id, contract_address: row.contract_address, chain_id: row.chain_id, tx_hash: row.deploy_tx_hash },
          'collection deployed',
        );
      return ok({
        ...collectionWithParams(row, metadataBaseUrl),
        ...(claimedAt ? { claimed_at: claimedAt, owner_wallet: ownerWallet ?? null } : {}),
      });
    },
  );

  r.post(
    '/nft/collections/:id/deploy',
    {
      schema: {
        operationId: 'deployCollectionDesignStage',
        summary: 'Deploy a collection by its id',
        description:
          "Owner or operator. Deploys on NFT_CHAIN_ID from the record alone: name, symbol and URIs from its contractParams, maxSupply its editions, no royalty; each overridable in the body (which may be empty). owner() is `owner`, else the creator's linked wallet, else the platform wallet; the platform wallet mints. A concurrent call is 409; a deployment a crashed call left behind is finished (answered here) or released first.",
        tags,
        params: collectionAsIdParams,
        body: designDeployBody,
        response: { 200: envelope(designDeployResult) },
      },
    },
    async (req) => {
      const { owner, royalty_receiver, ...body } = req.body ?? {};
      const row: CollectionRow = await nft.deploy.deployDesign(req.caller, req.params.id, {
        ...body,
        ...(royalty_receiver ? { royalty_receiver: royalty_receiver as Address } : {}),
        ...(owner ? { owner: owner as Address } : {}),
      });
      req.log.info(
        { collection_id: row.id, contract_address: row.contract_address, chain_id: row.chain_id, tx_hash: row.deploy_tx_hash },
        'collection deployed',
      );
      return ok({
        contract_address: row.contract_address,
        tx_hash: row.deploy_tx_hash,
        base_token_uri: row.base_token_uri,
        chain_id: row.chain_id,
        collection: presentCollection(row),
      });
    },
  );
}

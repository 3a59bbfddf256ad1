/**
 * Backend deployment routes: POST /nft/collections/:collectionId/deploy-status (the write-back of
 * nft-service.md §3/§4.1.5, checked on chain) and the design-stage POST /nft/collections/:id/deploy
 * (§4.3: the whole deployment in one call). Decisions: docs/chain-operations.md.
 */
import { and, eq, isNull, ne, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { getAddress, type Address, type Hex } from 'viem';
import { z } from 'zod';
import { assertCanModify, collectionWithParams, getCollection, presentCollection, type CollectionRow } from '../../db/collections.ts';
import { collections } from '../../db/schema/index.ts';
import { deriveName, deriveSymbol, metadataUrls } from '../../domain/contract-params.ts';
import { AppError, conflict, forbidden, invalid } from '../../domain/errors.ts';
import { deployCollection, receiptCreatedCollection } from '../../chain/factory.ts';
import { designDeployKeyPrefix, repairDeploy } from '../../chain/repair.ts';
import { TxTimeoutError } from '../../chain/tx-sender.ts';
import { assertSupportedChain, shortError, type ChainServices } from '../../chain/platform-chain.ts';
import { address, collectionIdParams, idParams, ok, txHash } from '../schemas/common.ts';
import type { BackendDeps } from './app.ts';
import { isTrusted } from './collections.ts';

const tags = ['deployment'];

export const deployStatusBody = z.object({
  contract_address: address,
  chain_id: z.number().int().positive(),
  deploy_tx_hash: txHash,
  base_token_uri: z.string().min(1).max(2048).nullable().optional(),
});

export const designDeployBody = z.object({
  max_supply: z
    .number()
    .int()
    .min(1)
    .max(2 ** 40 - 1),
  royalty_bps: z.number().int().min(0).max(10_000),
  royalty_receiver: address,
});

function needChain(deps: BackendDeps): ChainServices {
  if (!deps.chain) throw new AppError('unavailable', 'chain operations are not configured in this backend');
  return deps.chain;
}

/**
 * Checks that `contract` has code on `chainId` and that `txHash` created it through the chain's
 * known factory (a CollectionCreated event of that factory naming it). 400 naming the field.
 */
export async function verifyDeployment(chain: ChainServices, chainId: number, contract: Address, hash: Hex): Promise<void> {
  assertSupportedChain(chainId, 'body.chain_id');
  const record = chain.deployment(chainId);
  if (!record) throw invalid(`body.chain_id: no factory deployment is known for chain ${chainId}`);
  if (!(await chain.hasCode(chainId, contract))) {
    throw invalid(`body.contract_address: no contract code at ${contract} on chain ${chainId}`);
  }
  let receipt;
  try {
    receipt = await chain.client(chainId).getTransactionReceipt({ hash });
  } catch (err) {
    if ((err as Error).name === 'TransactionReceiptNotFoundError' || /could not be found/i.test((err as Error).message)) {
      throw invalid(`body.deploy_tx_hash: no mined transaction ${hash} on chain ${chainId}`);
    }
    throw new AppError('upstream', `chain ${chainId} RPC did not answer: ${shortError(err)}`);
  }
  if (receipt.status !== 'success' || !receiptCreatedCollection(receipt, record.contracts.DiamondFactory, contract)) {
    throw invalid(
      `body.contract_address: ${contract} was not created by the platform factory ${record.contracts.DiamondFactory} in transaction ${hash}`,
    );
  }
}

export function deployRoutes(app: FastifyInstance, deps: BackendDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps.database;
  const metadataBase = deps.metadataBaseUrl;

  r.post(
    '/nft/collections/:collectionId/deploy-status',
    { schema: { params: collectionIdParams, body: deployStatusBody, tags } },
    async (req) => {
      // The write-back is the admin proxy's (service key): a user deploys through /deploy.
      if (!isTrusted(req.auth.method)) throw forbidden('deploy-status is written by the platform (service key) only');
      const chain = needChain(deps);
      const current = await getCollection(db, req.params.collectionId);
      const b = req.body;
      const contract = getAddress(b.contract_address);
      if (current.contract_address) {
        if (getAddress(current.contract_address) === contract && current.chain_id === b.chain_id) {
          return ok(collectionWithParams(current, metadataBase)); // the same write again
        }
        throw conflict(
          `collection ${current.id} is already deployed at ${current.contract_address} on chain ${current.chain_id}; reset it first`,
        );
      }
      await verifyDeployment(chain, b.chain_id, contract, b.deploy_tx_hash as Hex);
      const baseTokenUri = b.base_token_uri ?? metadataUrls(metadataBase, current.id).baseURI;
      const [row] = await db
        .update(collections)
        .set({
          contract_address: contract,
          chain_id: b.chain_id,
          deploy_tx_hash: b.deploy_tx_hash.toLowerCase(),
          base_token_uri: baseTokenUri,
          mint_status: 'deployed',
          updated_at: sql`now()`,
        })
        .where(and(eq(collections.id, current.id), isNull(collections.contract_address)))
        .returning();
      if (!row) {
        const again = await getCollection(db, current.id);
        if (again.contract_address && getAddress(again.contract_address) === contract) return ok(collectionWithParams(again, metadataBase));
        throw conflict(`collection ${current.id} was deployed concurrently at ${again.contract_address}`);
      }
      return ok(collectionWithParams(row, metadataBase));
    },
  );

  r.post('/nft/collections/:id/deploy', { schema: { params: idParams, body: designDeployBody, tags } }, async (req) => {
    const chain = needChain(deps);
    let current = await getCollection(db, req.params.id);
    assertCanModify(current, { userId: req.auth.userId, isService: isTrusted(req.auth.method) });
    const answer = (row: CollectionRow) => ({
      contract_address: row.contract_address,
      tx_hash: row.deploy_tx_hash,
      base_token_uri: row.base_token_uri,
      chain_id: row.chain_id,
      collection: presentCollection(row),
    });
    if (current.mint_status === 'deploying' && !current.contract_address) {
      // A claim left by a request that died: finish it from its transaction, or release it
      // (src/chain/repair.ts). A deploy that did happen is answered as this call's result.
      const settled = await repairDeploy(db, current.id);
      current = await getCollection(db, current.id);
      if (settled === 'finished') return ok(answer(current));
    }
    if (current.contract_address) {
      throw conflict(`collection ${current.id} is already deployed at ${current.contract_address}; reset it first`);
    }
    const chainId = deps.config.NFT_CHAIN_ID;
    const status = await chain.deploymentStatus(chainId).catch((err: unknown) => {
      if (err instanceof AppError && err.kind === 'not_found') {
        throw new AppError(
          'unavailable',
          `no factory is deployed on chain ${chainId}; deploy it first (POST /api/nft/deploy on the admin proxy)`,
        );
      }
      throw err;
    });
    if (status.stale) throw new AppError('unavailable', status.error!, { stale: true });
    // Claim the deployment: one call deploys, a concurrent one gets 409.
    const previous = current.mint_status;
    const [claimed] = await db
      .update(collections)
      .set({ mint_status: 'deploying', updated_at: sql`now()` })
      .where(and(eq(collections.id, current.id), isNull(collections.contract_address), ne(collections.mint_status, 'deploying')))
      .returning();
    if (!claimed) throw conflict(`collection ${current.id} is being deployed by another request`);
    const b = req.body;
    const urls = metadataUrls(metadataBase, current.id);
    let row: CollectionRow | undefined;
    try {
      const sender = chain.sender(chainId);
      const deployed = await deployCollection({
        client: chain.client(chainId),
        sender,
        factory: status.factoryAddress,
        params: {
          name: deriveName(current.title),
          symbol: deriveSymbol(current.title),
          baseURI: urls.baseURI,
          contractURI: urls.contractURI,
          maxSupply: BigInt(b.max_supply),
          royaltyReceiver: getAddress(b.royalty_receiver),
          royaltyBps: b.royalty_bps,
          // The platform wallet owns and mints: admin actions and mints are signed by it.
          owner: sender.address,
          minter: sender.address,
        },
        idempotencyKey: `${designDeployKeyPrefix(current.id)}${claimed.updated_at.toISOString()}`,
      });
      [row] = await db
        .update(collections)
        .set({
          contract_address: deployed.address,
          chain_id: chainId,
          deploy_tx_hash: deployed.txHash.toLowerCase(),
          base_token_uri: urls.baseURI,
          max_supply: b.max_supply,
          royalty_bps: b.royalty_bps,
          royalty_receiver: getAddress(b.royalty_receiver),
          blockchain: 'ARBITRUM',
          mint_status: 'deployed',
          updated_at: sql`now()`,
        })
        .where(eq(collections.id, current.id))
        .returning();
    } catch (err) {
      if (err instanceof TxTimeoutError) {
        // Sent but not mined yet: keep the claim; the crash repair (or the next call) finishes it.
        throw new AppError(
          'unavailable',
          `the deployment transaction ${err.hash ?? ''} is not mined yet; the collection is recorded when it is (call again later)`,
        );
      }
      await db
        .update(collections)
        .set({ mint_status: previous, updated_at: sql`now()` })
        .where(and(eq(collections.id, current.id), eq(collections.mint_status, 'deploying')));
      throw err;
    }
    return ok(answer(row!));
  });
}

/**
 * Collection deployment (docs/api/nft.md §3, §4.1.5, §4.3; docs/chain-operations.md): ONE path for
 * the design-stage deploy, the admin proxy's deploy of a platform record and the crash repair.
 *
 * 1. claim: the record becomes `deploying` in one conditional statement (a concurrent deploy
 *    gets 409); the claim's time names its chain transaction: key `deploy:<id>:<claim time>`;
 * 2. deploy: createCollection through the tx sender under that key;
 * 3. write back: the deployment onto the record;
 * 4. recover: a claim whose request died is finished from its mined transaction, or released
 *    when that failed or none was sent within the grace period (`recover`, run first by a later
 *    deploy of the record and by the repair pass for every record left `deploying`).
 * A send that is not mined yet keeps its claim (503); any other failure before the contract exists
 * releases it; a failure after it exists keeps it, so the repair records what the chain did.
 */
import { getAddress, type Address } from 'viem';
import type { StoredDeployment } from '../chain/receipts.ts';
import type { CollectionRow } from '../db/collections.ts';
import type { DeploymentWrite, DeployTransaction } from '../db/deploy-claims.ts';
import { deriveName, deriveSymbol, metadataUrls } from '../domain/contract-params.ts';
import { blockchainOf } from '../domain/chain-names.ts';
import { refuseGlobalCollection } from '../domain/collection-kind.ts';
import { AppError, conflict } from '../domain/errors.ts';
import { authorize, authorizeContractOwner, type Caller } from '../domain/policy.ts';

export const deployKeyPrefix = (collectionId: string) => `deploy:${collectionId}:`;
export const deployKey = (collectionId: string, claimedAt: string) => `${deployKeyPrefix(collectionId)}${claimedAt}`;
/** Keys of design-stage deploys sent before the one scheme (their claims are still recovered). */
const legacyKeyPrefix = (collectionId: string) => `design-deploy:${collectionId}:`;

/** Thrown by a DeployChain when the transaction was sent but is not mined yet. */
export class DeployPending extends Error {
  constructor(readonly hash: string | null) {
    super(`deployment transaction ${hash ?? ''} not mined yet`);
    this.name = 'DeployPending';
  }
}

export interface DeployParams {
  name: string;
  symbol: string;
  baseURI: string;
  contractURI: string;
  maxSupply: bigint;
  royaltyReceiver: Address;
  royaltyBps: number;
  owner: Address;
  minter: Address;
}

export interface Deployed {
  address: Address;
  txHash: string;
  salt: string;
  predictedAddress: Address;
}

/** The chain side (chain/factory.ts through the chain's tx sender). */
export interface DeployChain {
  /** The chain's factory deployment: 404 without a record; `stale` when the factory has no code. */
  factory(chainId: number): Promise<{ factoryAddress: Address; stale: boolean; error?: string }>;
  /** The platform wallet that signs (and by default owns and mints). */
  walletAddress(chainId: number): Address;
  /** createCollection under `key`; DeployPending when sent but not mined. */
  deploy(chainId: number, factory: Address, params: DeployParams, key: string | undefined): Promise<Deployed>;
  /**
   * 400 naming the field unless `txHash` (absent: the factory's CollectionCreated event for
   * `contract`) created `contract` through the chain's known factory; that hash, and the
   * contract's maxSupply when it answers.
   */
  verifyCreated(chainId: number, contract: Address, txHash?: string): Promise<{ txHash: string; maxSupply: number | undefined }>;
  /** A mined createCollection read back from its stored transaction. */
  deploymentOf(tx: DeployTransaction): StoredDeployment | undefined;
}

/** Where the record lives: this database (backend), or the backend over HTTP (admin proxy). */
export interface DeployRecords<R> {
  writeBack(deployed: Deployed, claimedAt: string): Promise<R>;
  release(claimedAt: string): Promise<void>;
}

/** Steps 2–3 for a record claimed at `claimedAt` (step 1 is the caller's: locally or over HTTP). */
export async function deployUnderClaim<R>(
  chain: DeployChain,
  records: DeployRecords<R>,
  req: { collectionId: string; claimedAt: string; chainId: number; factory: Address; params: DeployParams },
): Promise<{ deployed: Deployed; record: R }> {
  let deployed: Deployed;
  try {
    deployed = await chain.deploy(req.chainId, req.factory, req.params, deployKey(req.collectionId, req.claimedAt));
  } catch (err) {
    if (err instanceof DeployPending) {
      throw new AppError(
        'unavailable',
        `the deployment transaction ${err.hash ?? ''} is not mined yet; the collection is recorded when it is (call again later)`,
      );
    }
    await records.release(req.claimedAt).catch(() => undefined);
    throw err;
  }
  try {
    return { deployed, record: await records.writeBack(deployed, req.claimedAt) };
  } catch (err) {
    // The contract exists: say where, so the write-back can be repeated (the repair does it too).
    const message = err instanceof Error ? err.message : String(err);
    throw new AppError(
      err instanceof AppError ? err.kind : 'upstream',
      `collection deployed at ${deployed.address} (tx ${deployed.txHash}) but the write-back failed: ${message}`,
      { address: deployed.address, txHash: deployed.txHash },
    );
  }
}

export interface DeployStore {
  getCollection(id: string): Promise<CollectionRow>;
  claimDeploy(id: string): Promise<CollectionRow | undefined>;
  finishDeploy(id: string, write: DeploymentWrite, condition: 'claimed' | 'undeployed'): Promise<CollectionRow | undefined>;
  releaseDeploy(id: string, claimedAt: string): Promise<boolean>;
  deployingCollections(): Promise<string[]>;
  latestTransactionByKeyPrefix(prefixes: string[]): Promise<DeployTransaction | undefined>;
  /** The creator's linked wallet (user_identity of the wallet provider), or null. */
  linkedWalletOf(userId: string): Promise<string | null>;
  /** Whether `address` is a wallet `userId` proved (any of their linked wallets). */
  isWalletOf(userId: string, address: string): Promise<boolean>;
}

export interface DeployPorts {
  store: DeployStore;
  /** Absent: no chain in this backend (the routes answer 503 before reaching here). */
  chain?: DeployChain;
  metadataBaseUrl: string;
  /** The chain the design stage deploys on (NFT_CHAIN_ID). */
  chainId: number;
  now?: () => number;
}

export type DeployRepair = 'finished' | 'released' | 'pending' | 'none';

/** The deploy-status body: a claim, a release, or the write-back of a deployment made elsewhere. */
export type StatusUpdate =
  | { status: 'deploying' }
  | { status: 'draft'; claimed_at: string }
  | {
      status: 'deployed';
      contract_address: Address;
      /** Default: the backend's chain (NFT_CHAIN_ID). */
      chain_id?: number;
      /** Default: the transaction of the factory's CollectionCreated event for the address. */
      deploy_tx_hash?: string;
      base_token_uri?: string | null;
      max_supply?: number;
    };

export type DeployService = ReturnType<typeof createDeployService>;

export function createDeployService({ store, chain, metadataBaseUrl, chainId, now = Date.now }: DeployPorts) {
  const needChain = () => {
    if (!chain) throw new AppError('unavailable', 'chain operations are not configured in this backend');
    return chain;
  };
  const alreadyDeployed = (c: CollectionRow) =>
    conflict(`collection ${c.id} is already deployed at ${c.contract_address} on chain ${c.chain_id}; reset it first`);

  /** Settles one record left `deploying` (see the header). */
  async function recover(collectionId: string, opts: { graceMs?: number } = {}): Promise<DeployRepair> {
    const c = await store.getCollection(collectionId).catch(() => undefined);
    if (!c || c.mint_status !== 'deploying' || c.contract_address) return 'none';
    const claimedAt = c.updated_at.toISOString();
    const tx = await store.latestTransactionByKeyPrefix([deployKeyPrefix(c.id), legacyKeyPrefix(c.id)]);
    const release = async () => ((await store.releaseDeploy(c.id, claimedAt)) ? 'released' : 'pending');
    const ofThisClaim =
      tx?.idempotency_key === deployKey(c.id, claimedAt) || tx?.idempotency_key === `${legacyKeyPrefix(c.id)}${claimedAt}`;
    // Only this claim's transaction counts: a mined one of an earlier claim is a deployment the
    // record was reset from (its contract vanished with a chain reset), never this one.
    if (!tx || !ofThisClaim) {
      // Nothing sent for this claim: the request died before sending (or is still reading the chain).
      return now() - c.updated_at.getTime() >= (opts.graceMs ?? 300_000) ? release() : 'pending';
    }
    if (tx.status === 'failed' || tx.status === 'reverted' || tx.status === 'dropped') return release();
    if (tx.status !== 'mined') return 'pending';
    const d = needChain().deploymentOf(tx);
    if (!d) return release();
    const row = await store.finishDeploy(
      c.id,
      {
        contract_address: d.address,
        chain_id: d.chainId,
        deploy_tx_hash: d.txHash,
        base_token_uri: d.baseURI,
        max_supply: d.maxSupply,
        royalty_bps: d.royaltyBps,
        royalty_receiver: d.royaltyReceiver,
      },
      'claimed',
    );
    return row ? 'finished' : 'pending';
  }

  /** Step 1 on this database: recovers a stale claim first; 'finished' when that recorded a deployment. */
  async function claim(
    caller: Caller,
    collectionId: string,
    action: 'collection.deploy' | 'collection.record_deployment',
    beforeClaim?: () => Promise<void>,
  ): Promise<{ finished: CollectionRow } | { claimedAt: string }> {
    let current = await store.getCollection(collectionId);
    authorize(caller, action, { ownerId: current.user_id });
    refuseGlobalCollection(current, 'deployed');
    if (current.mint_status === 'deploying' && !current.contract_address) {
      const settled = await recover(current.id);
      current = await store.getCollection(current.id);
      if (settled === 'finished') return { finished: current };
    }
    if (current.contract_address) throw alreadyDeployed(current);
    await beforeClaim?.();
    const claimed = await store.claimDeploy(current.id);
    if (!claimed) throw conflict(`collection ${current.id} is being deployed by another request`);
    return { claimedAt: claimed.updated_at.toISOString() };
  }

  /** The linked wallet of the collection's creator (a platform collection has none). */
  async function creatorWallet(c: CollectionRow): Promise<Address | null> {
    const w = c.user_id ? await store.linkedWalletOf(c.user_id) : null;
    return w ? getAddress(w) : null;
  }

  /** An `owner` named by the caller: theirs, the platform's, or any for the operator (domain/policy.ts). */
  async function authorizeOwnerNamed(caller: Caller, owner: Address, platformWallet: Address): Promise<void> {
    const callersWallet = caller.kind === 'user' ? await store.isWalletOf(caller.userId, owner) : false;
    authorizeContractOwner(caller, owner, { callersWallet, platformWallet: owner === platformWallet });
  }

  /** Finished by us or by a concurrent repair of the same transaction: either way that deployment. */
  async function recorded(id: string, row: CollectionRow | undefined, address: string): Promise<CollectionRow> {
    if (row) return row;
    const again = await store.getCollection(id);
    if (again.contract_address && again.contract_address.toLowerCase() === address.toLowerCase()) return again;
    throw conflict(`collection ${id} was deployed concurrently at ${again.contract_address}`);
  }

  return {
    recover,

    /** Settles every record left `deploying`; how many were finished or released. */
    async recoverAll(opts: { graceMs?: number } = {}): Promise<{ finished: number; released: number }> {
      const out = { finished: 0, released: 0 };
      for (const id of await store.deployingCollections()) {
        const r = await recover(id, opts);
        if (r === 'finished') out.finished++;
        if (r === 'released') out.released++;
      }
      return out;
    },

    /**
     * §4.3 design-stage deploy on NFT_CHAIN_ID: name and symbol from the title, URIs from the
     * metadata host. The contract's owner() is `owner`, else the creator's linked wallet, else the
     * platform wallet; the platform wallet is always the minter (docs/permissions.md).
     */
    async deployDesign(
      caller: Caller,
      collectionId: string,
      body: { max_supply?: number; royalty_bps?: number; royalty_receiver?: Address; owner?: Address; name?: string; symbol?: string },
    ): Promise<CollectionRow> {
      const c = needChain();
      let factory: Address | undefined;
      const claimed = await claim(caller, collectionId, 'collection.deploy', async () => {
        // Before the claim: a refused owner leaves the record as it was.
        if (body.owner) await authorizeOwnerNamed(caller, getAddress(body.owner), c.walletAddress(chainId));
        const status = await c.factory(chainId).catch((err: unknown) => {
          if (err instanceof AppError && err.kind === 'not_found') {
            throw new AppError(
              'unavailable',
              `no factory is deployed on chain ${chainId}; deploy it first (POST /api/nft/deploy on the admin proxy)`,
            );
          }
          throw err;
        });
        if (status.stale) throw new AppError('unavailable', status.error ?? `the factory of chain ${chainId} has no code`, { stale: true });
        factory = status.factoryAddress;
      });
      if ('finished' in claimed) return claimed.finished;
      const current = await store.getCollection(collectionId);
      const urls = metadataUrls(metadataBaseUrl, current.id);
      const wallet = c.walletAddress(chainId);
      const owner = body.owner ? getAddress(body.owner) : ((await creatorWallet(current)) ?? wallet);
      // Deploy by id alone: what the record's contractParams say, each overridable.
      const maxSupply = body.max_supply ?? current.editions;
      const royaltyBps = body.royalty_bps ?? 0;
      const royaltyReceiver = body.royalty_receiver ? getAddress(body.royalty_receiver) : owner;
      const { record } = await deployUnderClaim(
        c,
        {
          writeBack: async (d) =>
            recorded(
              current.id,
              await store.finishDeploy(
                current.id,
                {
                  contract_address: d.address,
                  chain_id: chainId,
                  deploy_tx_hash: d.txHash.toLowerCase(),
                  base_token_uri: urls.baseURI,
                  max_supply: maxSupply,
                  royalty_bps: royaltyBps,
                  royalty_receiver: royaltyReceiver,
                  blockchain: blockchainOf(chainId),
                },
                'claimed',
              ),
              d.address,
            ),
          release: async (at) => {
            await store.releaseDeploy(current.id, at);
          },
        },
        {
          collectionId: current.id,
          claimedAt: claimed.claimedAt,
          chainId,
          factory: factory!,
          params: {
            name: body.name ?? deriveName(current.title),
            symbol: body.symbol ?? deriveSymbol(current.title),
            baseURI: urls.baseURI,
            contractURI: urls.contractURI,
            maxSupply: BigInt(maxSupply),
            royaltyReceiver,
            royaltyBps,
            owner,
            minter: wallet,
          },
        },
      );
      return record;
    },

    /**
     * POST deploy-status (the platform's write of a record's deployment state): claim it for a
     * deployment made by the admin proxy (`deploying`, answers the claim time), give that claim back
     * (`draft`), or write back a deployment after checking it on chain (`deployed`).
     */
    async updateStatus(
      caller: Caller,
      collectionId: string,
      update: StatusUpdate,
    ): Promise<{ row: CollectionRow; claimedAt?: string; ownerWallet?: Address | null }> {
      if (update.status === 'deploying') {
        const claimed = await claim(caller, collectionId, 'collection.record_deployment');
        if ('finished' in claimed) throw alreadyDeployed(claimed.finished);
        const row = await store.getCollection(collectionId);
        // The creator's wallet: the admin proxy's default owner() of the contract it deploys.
        return { row, claimedAt: claimed.claimedAt, ownerWallet: await creatorWallet(row) };
      }
      const current = await store.getCollection(collectionId);
      authorize(caller, 'collection.record_deployment', { ownerId: current.user_id });
      if (update.status === 'draft') {
        await store.releaseDeploy(current.id, update.claimed_at);
        return { row: await store.getCollection(current.id) };
      }
      const contract = getAddress(update.contract_address);
      const onChain = update.chain_id ?? chainId;
      if (current.contract_address) {
        if (current.contract_address.toLowerCase() === contract.toLowerCase() && current.chain_id === onChain) {
          return { row: current }; // the same write again
        }
        throw alreadyDeployed(current);
      }
      const verified = await needChain().verifyCreated(onChain, contract, update.deploy_tx_hash);
      const maxSupply = update.max_supply ?? verified.maxSupply;
      const write = {
        contract_address: contract,
        chain_id: onChain,
        deploy_tx_hash: verified.txHash.toLowerCase(),
        base_token_uri: update.base_token_uri ?? metadataUrls(metadataBaseUrl, current.id).baseURI,
        ...(maxSupply !== undefined ? { max_supply: maxSupply } : {}),
      };
      return { row: await recorded(current.id, await store.finishDeploy(current.id, write, 'undeployed'), contract) };
    },
  };
}

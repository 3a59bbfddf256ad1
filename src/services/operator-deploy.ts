/**
 * The operator's deployments from the admin proxy (docs/chain-operations.md): the platform
 * contracts, and a collection contract from raw parameters — with platformCollectionId through
 * the deploy service's one path with the record (claim it, deploy under the claim's key, write the
 * address back, or give the claim back; a claim left behind is settled by crash repair). owner() is
 * `owner`, else the record creator's linked wallet, else the platform wallet (docs/permissions.md).
 * Users deploy their own collections by id, through the backend; these are the operator's only.
 */
import { getAddress, zeroAddress, type Address } from 'viem';
import { readCollection } from '../chain/collection.ts';
import type { ChainServices } from '../chain/platform-chain.ts';
import { AppError } from '../domain/errors.ts';
import type { Caller } from '../domain/policy.ts';
import { authorizeOperatorDeploy } from './chain-admin.ts';
import { DeployPending, deployUnderClaim, type DeployRecords, type Deployed } from './deploy.ts';
import { deployChainOf } from './wire-nft.ts';
import { rpc } from './onchain-reads.ts';

export async function deployPlatformAs(caller: Caller, chain: ChainServices, req: { chainId: number; force: boolean }) {
  authorizeOperatorDeploy(caller, 'platform.deploy');
  if (!req.force) {
    // What the chain lost is restored first (the platform contracts included), so a chain that
    // only lost its last blocks never gets a second deployment.
    return chain.ensureDeployed(req.chainId);
  }
  return { deployment: await chain.deployPlatform(req.chainId), deployed: true };
}

export interface CollectionDeployRequest {
  chainId: number;
  name: string;
  symbol: string;
  baseURI: string;
  contractURI: string;
  /** Decimal string (up to 2^40 − 2). */
  maxSupply: string;
  platformCollectionId?: string;
  owner?: string;
  minter?: string;
  royaltyReceiver?: string;
  royaltyBps?: number;
}

/** The collection record a deployment is for, wherever it lives (the admin proxy asks the backend). */
export interface RecordClaims<R> {
  /** Claims the record (deploy-status `deploying`): 404 unknown, 409 deployed or being deployed. */
  claim(collectionId: string): Promise<{ claimedAt: string; ownerWallet: string | null }>;
  /** The record side of the deploy path: write the address back, or release the claim. */
  records(collectionId: string, writeBack: { chain_id: number; base_token_uri: string; max_supply?: number }): DeployRecords<R>;
}

export async function deployCollectionAs<R>(caller: Caller, chain: ChainServices, claims: RecordClaims<R>, b: CollectionDeployRequest) {
  authorizeOperatorDeploy(caller, 'collection.deploy_raw');
  const deployChain = deployChainOf(chain);
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
    owner: (b.owner ? getAddress(b.owner) : wallet) as Address,
    minter: b.minter ? getAddress(b.minter) : wallet,
  };
  let deployed: Deployed;
  let record: R | undefined;
  if (b.platformCollectionId) {
    const id = b.platformCollectionId;
    const claim = await claims.claim(id);
    // Without an explicit owner, the record's creator owns the contract when they linked a wallet.
    if (!b.owner && claim.ownerWallet) params.owner = getAddress(claim.ownerWallet);
    const records = claims.records(id, {
      chain_id: b.chainId,
      base_token_uri: b.baseURI,
      // The record's column holds 32 bits; a larger cap stays on chain only (the overview reads it).
      ...(Number(b.maxSupply) <= 2 ** 31 - 1 ? { max_supply: Number(b.maxSupply) } : {}),
    });
    const done = await deployUnderClaim(deployChain, records, {
      collectionId: id,
      claimedAt: claim.claimedAt,
      chainId: b.chainId,
      factory: status.factoryAddress,
      params,
    });
    deployed = done.deployed;
    record = done.record;
  } else {
    deployed = await deployChain.deploy(b.chainId, status.factoryAddress, params, undefined).catch((err: unknown) => {
      if (err instanceof DeployPending) throw new AppError('unavailable', `the deployment transaction ${err.hash ?? ''} is not mined yet`);
      throw err;
    });
  }
  const onChain = await rpc('reading the new collection', () => readCollection(chain.client(b.chainId), deployed.address));
  return { deployed, onChain, record };
}

/**
 * The platform's admin actions on a collection contract (docs/api/nft.md §4.1.4; docs/permissions.md,
 * docs/contracts.md "Owning your collection"): signed by the platform wallet, so they act only on a
 * contract the platform wallet owns. On a creator-owned contract (owner() is someone else) the
 * answer is a 409 naming the owner and the exact call they send from their own wallet — the
 * platform never tries and never pays for a transaction that would revert.
 */
import { getAddress, type Address, type PublicClient } from 'viem';
import { collectionAbi } from '../../contracts/abi/index.ts';
import { parseAdminValue, runAdminAction, type AdminAction } from '../chain/collection.ts';
import type { ChainServices } from '../chain/platform-chain.ts';
import type { TxSender } from '../chain/tx/api.ts';
import { AppError, forbidden } from '../domain/errors.ts';
import { authorize, can, type Caller } from '../domain/policy.ts';

/** The Solidity signature of each action, as the owner sends it (cast send $C "<sig>" <value>). */
export const ADMIN_SIGNATURES: Record<AdminAction, string> = {
  setMintActive: 'setMintActive(bool)',
  setMinter: 'setMinter(address)',
  setMaxSupply: 'setMaxSupply(uint256)',
  setBaseURI: 'setBaseURI(string)',
  setContractURI: 'setContractURI(string)',
  transferOwnership: 'transferOwnership(address)',
  freezeUpgrades: 'freezeUpgrades()',
  freezeMetadata: 'freezeMetadata()',
};

export interface AdminActionRequest {
  chainId: number;
  collectionAddress: string;
  action: AdminAction;
  value?: unknown;
}

/** 409 for a contract the platform wallet does not own, with how its owner does it. */
export function notPlatformOwned(collection: Address, owner: Address, wallet: Address, action: AdminAction, value: unknown): AppError {
  const arg =
    action === 'freezeUpgrades' || action === 'freezeMetadata'
      ? ''
      : ` ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`;
  const call = `cast send ${collection} "${ADMIN_SIGNATURES[action]}"${arg} --rpc-url <RPC> --account <owner>`;
  return new AppError(
    'conflict',
    `collection ${collection} is owned by ${owner}, not by the platform wallet ${wallet} (the platform is only its minter): ` +
      `the owner sends ${action} from their own wallet, e.g. ${call}; see docs/contracts.md "Owning your collection"`,
    { owner, platformWallet: wallet, call: { to: collection, function: ADMIN_SIGNATURES[action], args: arg ? [value] : [] } },
  );
}

/**
 * What an admin action needs of the chain: the chain services, or the narrower minting access (the
 * permanence freeze, services/permanence.ts, sends through the same path). Without `hasCode` the
 * contract's code is not checked first (the owner() read then fails instead).
 */
export interface AdminChainAccess {
  client(chainId: number): PublicClient;
  sender(chainId: number): TxSender;
  walletAddress?(chainId: number): Address;
  hasCode?(chainId: number, address: string): Promise<boolean>;
}

/** The platform wallet of a chain. */
export const platformWalletOf = (chain: AdminChainAccess, chainId: number): Address =>
  getAddress(chain.walletAddress?.(chainId) ?? chain.sender(chainId).address);

export async function runPlatformAdminAction(
  chain: AdminChainAccess,
  req: AdminActionRequest,
): Promise<{ txHash: string; action: AdminAction; value: boolean | string }> {
  const { chainId, action } = req;
  const value = parseAdminValue(action, req.value);
  if (chain.hasCode && !(await chain.hasCode(chainId, req.collectionAddress))) {
    throw new AppError('not_found', `no contract at ${req.collectionAddress} on chain ${chainId}`);
  }
  const collection = getAddress(req.collectionAddress);
  const client = chain.client(chainId);
  const wallet = platformWalletOf(chain, chainId);
  let owner: Address;
  try {
    owner = getAddress((await client.readContract({ address: collection, abi: collectionAbi, functionName: 'owner' })) as string);
  } catch (err) {
    throw new AppError('upstream', `reading owner() of ${collection}: ${(err as Error).message.split('\n')[0]}`);
  }
  if (owner !== wallet) throw notPlatformOwned(collection, owner, wallet, action, value);
  const { txHash } = await runAdminAction({ client, sender: chain.sender(chainId), address: collection, action, value });
  return { txHash, action, value };
}

/** The owners of the collection records that name a contract (user id, or null for the platform). */
export interface ContractRecords {
  ownersOf(chainId: number, address: string): Promise<Array<string | null>>;
}

/**
 * Who may run an admin action on a contract (`collection.admin_action`): the operator, or the
 * owner of the collection record whose contract it is. A contract no record names, a platform
 * record's, or one two records name (a chain reset reused the address) is the operator's alone.
 */
export async function authorizeAdminAction(caller: Caller, req: AdminActionRequest, records: ContractRecords): Promise<void> {
  if (caller.kind === 'service') return authorize(caller, 'collection.admin_action');
  const owners = await records.ownersOf(req.chainId, req.collectionAddress);
  const oneOwner = owners.length > 0 && owners.every((o) => o === owners[0]);
  const ownerId = oneOwner ? owners[0]! : null;
  if (can(caller, 'collection.admin_action', { ownerId })) return;
  if (caller.kind === 'anonymous') return authorize(caller, 'collection.admin_action');
  throw forbidden(
    owners.length === 0
      ? `collectionAddress: no collection record names ${req.collectionAddress} on chain ${req.chainId}; admin actions on it are for the platform operator (service key) only`
      : !oneOwner
        ? `collectionAddress: collection records of more than one owner name ${req.collectionAddress} on chain ${req.chainId} (a chain reset reused the address); only the operator runs admin actions on it`
        : ownerId === null
          ? `collectionAddress: ${req.collectionAddress} is the contract of a platform collection; only the operator runs admin actions on it`
          : `collectionAddress: only the owner of the collection whose contract is ${req.collectionAddress} runs admin actions on it`,
  );
}

/** An admin action as `caller`: authorized first, then run by the platform wallet. */
export async function runAdminActionAs(caller: Caller, chain: ChainServices, req: AdminActionRequest, records: ContractRecords) {
  await authorizeAdminAction(caller, req, records);
  return runPlatformAdminAction(chain, req);
}

/**
 * The platform contracts (POST /api/nft/deploy) and collections from raw parameters (POST
 * /api/nft/collections) are the operator's: the platform wallet pays and owns what they make, and
 * a raw deployment has no record a user owns. A user deploys their collection by its id.
 */
export function authorizeOperatorDeploy(caller: Caller, what: 'platform.deploy' | 'collection.deploy_raw'): void {
  if (caller.kind !== 'user') return authorize(caller, what);
  throw forbidden(
    what === 'platform.deploy'
      ? 'deploying the platform contracts is for the platform operator (service key) only'
      : 'deploying a contract from raw parameters is for the platform operator (service key) only; deploy your collection by its id: POST /api/nft/collections/deploy {collectionId}',
  );
}

/**
 * The platform's admin actions on a collection contract (nft-service.md §4.1.4; docs/permissions.md,
 * docs/contracts.md "Owning your collection"): signed by the platform wallet, so they act only on a
 * contract the platform wallet owns. On a creator-owned contract (owner() is someone else) the
 * answer is a 409 naming the owner and the exact call they send from their own wallet — the
 * platform never tries and never pays for a transaction that would revert.
 */
import { getAddress, type Address } from 'viem';
import { collectionAbi } from '../../contracts/abi/index.ts';
import { parseAdminValue, runAdminAction, type AdminAction } from '../chain/collection.ts';
import type { ChainServices } from '../chain/platform-chain.ts';
import { AppError } from '../domain/errors.ts';

/** The Solidity signature of each action, as the owner sends it (cast send $C "<sig>" <value>). */
export const ADMIN_SIGNATURES: Record<AdminAction, string> = {
  setMintActive: 'setMintActive(bool)',
  setMinter: 'setMinter(address)',
  setMaxSupply: 'setMaxSupply(uint256)',
  setBaseURI: 'setBaseURI(string)',
  setContractURI: 'setContractURI(string)',
  transferOwnership: 'transferOwnership(address)',
  freezeUpgrades: 'freezeUpgrades()',
};

export interface AdminActionRequest {
  chainId: number;
  collectionAddress: string;
  action: AdminAction;
  value?: unknown;
}

/** 409 for a contract the platform wallet does not own, with how its owner does it. */
export function notPlatformOwned(collection: Address, owner: Address, wallet: Address, action: AdminAction, value: unknown): AppError {
  const arg = action === 'freezeUpgrades' ? '' : ` ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`;
  const call = `cast send ${collection} "${ADMIN_SIGNATURES[action]}"${arg} --rpc-url <RPC> --account <owner>`;
  return new AppError(
    'conflict',
    `collection ${collection} is owned by ${owner}, not by the platform wallet ${wallet} (the platform is only its minter): ` +
      `the owner sends ${action} from their own wallet, e.g. ${call}; see docs/contracts.md "Owning your collection"`,
    { owner, platformWallet: wallet, call: { to: collection, function: ADMIN_SIGNATURES[action], args: arg ? [value] : [] } },
  );
}

export async function runPlatformAdminAction(
  chain: ChainServices,
  req: AdminActionRequest,
): Promise<{ txHash: string; action: AdminAction; value: boolean | string }> {
  const { chainId, action } = req;
  const value = parseAdminValue(action, req.value);
  if (!(await chain.hasCode(chainId, req.collectionAddress))) {
    throw new AppError('not_found', `no contract at ${req.collectionAddress} on chain ${chainId}`);
  }
  const collection = getAddress(req.collectionAddress);
  const client = chain.client(chainId);
  const wallet = chain.walletAddress(chainId);
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

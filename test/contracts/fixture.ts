/**
 * Shared setup for the contract tests and the gas bench: a fresh anvil, the platform deployed with
 * deployPlatform, viem clients per anvil account, and small helpers.
 */
import {
  createPublicClient,
  createWalletClient,
  decodeEventLog,
  getAddress,
  defineChain,
  http,
  parseEventLogs,
  type Abi,
  type Address,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
  type WalletClient,
  type Chain,
  type Transport,
  type Account,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ANVIL_PRIVATE_KEYS } from '../../src/chain/anvil.ts';
import { deployPlatform, type DeploymentRecord } from '../../src/chain/deploy-platform.ts';
import { loadArtifact } from '../../src/chain/artifacts.ts';
import { collectionAbi, diamondFactoryAbi } from '../../contracts/abi/index.ts';
import { startLocalAnvil, type LocalAnvil } from '../helpers/anvil-local.ts';

export type Wallet = WalletClient<Transport, Chain, Account>;

export interface ChainContext {
  /** with `rpc` for anvil's raw test methods (evm_mine, evm_snapshot, ...) */
  anvil: LocalAnvil;
  chain: Chain;
  publicClient: PublicClient<Transport, Chain>;
  /** wallets[i] signs with anvil account i; wallets[0] deployed the platform */
  wallets: Wallet[];
  deployment: DeploymentRecord;
  stop(): Promise<void>;
}

export async function setupChain(): Promise<ChainContext> {
  const anvil = await startLocalAnvil();
  try {
    const chain = defineChain({
      id: anvil.chainId,
      name: 'anvil',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [anvil.rpcUrl] } },
    });
    const publicClient = createPublicClient({ chain, transport: http(anvil.rpcUrl), pollingInterval: 20, cacheTime: 0 });
    const wallets = ANVIL_PRIVATE_KEYS.map((k) =>
      createWalletClient({ chain, transport: http(anvil.rpcUrl), account: privateKeyToAccount(k), pollingInterval: 20, cacheTime: 0 }),
    );
    const deployment = await deployPlatform({ rpcUrl: anvil.rpcUrl, privateKey: ANVIL_PRIVATE_KEYS[0], pollingInterval: 20 });
    return { anvil, chain, publicClient, wallets, deployment, stop: () => anvil.stop() };
  } catch (err) {
    await anvil.stop();
    throw err;
  }
}

export interface CollectionParams {
  name: string;
  symbol: string;
  baseURI: string;
  contractURI: string;
  maxSupply: bigint;
  royaltyReceiver: Address;
  royaltyBps: bigint;
  owner: Address;
  minter: Address;
}

export const METADATA_BASE = 'https://meta.atelier.example';
export const SAMPLE_UUID = '6f1c2a9e-4b7d-4e21-9a3c-1f2e3d4c5b6a';

/** Params following the platform pattern ({metadata_base}/collections/<id>/...). */
export function defaultParams(owner: Address, minter: Address, overrides: Partial<CollectionParams> = {}): CollectionParams {
  return {
    name: 'Atelier Dreamscapes',
    symbol: 'DREAM',
    baseURI: `${METADATA_BASE}/collections/${SAMPLE_UUID}/tokens/`,
    contractURI: `${METADATA_BASE}/collections/${SAMPLE_UUID}/metadata.json`,
    maxSupply: 1000n,
    royaltyReceiver: owner,
    royaltyBps: 500n,
    owner,
    minter,
    ...overrides,
  };
}

/**
 * Waits for the receipt by asking for it directly. viem's waitForTransactionReceipt waits for new
 * blocks after a first miss; on an automining anvil under CPU load that miss can happen for a
 * transaction that is mined, and no further block ever comes (seen: 180 s hangs in the gas bench).
 */
export async function waitOk(ctx: ChainContext, hash: Hex, timeoutMs = 60_000): Promise<TransactionReceipt> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const receipt = await ctx.publicClient.getTransactionReceipt({ hash }).catch(() => undefined);
    if (receipt) {
      if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
      return receipt;
    }
    if (Date.now() > deadline) throw new Error(`no receipt for ${hash} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Sends a contract call from `wallet` and waits for a successful receipt. */
export async function write(
  ctx: ChainContext,
  wallet: Wallet,
  address: Address,
  functionName: string,
  args: readonly unknown[] = [],
  abi: Abi = collectionAbi as Abi,
  gas?: bigint,
): Promise<TransactionReceipt> {
  const hash = await wallet.writeContract({ address, abi, functionName, args, gas } as never);
  return waitOk(ctx, hash);
}

export async function read<T = unknown>(
  ctx: ChainContext,
  address: Address,
  functionName: string,
  args: readonly unknown[] = [],
  abi: Abi = collectionAbi as Abi,
): Promise<T> {
  return (await ctx.publicClient.readContract({ address, abi, functionName, args } as never)) as T;
}

/** Creates a collection through the factory; returns its address (from CollectionCreated) and the receipt. */
export async function createCollection(
  ctx: ChainContext,
  params: CollectionParams,
  wallet: Wallet = ctx.wallets[0] as Wallet,
): Promise<{ address: Address; receipt: TransactionReceipt }> {
  const receipt = await write(ctx, wallet, ctx.deployment.contracts.DiamondFactory, 'createCollection', [params], diamondFactoryAbi as Abi);
  const [created] = parseEventLogs({ abi: diamondFactoryAbi, logs: receipt.logs, eventName: 'CollectionCreated' });
  if (!created) throw new Error('no CollectionCreated event');
  return { address: created.args.diamond, receipt };
}

export async function deployArtifact(
  ctx: ChainContext,
  wallet: Wallet,
  name: string,
  args: readonly unknown[] = [],
): Promise<{ address: Address; receipt: TransactionReceipt }> {
  const a = loadArtifact(name);
  const hash = await wallet.deployContract({ abi: a.abi, bytecode: a.bytecode, args } as never);
  const receipt = await waitOk(ctx, hash);
  if (!receipt.contractAddress) throw new Error(`no contract address for ${name}`);
  return { address: getAddress(receipt.contractAddress), receipt };
}

/** The revert error name of a failed simulated call (throws if the call succeeds). */
export async function revertName(
  ctx: ChainContext,
  wallet: Wallet,
  address: Address,
  functionName: string,
  args: readonly unknown[] = [],
  abi: Abi = collectionAbi as Abi,
): Promise<string> {
  try {
    await ctx.publicClient.simulateContract({ address, abi, functionName, args, account: wallet.account } as never);
  } catch (err) {
    const e = err as { walk?: (fn: (e: unknown) => boolean) => unknown; shortMessage?: string; message?: string };
    const found = e.walk?.(
      (x) =>
        typeof x === 'object' && x !== null && 'data' in x && typeof (x as { data?: { errorName?: string } }).data?.errorName === 'string',
    ) as { data?: { errorName?: string; args?: unknown[] } } | undefined;
    if (found?.data?.errorName === 'Error') return `Error(${String(found.data.args?.[0])})`;
    if (found?.data?.errorName) return found.data.errorName;
    const reason = e.walk?.((x) => typeof x === 'object' && x !== null && typeof (x as { reason?: unknown }).reason === 'string') as
      | { reason?: string }
      | undefined;
    if (reason?.reason) return `Error(${reason.reason})`;
    return `unknown: ${e.shortMessage ?? e.message ?? String(err)}`;
  }
  throw new Error(`${functionName} did not revert`);
}

export { decodeEventLog, parseEventLogs };

/**
 * Deploys the platform contracts (facets, CollectionInit, DiamondFactory) to a chain and writes the
 * deployment record deployments/<chainId>.json (docs/api/nft.md §2.7).
 */
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeDeployData,
  getAddress,
  type Address,
  type Hex,
  type WalletClient,
  type Chain,
  type Account,
  type Transport,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { loadArtifact } from './artifacts.ts';
import { primaryRpcUrl, rpcTransport } from './rpc-transport.ts';
import { waitForReceipt } from './wait-receipt.ts';

/**
 * Sends one contract creation and waits for its receipt. When given to deployPlatform, every
 * transaction goes through it (the platform uses its TxSender: nonces, records, recovery).
 */
export type DeploySend = (req: {
  purpose: string;
  data: Hex;
}) => Promise<{ hash: Hex; status: 'mined' | 'reverted'; contractAddress?: Address | null }>;

/** Facets deployed once per chain, in deployment order (also the factory's constructor order). */
export const FACET_NAMES = [
  'DiamondCutFacet',
  'DiamondLoupeFacet',
  'OwnershipFacet',
  'ERC721Facet',
  'MintFacet',
  'ContractURIFacet',
  'MetadataUpdateFacet',
  'RoyaltyFacet',
  'FairnessFacet',
  'SaleFacet',
] as const;

export type FacetName = (typeof FACET_NAMES)[number];

export interface DeploymentContracts {
  DiamondCutFacet: Address;
  DiamondLoupeFacet: Address;
  OwnershipFacet: Address;
  ERC721Facet: Address;
  MintFacet: Address;
  ContractURIFacet: Address;
  CollectionInit: Address;
  DiamondFactory: Address;
  /** Extra keys beyond §2.7's list. */
  MetadataUpdateFacet: Address;
  RoyaltyFacet: Address;
  FairnessFacet: Address;
  /** The on-chain sale (docs/contracts.md "Sale"). */
  SaleFacet: Address;
  /** The shared default facet table, created by the factory's constructor. */
  DiamondRouter: Address;
  [name: string]: Address;
}

/** docs/api/nft.md §2.7 plus blockNumber (the factory's deployment block, where indexers start). */
export interface DeploymentRecord {
  chainId: number;
  deployer: Address;
  /** ISO 8601 */
  timestamp: string;
  contracts: DeploymentContracts;
  blockNumber: number;
}

export interface DeployPlatformOptions {
  rpcUrl: string;
  /** Signs with its own wallet client when `send` is absent (the contracts:deploy CLI). */
  privateKey?: Hex;
  /** Send through this instead (the platform's TxSender); `deployer` names the sending address. */
  send?: DeploySend;
  deployer?: Address;
  /** Where the artifacts are read from (default contracts/out). */
  artifactsDir?: string;
  /** When given, must equal the RPC's chain id. */
  chainId?: number;
  /** Receipt polling interval in ms (default 100; anvil mines at once). */
  pollingInterval?: number;
  /** Called after each contract is deployed. */
  onDeployed?: (name: string, address: Address, txHash: Hex) => void;
}

/** One URL or several, comma-separated (chain/rpc-transport.ts); chain 0 until the node told its id. */
const transportFor = (rpcUrl: string, chainId = 0) => rpcTransport(chainId, rpcUrl, { timeoutMs: 10_000, retryCount: 3 });

function chainFor(id: number, rpcUrl: string): Chain {
  return defineChain({
    id,
    name: `chain-${id}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [primaryRpcUrl(rpcUrl)] } },
  });
}

export async function deployPlatform(opts: DeployPlatformOptions): Promise<DeploymentRecord> {
  if (opts.send) return deployPlatformThrough(opts as DeployPlatformOptions & { send: DeploySend });
  if (!opts.privateKey || !/^0x[0-9a-fA-F]{64}$/.test(opts.privateKey)) throw new Error('privateKey must be 0x followed by 64 hex digits');
  const account = privateKeyToAccount(opts.privateKey);
  const pollingInterval = opts.pollingInterval ?? 100;
  const probe = createPublicClient({ transport: transportFor(opts.rpcUrl, opts.chainId) });
  const rpcChainId = await probe.getChainId();
  if (opts.chainId !== undefined && opts.chainId !== rpcChainId) {
    throw new Error(`chainId ${opts.chainId} requested but ${opts.rpcUrl} is chain ${rpcChainId}`);
  }
  const chain = chainFor(rpcChainId, opts.rpcUrl);
  const publicClient = createPublicClient({ chain, transport: transportFor(opts.rpcUrl, rpcChainId), pollingInterval, cacheTime: 0 });
  const walletClient = createWalletClient({
    chain,
    transport: transportFor(opts.rpcUrl, rpcChainId),
    account,
    pollingInterval,
    cacheTime: 0,
  });

  const addresses: Record<string, Address> = {};
  // The facets and CollectionInit do not depend on each other: send them with consecutive nonces,
  // one after the other (sent at once, a later nonce can reach the node before an earlier one and
  // wait in its pool, and an automining anvil may then leave it unmined), then wait for all
  // receipts together; the factory (whose constructor checks their code) goes last.
  let nonce = await publicClient.getTransactionCount({ address: account.address, blockTag: 'pending' });
  const independent = [...FACET_NAMES, 'CollectionInit'] as const;
  const hashes: Hex[] = [];
  for (const [i, name] of independent.entries()) hashes.push(await deploy(walletClient, account, name, [], nonce + i, opts.artifactsDir));
  nonce += independent.length;
  const receipts = await Promise.all(hashes.map((hash) => waitForReceipt(publicClient, hash)));
  receipts.forEach((r, i) => {
    const name = independent[i] as string;
    if (r.status !== 'success' || !r.contractAddress) throw new Error(`deployment of ${name} failed (tx ${r.transactionHash})`);
    addresses[name] = getAddress(r.contractAddress);
    opts.onDeployed?.(name, addresses[name], r.transactionHash);
  });

  const factoryArgs = [...FACET_NAMES.map((n) => addresses[n] as Address), addresses.CollectionInit as Address];
  const factoryHash = await deploy(walletClient, account, 'DiamondFactory', factoryArgs, nonce, opts.artifactsDir);
  const factoryReceipt = await waitForReceipt(publicClient, factoryHash);
  if (factoryReceipt.status !== 'success' || !factoryReceipt.contractAddress) {
    throw new Error(`deployment of DiamondFactory failed (tx ${factoryHash})`);
  }
  const factory = getAddress(factoryReceipt.contractAddress);
  opts.onDeployed?.('DiamondFactory', factory, factoryHash);
  const router = (await publicClient.readContract({
    address: factory,
    abi: loadArtifact('DiamondFactory', opts.artifactsDir).abi,
    functionName: 'router',
  })) as Address;

  return {
    chainId: rpcChainId,
    deployer: account.address,
    timestamp: new Date().toISOString(),
    contracts: recordContracts(addresses, factory, router),
    blockNumber: Number(factoryReceipt.blockNumber),
  };
}

/** deployPlatform through a `send` callback: the nine independent creations in parallel, then the factory. */
async function deployPlatformThrough(opts: DeployPlatformOptions & { send: DeploySend }): Promise<DeploymentRecord> {
  const dir = opts.artifactsDir;
  // Load everything first: missing artifacts fail before any transaction is sent.
  const names = [...FACET_NAMES, 'CollectionInit', 'DiamondFactory'];
  const art = (n: string) => loadArtifact(n, dir);
  for (const n of names) art(n);
  const publicClient = createPublicClient({ transport: transportFor(opts.rpcUrl, opts.chainId), cacheTime: 0 });
  const rpcChainId = await publicClient.getChainId();
  if (opts.chainId !== undefined && opts.chainId !== rpcChainId) {
    throw new Error(`chainId ${opts.chainId} requested but ${opts.rpcUrl} is chain ${rpcChainId}`);
  }
  const create = async (name: string, args: readonly unknown[]) => {
    const a = art(name);
    const data = encodeDeployData({ abi: a.abi, bytecode: a.bytecode, args: args as never } as never);
    const r = await opts.send({ purpose: `deploy-platform:${name}`.slice(0, 50), data });
    if (r.status !== 'mined' || !r.contractAddress) throw new Error(`deployment of ${name} failed (tx ${r.hash})`);
    const address = getAddress(r.contractAddress);
    opts.onDeployed?.(name, address, r.hash);
    return { address, hash: r.hash };
  };
  const independent = [...FACET_NAMES, 'CollectionInit'] as const;
  const deployed = await Promise.all(independent.map((n) => create(n, [])));
  const addresses: Record<string, Address> = {};
  independent.forEach((n, i) => (addresses[n] = deployed[i]!.address));
  const factoryArgs = [...FACET_NAMES.map((n) => addresses[n] as Address), addresses.CollectionInit as Address];
  const factory = await create('DiamondFactory', factoryArgs);
  const receipt = await publicClient.getTransactionReceipt({ hash: factory.hash });
  const router = (await publicClient.readContract({
    address: factory.address,
    abi: art('DiamondFactory').abi,
    functionName: 'router',
  })) as Address;
  return {
    chainId: rpcChainId,
    deployer: getAddress(opts.deployer ?? receipt.from),
    timestamp: new Date().toISOString(),
    contracts: recordContracts(addresses, factory.address, router),
    blockNumber: Number(receipt.blockNumber),
  };
}

/** The record's contracts in §2.7 order (the keys of DeploymentContracts), from both deploy paths. */
function recordContracts(addresses: Record<string, Address>, factory: Address, router: Address): DeploymentContracts {
  return {
    DiamondCutFacet: addresses.DiamondCutFacet as Address,
    DiamondLoupeFacet: addresses.DiamondLoupeFacet as Address,
    OwnershipFacet: addresses.OwnershipFacet as Address,
    ERC721Facet: addresses.ERC721Facet as Address,
    MintFacet: addresses.MintFacet as Address,
    ContractURIFacet: addresses.ContractURIFacet as Address,
    CollectionInit: addresses.CollectionInit as Address,
    DiamondFactory: factory,
    MetadataUpdateFacet: addresses.MetadataUpdateFacet as Address,
    RoyaltyFacet: addresses.RoyaltyFacet as Address,
    FairnessFacet: addresses.FairnessFacet as Address,
    SaleFacet: addresses.SaleFacet as Address,
    DiamondRouter: getAddress(router),
  };
}

async function deploy(
  walletClient: WalletClient<Transport, Chain, Account>,
  account: Account,
  name: string,
  args: readonly unknown[],
  nonce: number,
  artifactsDir?: string,
): Promise<Hex> {
  const artifact = loadArtifact(name, artifactsDir);
  return walletClient.deployContract({
    abi: artifact.abi,
    bytecode: artifact.bytecode,
    args: args as never,
    account,
    nonce,
  } as never);
}

/** Writes <dir>/<chainId>.json and returns its path. */
export function writeDeploymentRecord(record: DeploymentRecord, dir = 'deployments'): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${record.chainId}.json`);
  writeFileSync(path, JSON.stringify(record, null, 2) + '\n');
  return path;
}

/** Reads <dir>/<chainId>.json, or undefined when there is none. */
export function readDeploymentRecord(chainId: number, dir = 'deployments'): DeploymentRecord | undefined {
  const path = join(dir, `${chainId}.json`);
  if (!existsSync(path)) return undefined;
  return JSON.parse(readFileSync(path, 'utf8')) as DeploymentRecord;
}

/**
 * Deploys the platform contracts (facets, CollectionInit, DiamondFactory) to a chain and writes the
 * deployment record deployments/<chainId>.json (nft-service.md §2.7).
 */
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  getAddress,
  type Address,
  type Hex,
  type PublicClient,
  type WalletClient,
  type Chain,
  type Account,
  type Transport,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { loadArtifact } from './artifacts.ts';

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
  /** The shared default facet table, created by the factory's constructor. */
  DiamondRouter: Address;
  [name: string]: Address;
}

/** nft-service.md §2.7 plus blockNumber (the factory's deployment block, where indexers start). */
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
  privateKey: Hex;
  /** When given, must equal the RPC's chain id. */
  chainId?: number;
  /** Receipt polling interval in ms (default 100; anvil mines at once). */
  pollingInterval?: number;
  /** Called after each contract is deployed. */
  onDeployed?: (name: string, address: Address, txHash: Hex) => void;
}

function chainFor(id: number, rpcUrl: string): Chain {
  return defineChain({
    id,
    name: `chain-${id}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

export async function deployPlatform(opts: DeployPlatformOptions): Promise<DeploymentRecord> {
  if (!/^0x[0-9a-fA-F]{64}$/.test(opts.privateKey)) throw new Error('privateKey must be 0x followed by 64 hex digits');
  const account = privateKeyToAccount(opts.privateKey);
  const pollingInterval = opts.pollingInterval ?? 100;
  const probe = createPublicClient({ transport: http(opts.rpcUrl) });
  const rpcChainId = await probe.getChainId();
  if (opts.chainId !== undefined && opts.chainId !== rpcChainId) {
    throw new Error(`chainId ${opts.chainId} requested but ${opts.rpcUrl} is chain ${rpcChainId}`);
  }
  const chain = chainFor(rpcChainId, opts.rpcUrl);
  const publicClient = createPublicClient({ chain, transport: http(opts.rpcUrl), pollingInterval, cacheTime: 0 });
  const walletClient = createWalletClient({ chain, transport: http(opts.rpcUrl), account, pollingInterval, cacheTime: 0 });

  const addresses: Record<string, Address> = {};
  // The facets and CollectionInit do not depend on each other: send them with consecutive nonces,
  // then wait for all receipts; the factory (whose constructor checks their code) goes last.
  let nonce = await publicClient.getTransactionCount({ address: account.address, blockTag: 'pending' });
  const independent = [...FACET_NAMES, 'CollectionInit'] as const;
  const hashes = await Promise.all(
    independent.map((name, i) => deploy(walletClient, account, name, [], nonce + i)),
  );
  nonce += independent.length;
  const receipts = await Promise.all(hashes.map((hash) => publicClient.waitForTransactionReceipt({ hash })));
  receipts.forEach((r, i) => {
    const name = independent[i] as string;
    if (r.status !== 'success' || !r.contractAddress) throw new Error(`deployment of ${name} failed (tx ${r.transactionHash})`);
    addresses[name] = getAddress(r.contractAddress);
    opts.onDeployed?.(name, addresses[name], r.transactionHash);
  });

  const factoryArgs = [...FACET_NAMES.map((n) => addresses[n] as Address), addresses.CollectionInit as Address];
  const factoryHash = await deploy(walletClient, account, 'DiamondFactory', factoryArgs, nonce);
  const factoryReceipt = await publicClient.waitForTransactionReceipt({ hash: factoryHash });
  if (factoryReceipt.status !== 'success' || !factoryReceipt.contractAddress) {
    throw new Error(`deployment of DiamondFactory failed (tx ${factoryHash})`);
  }
  const factory = getAddress(factoryReceipt.contractAddress);
  opts.onDeployed?.('DiamondFactory', factory, factoryHash);
  const router = (await publicClient.readContract({
    address: factory,
    abi: loadArtifact('DiamondFactory').abi,
    functionName: 'router',
  })) as Address;

  const contracts: DeploymentContracts = {
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
    DiamondRouter: getAddress(router),
  };
  return {
    chainId: rpcChainId,
    deployer: account.address,
    timestamp: new Date().toISOString(),
    contracts,
    blockNumber: Number(factoryReceipt.blockNumber),
  };
}

async function deploy(
  walletClient: WalletClient<Transport, Chain, Account>,
  account: Account,
  name: string,
  args: readonly unknown[],
  nonce: number,
): Promise<Hex> {
  const artifact = loadArtifact(name);
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

/** True when the record's factory has code on the chain of `client` (false after an anvil restart without state). */
export async function isDeploymentLive(client: PublicClient, record: DeploymentRecord): Promise<boolean> {
  const code = await client.getCode({ address: record.contracts.DiamondFactory });
  return code !== undefined && code !== '0x';
}

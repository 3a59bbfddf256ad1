/**
 * The chains Atelier can write to, by id, and how to reach each one. RPC URLs come from the config
 * (environment); nothing here reads process.env.
 */
import { createPublicClient, type Chain, type PublicClient } from 'viem';
import { anvil, arbitrum, arbitrumSepolia, base, mainnet } from 'viem/chains';
import type { Config } from '../config.ts';
import { chainName } from '../domain/chain-names.ts';
import { rpcTransport } from './rpc-transport.ts';

export const DEV_CHAIN_ID = 31337;

type RpcVariable = 'ARBITRUM_SEPOLIA_RPC_URL' | 'ARBITRUM_ONE_RPC_URL' | 'BASE_RPC_URL' | 'ETHEREUM_RPC_URL';

export interface ChainInfo {
  id: number;
  name: string;
  chain: Chain;
  /** The chain's own RPC variable; the dev chain has none (NFT_RPC_URL or the embedded anvil). */
  rpcVariable?: RpcVariable;
  /** How often to poll for blocks and receipts (ms): about a block time, small on the dev chain. */
  pollingIntervalMs: number;
  dev: boolean;
}

export const CHAINS: Readonly<Record<number, ChainInfo>> = {
  [DEV_CHAIN_ID]: { id: DEV_CHAIN_ID, name: chainName(DEV_CHAIN_ID), chain: anvil, pollingIntervalMs: 50, dev: true },
  421614: {
    id: 421614,
    name: chainName(421614),
    chain: arbitrumSepolia,
    rpcVariable: 'ARBITRUM_SEPOLIA_RPC_URL',
    pollingIntervalMs: 500,
    dev: false,
  },
  42161: {
    id: 42161,
    name: chainName(42161),
    chain: arbitrum,
    rpcVariable: 'ARBITRUM_ONE_RPC_URL',
    pollingIntervalMs: 500,
    dev: false,
  },
  8453: { id: 8453, name: chainName(8453), chain: base, rpcVariable: 'BASE_RPC_URL', pollingIntervalMs: 1000, dev: false },
  1: { id: 1, name: chainName(1), chain: mainnet, rpcVariable: 'ETHEREUM_RPC_URL', pollingIntervalMs: 4000, dev: false },
};

export class UnsupportedChainError extends Error {
  constructor(readonly chainId: number) {
    super(
      `unsupported chain id ${chainId}; supported: ${Object.values(CHAINS)
        .map((c) => `${c.id} (${c.name})`)
        .join(', ')}`,
    );
    this.name = 'UnsupportedChainError';
  }
}

export function chainInfo(chainId: number): ChainInfo {
  const info = CHAINS[chainId];
  if (!info) throw new UnsupportedChainError(chainId);
  return info;
}

export function isSupportedChain(chainId: number): boolean {
  return CHAINS[chainId] !== undefined;
}

/** What reaching a chain's RPC needs from the configuration. */
export type RpcOptions = Pick<
  Config,
  | 'NFT_RPC_URL'
  | 'NFT_CHAIN_ID'
  | 'DEV_CHAIN_PORT'
  | 'ARBITRUM_SEPOLIA_RPC_URL'
  | 'ARBITRUM_ONE_RPC_URL'
  | 'BASE_RPC_URL'
  | 'ETHEREUM_RPC_URL'
>;

/**
 * The RPC URL for a chain. NFT_RPC_URL belongs to NFT_CHAIN_ID only, so it is never sent to a
 * different chain's transactions; a chain's own variable wins over it. The dev chain falls back
 * to the embedded anvil on DEV_CHAIN_PORT.
 */
export function rpcUrlFor(chainId: number, config: RpcOptions): string {
  const info = chainInfo(chainId);
  const own = info.rpcVariable ? config[info.rpcVariable] : undefined;
  if (own) return own;
  if (config.NFT_RPC_URL && config.NFT_CHAIN_ID === chainId) return config.NFT_RPC_URL;
  if (info.dev) return `http://127.0.0.1:${config.DEV_CHAIN_PORT}`;
  throw new Error(
    `no RPC URL for chain ${chainId} (${info.name}): set ${info.rpcVariable}` + ` (or NFT_RPC_URL together with NFT_CHAIN_ID=${chainId})`,
  );
}

export interface ClientOptions {
  /** Request timeout per RPC call (ms). Default 10 s. */
  timeoutMs?: number;
  /** viem's own retries of failed requests. The tx sender passes 0 and retries itself. Default 3. */
  retryCount?: number;
}

/**
 * A public client for a chain at a given URL. cacheTime 0: viem otherwise reuses a block number
 * for ~4 s, which makes a freshly mined receipt or nonce look missing.
 */
export function publicClientForUrl(chainId: number, rpcUrl: string, opts: ClientOptions = {}): PublicClient {
  const info = chainInfo(chainId);
  return createPublicClient({
    chain: info.chain,
    // Several comma-separated URLs: fallback in order (chain/rpc-transport.ts).
    transport: rpcTransport(chainId, rpcUrl, { timeoutMs: opts.timeoutMs ?? 10_000, retryCount: opts.retryCount ?? 3 }),
    cacheTime: 0,
    pollingInterval: info.pollingIntervalMs,
  });
}

export function publicClientFor(chainId: number, config: RpcOptions, opts?: ClientOptions): PublicClient {
  return publicClientForUrl(chainId, rpcUrlFor(chainId, config), opts);
}

/**
 * The indexer status from its sources (docs/indexer.md "Status from the source"), not from the
 * last row a possibly dead indexer wrote:
 * - the chain head is read from the RPC at request time (cached briefly, shared by concurrent
 *   requests), so `lag_blocks` grows while the chain moves on without an indexer;
 * - a lease whose holder is a process of this host that no longer exists is lost at once (the
 *   holder names host and pid: duties/runner.ts PROCESS_HOLDER); a holder on another host is
 *   believed until its lease expires (DUTY_LEASE_TTL_MS, 10 s by default).
 */
import os from 'node:os';
import { chainInfo, publicClientForUrl, rpcUrlFor, type RpcOptions } from '../chain/chains.ts';
import type { Config } from '../config.ts';

/** What the status's RPC choice reads from the configuration. */
export type StatusRpcOptions = RpcOptions & Pick<Config, 'DEV_CHAIN'>;

/** How long a head read from the RPC is reused: status polls from many clients cost one RPC call. */
export const HEAD_CACHE_MS = 1000;
/** A status answer does not wait longer than this for the RPC; without a head, the last stored one is shown. */
const HEAD_TIMEOUT_MS = 2000;

/**
 * The RPC URL the status reads the head from: the in-process indexer's, or a chain RPC the
 * configuration names explicitly (never the dev chain's default port unless DEV_CHAIN is on).
 */
export function statusRpcUrl(chainId: number, config: StatusRpcOptions, hostRpcUrl?: string): string | undefined {
  if (hostRpcUrl) return hostRpcUrl;
  const info = chainInfo(chainId);
  const own = info.rpcVariable ? config[info.rpcVariable] : undefined;
  const named = own || (config.NFT_RPC_URL && config.NFT_CHAIN_ID === chainId) || (info.dev && config.DEV_CHAIN);
  if (!named) return undefined;
  try {
    return rpcUrlFor(chainId, config);
  } catch {
    return undefined;
  }
}

/** The chain's head block now (null when the RPC cannot say within a short timeout). */
export function createHeadReader(chainId: number, rpcUrl: string | undefined, cacheMs = HEAD_CACHE_MS): () => Promise<number | null> {
  if (!rpcUrl) return async () => null;
  const client = publicClientForUrl(chainId, rpcUrl, { timeoutMs: HEAD_TIMEOUT_MS, retryCount: 0 });
  let cached: { at: number; head: Promise<number | null> } | undefined;
  return () => {
    const now = Date.now();
    if (cached && now - cached.at < cacheMs) return cached.head;
    const head = client.getBlockNumber({ cacheTime: 0 }).then(
      (n) => Number(n),
      () => null,
    );
    cached = { at: now, head };
    return head;
  };
}

/**
 * Whether a lease holder (`host:pid:random`) is a process known to be gone: it ran on this host
 * and its pid no longer exists. A pid of another user (EPERM) is alive; another host: unknown.
 */
export function holderKnownGone(holder: string, hostname = os.hostname()): boolean {
  const parts = holder.split(':');
  if (parts.length < 3) return false;
  const host = parts.slice(0, -2).join(':');
  const pid = Number(parts[parts.length - 2]);
  if (host !== hostname || !Number.isSafeInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * RPC transports with fallback (docs/operations.md "RPC fallback"): a chain's RPC variable may
 * list several URLs, comma-separated; requests go to the first and fall over to the next when one
 * fails at the transport level (refused, timeout, 429, 5xx). Rate limits and timeouts are counted
 * per chain and endpoint position (never the URL: it may carry an API key) for
 * atelier_rpc_errors_total, and retried with exponential backoff (viem's retryCount/retryDelay,
 * honouring Retry-After). viem's `rank` option is not used: it pings every endpoint forever on a
 * timer that keeps a process alive, once per client.
 */
import { fallback, http, type Transport } from 'viem';

/** The URLs of an RPC variable's value (one URL or several, comma-separated). */
export function rpcUrlList(value: string): string[] {
  return value
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
}

/** The first URL: for the few readers that speak JSON-RPC without viem (readiness probe, indexer). */
export const primaryRpcUrl = (value: string): string => rpcUrlList(value)[0] ?? value;

export type RpcErrorReason = 'rate_limited' | 'timeout' | 'unreachable' | 'server_error';

const counts = new Map<string, { chainId: number; endpoint: number; reason: RpcErrorReason; n: number }>();

function count(chainId: number, endpoint: number, reason: RpcErrorReason) {
  const key = `${chainId}/${endpoint}/${reason}`;
  const c = counts.get(key) ?? { chainId, endpoint, reason, n: 0 };
  c.n++;
  counts.set(key, c);
}

/** Process-wide totals for /metrics. */
export function rpcErrorCounts(): Array<{ chainId: number; endpoint: number; reason: RpcErrorReason; n: number }> {
  return [...counts.values()];
}

function countingFetch(chainId: number, endpoint: number): typeof fetch {
  return async (input, init) => {
    try {
      const res = await fetch(input, init);
      if (res.status === 429) count(chainId, endpoint, 'rate_limited');
      else if (res.status >= 500) count(chainId, endpoint, 'server_error');
      return res;
    } catch (err) {
      const name = (err as Error)?.name;
      count(chainId, endpoint, name === 'AbortError' || name === 'TimeoutError' ? 'timeout' : 'unreachable');
      throw err;
    }
  };
}

export interface RpcTransportOptions {
  timeoutMs: number;
  retryCount: number;
  /** Base of the exponential backoff (ms). Default 150. */
  retryDelayMs?: number;
}

export function rpcTransport(chainId: number, rpcUrl: string, opts: RpcTransportOptions): Transport {
  const urls = rpcUrlList(rpcUrl);
  const retryDelay = opts.retryDelayMs ?? 150;
  const one = (url: string, i: number, retryCount: number) =>
    http(url, { timeout: opts.timeoutMs, retryCount, retryDelay, fetchFn: countingFetch(chainId, i) });
  if (urls.length <= 1) return one(urls[0] ?? rpcUrl, 0, opts.retryCount);
  return fallback(
    urls.map((u, i) => one(u, i, 0)),
    { retryCount: opts.retryCount, retryDelay },
  );
}

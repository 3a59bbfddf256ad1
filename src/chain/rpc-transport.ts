/**
 * RPC transports with fallback (docs/signers-and-rpc.md "RPC URLs and fallback"): a chain's RPC
 * variable may list several URLs, comma-separated. A request goes to the healthiest endpoint
 * first: the one with the fewest transport failures in the last minute, ties in the configured
 * order (so with no failures it is the first URL). It falls over to the next on a transport
 * failure (refused, timeout, 429, 5xx); an answer of the node (a JSON-RPC error such as a revert
 * or "nonce too low") is the answer and is not sent elsewhere. Failures are counted per chain and
 * endpoint position (never the URL: it may carry an API key) for atelier_rpc_errors_total, and
 * retried with exponential backoff (viem's retryCount/retryDelay, honouring Retry-After).
 *
 * viem's own `fallback({ rank })` is not used: it pings every endpoint on a timer that never stops
 * (it keeps a process alive), once per client. The ranking here only uses what real requests saw.
 */
import { createTransport, HttpRequestError, http, TimeoutError, type Transport } from 'viem';

/** The URLs of an RPC variable's value (one URL or several, comma-separated). */
export function rpcUrlList(value: string): string[] {
  return value
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
}

/** The first URL: for the few readers that speak JSON-RPC without viem (indexer). */
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

/** JSON-RPC error codes that mean "too many requests" rather than an answer. */
const RATE_LIMIT_CODES = new Set([429, -32005, -32007]);

/**
 * Whether an error is the endpoint's failure (try another endpoint) rather than the node's
 * answer: no HTTP answer, a timeout, an HTTP error status, or a rate-limit code in a JSON-RPC body.
 */
export function isEndpointFailure(err: unknown): boolean {
  if (err instanceof TimeoutError || err instanceof HttpRequestError) return true;
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'number' && RATE_LIMIT_CODES.has(code);
}

/**
 * The recent failures of each endpoint of one URL list, and the order to try them in. Shared by
 * every client of the same chain and list in the process, so what the tx sender's client learnt
 * the public client uses too.
 */
export class EndpointHealth {
  private readonly failures: number[][];
  constructor(
    readonly size: number,
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {
    this.failures = Array.from({ length: size }, () => []);
  }

  failed(i: number): void {
    this.failures[i]?.push(this.now());
  }

  /** Failures of endpoint i within the window. */
  recent(i: number): number {
    const list = this.failures[i];
    if (!list) return 0;
    const since = this.now() - this.windowMs;
    while (list.length > 0 && (list[0] ?? 0) <= since) list.shift();
    return list.length;
  }

  /** Endpoint positions, fewest recent failures first; ties keep the configured order. */
  order(): number[] {
    const score = Array.from({ length: this.size }, (_, i) => this.recent(i));
    return score.map((_, i) => i).sort((a, b) => (score[a] ?? 0) - (score[b] ?? 0) || a - b);
  }
}

const healthByList = new Map<string, EndpointHealth>();

/** The shared health record of a chain's URL list (tests read its order). */
export function endpointHealth(chainId: number, urls: string[]): EndpointHealth {
  const key = `${chainId}|${urls.join(',')}`;
  let h = healthByList.get(key);
  if (!h) {
    h = new EndpointHealth(urls.length);
    healthByList.set(key, h);
  }
  return h;
}

export interface RankedFallbackOptions {
  retryCount: number;
  retryDelay: number;
}

/**
 * A transport over several endpoints tried in the order of `health` (fewest recent failures
 * first). Only endpoint failures (isEndpointFailure) move on to the next endpoint and count
 * against the endpoint; when every endpoint failed, the last failure is thrown and viem's retry
 * (retryCount, exponential retryDelay) runs the whole round again.
 */
export function rankedFallback(transports: Transport[], health: EndpointHealth, opts: RankedFallbackOptions): Transport {
  return ({ chain, timeout }) => {
    const clients = transports.map((t) => t({ chain, retryCount: 0, timeout }));
    return createTransport({
      key: 'fallback',
      name: 'Ranked fallback',
      type: 'fallback',
      retryCount: opts.retryCount,
      retryDelay: opts.retryDelay,
      async request({ method, params }): Promise<any> {
        let last: unknown;
        for (const i of health.order()) {
          const client = clients[i];
          if (!client) continue;
          try {
            return await client.request({ method, params } as never);
          } catch (err) {
            if (!isEndpointFailure(err)) throw err;
            health.failed(i);
            last = err;
          }
        }
        throw last;
      },
    });
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
  return rankedFallback(
    urls.map((u, i) => one(u, i, 0)),
    endpointHealth(chainId, urls),
    { retryCount: opts.retryCount, retryDelay },
  );
}

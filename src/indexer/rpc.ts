/**
 * A small JSON-RPC client for the indexer: raw logs and block headers, batched requests, no
 * formatting of 10,000s of logs through viem's objects (the backfill's hot path).
 */

export interface RawLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  blockTimestamp?: string;
  transactionHash: string;
  logIndex: string;
  removed?: boolean;
}

export interface RawBlock {
  number: string;
  hash: string;
  parentHash: string;
  timestamp: string;
}

export class RpcError extends Error {
  constructor(
    message: string,
    readonly code?: number,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

export interface GetLogsFilter {
  fromBlock: number;
  toBlock: number;
  address?: string | string[];
  topics?: (string | string[] | null)[];
}

export const hex = (n: number | bigint) => `0x${n.toString(16)}`;

/**
 * Several URLs (NFT_RPC_URL comma-separated, docs/signers-and-rpc.md "RPC URLs and fallback"): an
 * endpoint that cannot be reached, times out or answers HTTP 429/5xx hands the request to the next;
 * the client stays on the last one that answered. A JSON-RPC error is the chain's answer, not the
 * endpoint's failure, so it does not move on.
 */
export class JsonRpc {
  private id = 0;
  private readonly urls: string[];
  private current = 0;
  constructor(
    urls: string | string[],
    private readonly timeoutMs = 30_000,
  ) {
    this.urls = Array.isArray(urls) ? urls : [urls];
    if (this.urls.length === 0) throw new Error('JsonRpc: no RPC URL');
  }

  /** The endpoint asked first now. */
  get url(): string {
    return this.urls[this.current]!;
  }

  private async postTo(url: string, body: unknown): Promise<unknown> {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    if (!res.ok) throw new RpcError(`RPC ${url} answered HTTP ${res.status}`, res.status);
    return res.json();
  }

  private async post(body: unknown): Promise<unknown> {
    let last: unknown;
    for (let i = 0; i < this.urls.length; i++) {
      const at = (this.current + i) % this.urls.length;
      try {
        const reply = await this.postTo(this.urls[at]!, body);
        this.current = at;
        return reply;
      } catch (err) {
        // Only an endpoint's own failure moves on; a 4xx other than 429 would fail anywhere.
        if (err instanceof RpcError && err.code !== undefined && err.code < 500 && err.code !== 429) throw err;
        last = err;
      }
    }
    throw last;
  }

  async call<T>(method: string, params: unknown[]): Promise<T> {
    const reply = (await this.post({ jsonrpc: '2.0', id: ++this.id, method, params })) as {
      result?: T;
      error?: { code: number; message: string };
    };
    if (reply.error) throw new RpcError(`${method}: ${reply.error.message}`, reply.error.code);
    return reply.result as T;
  }

  /** Several calls in one HTTP request; results in call order. */
  async batch<T>(calls: { method: string; params: unknown[] }[]): Promise<T[]> {
    if (calls.length === 0) return [];
    const first = this.id + 1;
    this.id += calls.length;
    const replies = (await this.post(calls.map((c, i) => ({ jsonrpc: '2.0', id: first + i, ...c })))) as {
      id: number;
      result?: T;
      error?: { code: number; message: string };
    }[];
    if (!Array.isArray(replies)) throw new RpcError('RPC batch answered with a non-array');
    const out = new Array<T>(calls.length);
    for (const r of replies) {
      if (r.error) throw new RpcError(`${calls[r.id - first]?.method}: ${r.error.message}`, r.error.code);
      out[r.id - first] = r.result as T;
    }
    return out;
  }

  blockNumber(): Promise<number> {
    return this.call<string>('eth_blockNumber', []).then((h) => Number(BigInt(h)));
  }

  chainId(): Promise<number> {
    return this.call<string>('eth_chainId', []).then((h) => Number(BigInt(h)));
  }

  block(n: number): Promise<RawBlock | null> {
    return this.call<RawBlock | null>('eth_getBlockByNumber', [hex(n), false]);
  }

  async blocks(numbers: number[], chunk = 100): Promise<(RawBlock | null)[]> {
    const out: (RawBlock | null)[] = [];
    for (let i = 0; i < numbers.length; i += chunk) {
      const part = numbers.slice(i, i + chunk);
      out.push(...(await this.batch<RawBlock | null>(part.map((n) => ({ method: 'eth_getBlockByNumber', params: [hex(n), false] })))));
    }
    return out;
  }

  getLogs(f: GetLogsFilter): Promise<RawLog[]> {
    return this.call<RawLog[]>('eth_getLogs', [
      {
        fromBlock: hex(f.fromBlock),
        toBlock: hex(f.toBlock),
        ...(f.address ? { address: f.address } : {}),
        ...(f.topics ? { topics: f.topics } : {}),
      },
    ]);
  }
}

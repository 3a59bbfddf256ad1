/**
 * Readiness checks, one per dependency (docs/operations.md): `/readyz` names each one
 * and what is wrong with it, so an operator (or a load balancer's log) sees which part is down.
 * A check resolves when its dependency answers; it is cut off after `timeoutMs`.
 */
import { rpcUrlList } from '../chain/rpc-transport.ts';
export type ReadinessCheck = () => Promise<unknown>;
export type ReadinessChecks = Record<string, ReadinessCheck>;

export interface ReadinessReport {
  status: 'ready' | 'not ready';
  checks: Record<string, 'ok' | string>;
}

export async function runReadiness(checks: ReadinessChecks, timeoutMs = 3000): Promise<ReadinessReport> {
  const names = Object.keys(checks);
  const results = await Promise.all(
    names.map(async (name) => {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          checks[name]!(),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
          }),
        ]);
        return 'ok';
      } catch (err) {
        // The first line only: enough to name the cause, never a stack or a connection string.
        const message = String((err as Error)?.message ?? err)
          .split('\n')[0]!
          .replace(/\w+:\/\/[^\s]*@/g, '…@');
        return message.slice(0, 200) || 'failed';
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  const report: ReadinessReport['checks'] = {};
  names.forEach((n, i) => (report[n] = results[i]!));
  return { status: results.every((r) => r === 'ok') ? 'ready' : 'not ready', checks: report };
}

/** The chain answers eth_blockNumber. */
export const chainCheck =
  (blockNumber: () => Promise<unknown>): ReadinessCheck =>
  async () => {
    await blockNumber();
  };

/** Another process of ours answers its /healthz (the admin proxy's backend). */
export const healthCheck =
  (baseUrl: string | undefined): ReadinessCheck =>
  async () => {
    if (!baseUrl) throw new Error('not configured');
    const res = await fetch(new URL('/healthz', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`), { signal: AbortSignal.timeout(3000) });
    if (!res.ok) throw new Error(`answered ${res.status}`);
  };

/** eth_blockNumber on an RPC URL (a process that holds no viem client for it); of a comma-separated list, the first that answers. */
export async function rpcBlockNumber(rpcUrl: string): Promise<number> {
  const urls = rpcUrlList(rpcUrl);
  for (const url of urls.slice(0, -1)) {
    try {
      return await rpcBlockNumberAt(url);
    } catch {
      // the next endpoint (docs/signers-and-rpc.md)
    }
  }
  return rpcBlockNumberAt(urls.at(-1) ?? rpcUrl);
}

async function rpcBlockNumberAt(rpcUrl: string): Promise<number> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
    signal: AbortSignal.timeout(3000),
  });
  const body = (await res.json()) as { result?: string; error?: { message?: string } };
  if (!body.result) throw new Error(`RPC answered ${res.status}${body.error?.message ? `: ${body.error.message}` : ''}`);
  return Number(body.result);
}

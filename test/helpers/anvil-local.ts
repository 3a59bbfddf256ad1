/**
 * A throwaway anvil for one chain test file: the shared launcher (src/chain/anvil.ts, free port)
 * plus a raw JSON-RPC helper for anvil's test methods (evm_mine, evm_setAutomine, ...).
 */
import { startAnvil, type AnvilInstance } from '../../src/chain/anvil.ts';

export interface LocalAnvil extends AnvilInstance {
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
}

export async function startLocalAnvil(args: string[] = []): Promise<LocalAnvil> {
  const anvil = await startAnvil({ args });
  let id = 0;
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const res = await fetch(anvil.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    });
    const body = (await res.json()) as { result?: T; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result as T;
  };
  return Object.assign(anvil, { rpc });
}

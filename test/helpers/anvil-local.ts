/**
 * A throwaway anvil for one test file: free port, fast start, stopped at the end. (Minimal local
 * launcher; the shared one is src/chain/anvil.ts once it exists.)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

const ANVIL = path.resolve('node_modules/.bin/anvil');

export interface LocalAnvil {
  rpcUrl: string;
  port: number;
  process: ChildProcess;
  /** JSON-RPC call, for anvil's test methods (evm_mine, evm_setAutomine, ...). */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export async function startLocalAnvil(args: string[] = []): Promise<LocalAnvil> {
  const port = await freePort();
  const child = spawn(ANVIL, ['--port', String(port), '--host', '127.0.0.1', '--silent', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += String(d)));
  const rpcUrl = `http://127.0.0.1:${port}`;
  let id = 0;
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    });
    const body = (await res.json()) as { result?: T; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result as T;
  };
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`anvil exited: ${stderr}`);
    try {
      await rpc('eth_chainId');
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`anvil did not start on ${port}: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    rpcUrl,
    port,
    process: child,
    rpc,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * Starts a real anvil dev chain (npm @foundry-rs/anvil) and waits until its RPC answers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface StartAnvilOptions {
  /** 0 or undefined: pick a free port. */
  port?: number;
  /** Default 31337. */
  chainId?: number;
  /** Keep the chain in this file across restarts (anvil --state). */
  statePath?: string;
  /** Seconds between blocks; undefined: a block per transaction (automine). */
  blockTime?: number;
  /** Host to bind, default 127.0.0.1. */
  host?: string;
  /** Extra anvil arguments. */
  args?: string[];
  /** Milliseconds to wait for the RPC, default 15000. */
  timeoutMs?: number;
}

export interface AnvilInstance {
  rpcUrl: string;
  port: number;
  chainId: number;
  process: ChildProcess;
  /** Everything anvil wrote to stderr so far (bounded). */
  stderr(): string;
  stop(): Promise<void>;
}

/** The 10 accounts anvil funds with its default mnemonic ("test test ... junk"). */
export const ANVIL_PRIVATE_KEYS = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
  '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba',
  '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e',
  '0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356',
  '0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97',
  '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6',
] as const;

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Path of the anvil binary installed by @foundry-rs/anvil. */
export function anvilBinary(): string {
  const bin = join(ROOT, 'node_modules', '.bin', 'anvil');
  if (existsSync(bin)) return bin;
  throw new Error(`anvil not found at ${bin}; run \`npm install\` (package @foundry-rs/anvil)`);
}

export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, host, () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolvePort(port));
    });
  });
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  const killAll = () => {
    for (const child of running) {
      try {
        // SIGTERM: anvil still writes its --state file before exiting
        child.kill('SIGTERM');
      } catch {
        // already gone
      }
    }
  };
  // Never leave an anvil behind when this process goes away: on exit, and on the usual signals
  // (when nobody else handles the signal, it is re-raised so the process still terminates).
  process.on('exit', killAll);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const handler = () => {
      killAll();
      if (process.listenerCount(sig) === 1) {
        process.removeListener(sig, handler);
        process.kill(process.pid, sig);
      }
    };
    process.on(sig, handler);
  }
}

async function rpcAnswers(rpcUrl: string): Promise<number | undefined> {
  try {
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(1000),
    });
    if (!res.ok) return undefined;
    const body = (await res.json()) as { result?: string };
    return body.result ? Number.parseInt(body.result, 16) : undefined;
  } catch {
    return undefined;
  }
}

export async function startAnvil(opts: StartAnvilOptions = {}): Promise<AnvilInstance> {
  const host = opts.host ?? '127.0.0.1';
  const chainId = opts.chainId ?? 31337;
  const timeoutMs = opts.timeoutMs ?? 15_000;
  // Without an explicit port anvil binds port 0 itself and reports the port it got: probing for a
  // free port first would race with other processes, and a lost race could leave us talking to
  // somebody else's anvil on that port.
  const port = opts.port ?? 0;
  return launch({ ...opts, host, chainId, port, timeoutMs });
}

class AnvilExitedError extends Error {}

async function launch(o: StartAnvilOptions & { host: string; chainId: number; port: number; timeoutMs: number }): Promise<AnvilInstance> {
  const ownPort = o.port === 0;
  // --silent would also hide the "Listening on" line that tells an own-port launch its port.
  const args = ['--host', o.host, '--port', String(o.port), '--chain-id', String(o.chainId), ...(ownPort ? [] : ['--silent'])];
  if (o.statePath) args.push('--state', o.statePath);
  if (o.blockTime !== undefined) args.push('--block-time', String(o.blockTime));
  if (o.args) args.push(...o.args);

  const child = spawn(anvilBinary(), args, { stdio: ['ignore', ownPort ? 'pipe' : 'ignore', 'pipe'] });
  let boundPort = ownPort ? 0 : o.port;
  if (ownPort) {
    let banner = '';
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      if (boundPort) return; // keep draining, stop parsing
      banner = (banner + chunk).slice(-4096);
      const m = /Listening on [^\s]*:(\d+)/.exec(banner);
      if (m) boundPort = Number(m[1]);
    });
  }
  running.add(child);
  installExitHook();
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-64 * 1024);
  });
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exitPromise = new Promise<void>((res) => {
    child.once('exit', (code, signal) => {
      exited = { code, signal };
      running.delete(child);
      res();
    });
  });
  child.once('error', (err) => {
    stderr += `\n${err.message}`;
  });

  const deadline = Date.now() + o.timeoutMs;
  for (;;) {
    if (exited) {
      throw new AnvilExitedError(
        `anvil exited before answering (code ${exited.code}, signal ${exited.signal}) on port ${o.port}: ${stderr.trim()}`,
      );
    }
    const id = boundPort ? await rpcAnswers(`http://${o.host}:${boundPort}`) : undefined;
    if (id !== undefined) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`anvil did not answer on port ${boundPort || o.port} within ${o.timeoutMs} ms: ${stderr.trim()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    if (stopping) return stopping;
    stopping = (async () => {
      if (exited) return;
      // SIGTERM lets anvil write --state; force after a grace period.
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exitPromise;
      clearTimeout(timer);
    })();
    return stopping;
  };

  return { rpcUrl: `http://${o.host}:${boundPort}`, port: boundPort, chainId: o.chainId, process: child, stderr: () => stderr, stop };
}

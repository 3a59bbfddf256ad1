/**
 * Starts the topology of scripts/topology/plan.ts as plain child processes (`atelier <command>` each):
 * an anvil unless an outside RPC is given, `atelier migrate` and `atelier deploy` to completion,
 * then the services, each waited for on its /readyz. Used by `npm run topology` and the topology
 * tests (which also kill -9 and restart single processes). docs/deployment.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ANVIL_PRIVATE_KEYS, freePort, startAnvil, type AnvilInstance } from '../../src/chain/anvil.ts';
import { CONFIG_VARIABLES } from '../../src/config.ts';
import { DEFAULT_PORTS, topologyPlan, type PlannedProcess, type TopologyPorts } from './plan.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const ATELIER_BIN = path.join(ROOT, 'bin', 'atelier.js');

export interface TopologyOptions {
  databaseUrl: string;
  redisUrl: string;
  /** An outside chain node; unset: an anvil is started (and stopped) here. */
  rpcUrl?: string;
  chainId?: number;
  deployerKey?: string;
  apiKey: string;
  dataDir: string;
  host?: string;
  /** Fixed ports (npm run topology) or 'free' (tests: every port picked free). */
  ports?: TopologyPorts | 'free';
  backends?: number;
  workers?: number;
  workerConcurrency?: number;
  logLevel?: string;
  extraEnv?: Record<string, string>;
  /** Per-service extra environment (by service name), e.g. a worker's own settings in a test. */
  serviceEnv?: Record<string, Record<string, string>>;
  /** Every output line of every process, prefixed with its name. */
  onLine?: (name: string, line: string) => void;
  readyTimeoutMs?: number;
}

export interface TopologyProcess {
  readonly name: string;
  readonly plan: PlannedProcess;
  readonly url: string;
  child: ChildProcess;
  /** Output so far (bounded). */
  output(): string;
  /** kill -9: the process gets no chance to clean up. Resolves once it has exited. */
  kill9(): Promise<void>;
  /** SIGTERM (a graceful drain); resolves with the exit code and the time it exited. */
  terminate(): Promise<{ code: number | null; at: number }>;
  /** Starts it again with the same environment and waits for its /readyz. */
  restart(): Promise<void>;
  alive(): boolean;
}

export interface Topology {
  rpcUrl: string;
  anvil?: AnvilInstance;
  plan: PlannedProcess[];
  processes: Map<string, TopologyProcess>;
  get(name: string): TopologyProcess;
  /** Services of one command, in plan order. */
  of(command: PlannedProcess['command']): TopologyProcess[];
  stop(): Promise<void>;
}

/** The parent's environment without any Atelier variable: a process gets only what its plan says. */
function cleanEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  const ours = new Set(CONFIG_VARIABLES);
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !ours.has(k)) out[k] = v;
  return out;
}

function spawnAtelier(p: PlannedProcess, onLine?: TopologyOptions['onLine']) {
  const child = spawn(process.execPath, [ATELIER_BIN, p.command], {
    cwd: ROOT,
    env: { ...cleanEnv(), ...p.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let partial = '';
  const onData = (chunk: Buffer) => {
    const text = String(chunk);
    out = (out + text).slice(-200_000);
    if (!onLine) return;
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    for (const l of lines) onLine(p.name, l);
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, output: () => out, exited };
}

async function runStep(p: PlannedProcess, onLine?: TopologyOptions['onLine']): Promise<void> {
  const s = spawnAtelier(p, onLine);
  const code = await s.exited;
  if (code !== 0) throw new Error(`atelier ${p.command} exited with ${code}:\n${s.output().slice(-4000)}`);
}

/** Waits for 200 from <url>/readyz; fails early when the process exits. */
export async function waitReady(url: string, exited: () => boolean, output: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    if (exited()) throw new Error(`exited before ready (${url}):\n${output().slice(-4000)}`);
    try {
      const r = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(3000) });
      last = `${r.status} ${await r.text()}`;
      if (r.ok) return;
    } catch (err) {
      last = (err as Error).message;
    }
    if (Date.now() > deadline) throw new Error(`not ready within ${timeoutMs} ms (${url}): ${last}\n${output().slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

async function pickPorts(opts: TopologyOptions): Promise<TopologyPorts> {
  const nb = opts.backends ?? 2;
  const nw = opts.workers ?? 2;
  if (opts.ports && opts.ports !== 'free') return opts.ports;
  if (!opts.ports) {
    return {
      backends: DEFAULT_PORTS.backends.slice(0, nb).concat(Array.from({ length: Math.max(0, nb - 2) }, (_, i) => 3020 + i)),
      workers: DEFAULT_PORTS.workers.slice(0, nw).concat(Array.from({ length: Math.max(0, nw - 2) }, (_, i) => 3030 + i)),
      admin: DEFAULT_PORTS.admin,
      indexer: DEFAULT_PORTS.indexer,
    };
  }
  const free = async (n: number) => {
    const out: number[] = [];
    while (out.length < n) {
      const p = await freePort();
      if (!out.includes(p)) out.push(p);
    }
    return out;
  };
  const all = await free(nb + nw + 2);
  return { backends: all.slice(0, nb), workers: all.slice(nb, nb + nw), admin: all[nb + nw]!, indexer: all[nb + nw + 1]! };
}

export async function startTopology(opts: TopologyOptions): Promise<Topology> {
  const host = opts.host ?? '127.0.0.1';
  const chainId = opts.chainId ?? 31337;
  const anvil = opts.rpcUrl ? undefined : await startAnvil({ chainId, host: '127.0.0.1' });
  const rpcUrl = opts.rpcUrl ?? anvil!.rpcUrl;
  const processes = new Map<string, TopologyProcess>();
  const stop = async () => {
    // SIGTERM to all at once (each drains on its own), then the chain.
    await Promise.all(
      [...processes.values()].map(async (p) => {
        if (!p.alive()) return;
        const gone = new Promise((r) => p.child.once('exit', r));
        p.child.kill('SIGTERM');
        const timer = setTimeout(() => p.child.kill('SIGKILL'), 15_000);
        await gone;
        clearTimeout(timer);
      }),
    );
    await anvil?.stop();
  };
  try {
    const plan = topologyPlan({
      databaseUrl: opts.databaseUrl,
      redisUrl: opts.redisUrl,
      rpcUrl,
      chainId,
      deployerKey: opts.deployerKey ?? ANVIL_PRIVATE_KEYS[0],
      apiKey: opts.apiKey,
      dataDir: path.resolve(opts.dataDir),
      host,
      ports: await pickPorts(opts),
      workerConcurrency: opts.workerConcurrency ?? 2,
      logLevel: opts.logLevel ?? 'warn',
      extraEnv: opts.extraEnv,
    });
    for (const p of plan) if (opts.serviceEnv?.[p.name]) p.env = { ...p.env, ...opts.serviceEnv[p.name] };
    for (const step of plan.filter((p) => p.kind === 'step')) await runStep(step, opts.onLine);
    const readyTimeout = opts.readyTimeoutMs ?? 90_000;
    const services = plan.filter((p) => p.kind === 'service');
    for (const p of services) processes.set(p.name, supervise(p, opts.onLine, readyTimeout));
    await Promise.all([...processes.values()].map((p) => p.restart()));
    return {
      rpcUrl,
      anvil,
      plan,
      processes,
      get(name) {
        const p = processes.get(name);
        if (!p) throw new Error(`no process ${name} in the topology`);
        return p;
      },
      of: (command) => [...processes.values()].filter((p) => p.plan.command === command),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** A service handle; restart() (also the first start) spawns it and waits for /readyz. */
function supervise(p: PlannedProcess, onLine: TopologyOptions['onLine'], readyTimeout: number): TopologyProcess {
  let current: ReturnType<typeof spawnAtelier> | undefined;
  let exited = true;
  let history = '';
  const handle: TopologyProcess = {
    name: p.name,
    plan: p,
    url: p.url!,
    get child() {
      return current!.child;
    },
    output: () => history + (current?.output() ?? ''),
    alive: () => !exited,
    async kill9() {
      if (!current || exited) return;
      const done = current.exited;
      current.child.kill('SIGKILL');
      await done;
    },
    async terminate() {
      if (!current || exited) throw new Error(`${p.name} is not running`);
      const done = current.exited.then((code) => ({ code, at: Date.now() }));
      current.child.kill('SIGTERM');
      return done;
    },
    async restart() {
      if (current && !exited) throw new Error(`${p.name} is still running`);
      if (current) history = (history + current.output()).slice(-200_000);
      current = spawnAtelier(p, onLine);
      exited = false;
      void current.exited.then(() => (exited = true));
      await waitReady(p.url!, () => exited, handle.output, readyTimeout);
    },
  };
  return handle;
}

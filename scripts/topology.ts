/**
 * `npm run topology`: the multi-process deployment of docs/deployment.md on this machine, as plain
 * processes (no containers): anvil (unless NFT_RPC_URL names an outside node), `atelier migrate`,
 * `atelier deploy`, two `atelier backend`, two `atelier worker`, `atelier admin`, `atelier indexer`.
 * Waits for every /readyz, prints the URLs, stops everything on SIGINT/SIGTERM.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/atelier REDIS_URL=redis://127.0.0.1:6379 npm run topology
 *
 * API_KEY (default: generated and printed), DATA_DIR (default .atelier-topology), NFT_RPC_URL,
 * NFT_CHAIN_ID, NFT_DEPLOYER_PRIVATE_KEY (default: anvil's first account), BACKENDS, WORKERS,
 * WORKER_CONCURRENCY, LOG_LEVEL. Ports: 3000/3010 backends, 3001 admin, 3002/3012 workers, 3003 indexer.
 */
import { randomBytes } from 'node:crypto';
import { startTopology } from './topology/run.ts';

const env = process.env;
function required(name: string): string {
  const v = env[name];
  if (!v) {
    process.stderr.write(
      `topology: ${name} is required (e.g. ${name === 'DATABASE_URL' ? 'postgres://postgres@127.0.0.1:5432/atelier' : 'redis://127.0.0.1:6379'})\n`,
    );
    process.exit(2);
  }
  return v;
}

const apiKey = env.API_KEY ?? `atelier_${randomBytes(24).toString('base64url')}`;
const topology = await startTopology({
  databaseUrl: required('DATABASE_URL'),
  redisUrl: required('REDIS_URL'),
  rpcUrl: env.NFT_RPC_URL,
  chainId: env.NFT_CHAIN_ID ? Number(env.NFT_CHAIN_ID) : undefined,
  deployerKey: env.NFT_DEPLOYER_PRIVATE_KEY,
  apiKey,
  dataDir: env.DATA_DIR ?? '.atelier-topology',
  backends: env.BACKENDS ? Number(env.BACKENDS) : undefined,
  workers: env.WORKERS ? Number(env.WORKERS) : undefined,
  workerConcurrency: env.WORKER_CONCURRENCY ? Number(env.WORKER_CONCURRENCY) : undefined,
  logLevel: env.LOG_LEVEL ?? 'warn',
  onLine: (name, line) => process.stdout.write(`[${name}] ${line}\n`),
}).catch((err: unknown) => {
  process.stderr.write(`topology: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});

process.stdout.write(
  [
    '',
    'Atelier topology is running (every /readyz answered 200)',
    `  chain        ${topology.rpcUrl}${topology.anvil ? '   (anvil started here)' : ''}`,
    ...[...topology.processes.values()].map((p) => `  ${p.name.padEnd(12)} ${p.url}   (pid ${p.child.pid})`),
    '',
    `  service API key: ${env.API_KEY ? 'the value of API_KEY' : apiKey}`,
    '  Ctrl-C stops every process',
    '',
  ].join('\n') + '\n',
);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`topology: ${signal}: stopping every process\n`);
    topology.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

/**
 * The multi-process topology (docs/deployment.md) as data: which `atelier` commands run, how many of each,
 * and which environment each one gets. `npm run topology` (scripts/topology.ts) and the topology
 * tests start exactly this list (scripts/topology/run.ts); compose.yaml describes the same services
 * with the same variable names, and test/topology/compose.test.ts checks that they agree.
 * docs/deployment.md explains each process and variable.
 */

/** A one-shot step (runs to exit 0 before the services) or a long-running service. */
export interface PlannedProcess {
  /** Also the compose service name. */
  name: string;
  /** `atelier <command>`. */
  command: 'migrate' | 'deploy' | 'backend' | 'worker' | 'admin' | 'indexer';
  kind: 'step' | 'service';
  env: Record<string, string>;
  /** http://host:port of its /healthz and /readyz (services only). */
  url?: string;
}

export interface TopologyPorts {
  backends: number[];
  workers: number[];
  admin: number;
  indexer: number;
}

export interface TopologyInputs {
  databaseUrl: string;
  redisUrl: string;
  rpcUrl: string;
  chainId: number;
  /** The platform's signing key (deploys, mints, MetadataUpdate): given only to the processes that sign. */
  deployerKey: string;
  apiKey: string;
  /** Shared by every process: uploads and generated files (local storage), the deployment record. */
  dataDir: string;
  host: string;
  ports: TopologyPorts;
  workerConcurrency: number;
  logLevel: string;
  /** Added to every process (e.g. IDEMPOTENCY_LEASE_MS in tests). */
  extraEnv?: Record<string, string>;
}

/** Default ports of `npm run topology` (compose uses the same inside its network). */
export const DEFAULT_PORTS: TopologyPorts = { backends: [3000, 3010], workers: [3002, 3012], admin: 3001, indexer: 3003 };

/**
 * Environment of every process: the shared stores and the chain. DEV_CHAIN=false: a topology never
 * runs an embedded anvil inside a process; the chain is an outside node (NFT_RPC_URL).
 */
function common(i: TopologyInputs): Record<string, string> {
  return {
    DATABASE_URL: i.databaseUrl,
    REDIS_URL: i.redisUrl,
    NFT_RPC_URL: i.rpcUrl,
    NFT_CHAIN_ID: String(i.chainId),
    DEV_CHAIN: 'false',
    API_KEY: i.apiKey,
    DATA_DIR: i.dataDir,
    HOST: i.host,
    LOG_LEVEL: i.logLevel,
    ...i.extraEnv,
  };
}

const urlOf = (host: string, port: number) => `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;

export function topologyPlan(i: TopologyInputs): PlannedProcess[] {
  const base = common(i);
  const signer = { NFT_DEPLOYER_PRIVATE_KEY: i.deployerKey };
  const backendUrls = i.ports.backends.map((p) => urlOf(i.host, p));
  const out: PlannedProcess[] = [
    { name: 'migrate', command: 'migrate', kind: 'step', env: { ...base } },
    // The platform contracts, once per chain, before any replica signs (what `atelier start` does on the dev chain).
    { name: 'deploy', command: 'deploy', kind: 'step', env: { ...base, ...signer } },
  ];
  i.ports.backends.forEach((port, n) => {
    out.push({
      name: `backend-${n + 1}`,
      command: 'backend',
      kind: 'service',
      // One public URL for every replica (a load balancer's in production): token metadata URIs
      // written on chain must not depend on which replica minted.
      env: { ...base, ...signer, PORT: String(port), PUBLIC_BASE_URL: backendUrls[0]! },
      url: backendUrls[n],
    });
  });
  i.ports.workers.forEach((port, n) => {
    out.push({
      name: `worker-${n + 1}`,
      command: 'worker',
      kind: 'service',
      env: { ...base, WORKER_HEALTH_PORT: String(port), WORKER_CONCURRENCY: String(i.workerConcurrency) },
      url: urlOf(i.host, port),
    });
  });
  out.push({
    name: 'admin',
    command: 'admin',
    kind: 'service',
    // The admin proxy forwards database operations to a backend (behind a load balancer in production).
    env: { ...base, ...signer, ADMIN_PORT: String(i.ports.admin), BACKEND_API_URL: backendUrls[0]! },
    url: urlOf(i.host, i.ports.admin),
  });
  out.push({
    name: 'indexer',
    command: 'indexer',
    kind: 'service',
    env: { ...base, PORT: String(i.ports.indexer) },
    url: urlOf(i.host, i.ports.indexer),
  });
  return out;
}

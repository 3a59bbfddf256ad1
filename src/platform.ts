/**
 * The composition root: builds each process from configuration. `atelier start` runs them all
 * in one process on embedded defaults; `atelier backend|admin` run one each.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { ConfigError, type Config } from './config.ts';
import { isAddressInUse } from './net/ports.ts';
import { openDatabase, type Database } from './db/client.ts';
import { buildAdminApp, type AdminDeps } from './http/admin/app.ts';
import { startPlatformChain, stderrChainLogger } from './chain/dev-chain.ts';
import type { ChainServices } from './chain/platform-chain.ts';
import { startNftDuties } from './services/nft-ports.ts';
import { buildBackendApp, type BackendDeps } from './http/backend/app.ts';
import { createAppShell } from './http/plugins/shell.ts';
import { createStorage } from './storage/index.ts';
import type { IndexerHost } from './indexer/host.ts';
import { startIndexer } from './indexer/service.ts';
import { createJobQueue, startGenerationWorker } from './generation/runtime.ts';
import { logOptions, workerLog } from './logging/log-lines.ts';
import { closeAppWithin } from './startup/graceful.ts';
import { requireDatabase } from './startup/require-database.ts';
import { clearLeases } from './db/leases.ts';
import { seedBuiltinGlobalCollections } from './db/global-collections.ts';
import { seedBuiltinWorkflows } from './db/workflows.ts';
import { normalizeGenerationData } from './domain/generation-data.ts';

export async function openConfiguredDatabase(config: Config): Promise<Database> {
  const database = await openDatabase(
    config.DATABASE_URL ? { url: config.DATABASE_URL } : { dataDir: path.join(config.dataDir, 'pgdata') },
  );
  return requireDatabase(database, config.DATABASE_URL);
}

/**
 * `npm start` with API_KEY unset: generate a service key once and keep it in the data dir
 * (mode 0600), so restarts keep working with the same key.
 */
export function ensureServiceKey(config: Config): { key: string; generated: boolean; file: string } {
  const file = path.join(config.dataDir, 'api-key');
  if (config.API_KEY) return { key: config.API_KEY, generated: false, file };
  fs.mkdirSync(config.dataDir, { recursive: true });
  if (fs.existsSync(file)) {
    const key = fs.readFileSync(file, 'utf8').trim();
    if (key.length >= 16) return { key, generated: false, file };
  }
  const key = `atelier_${randomBytes(24).toString('base64url')}`;
  fs.writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return { key, generated: true, file };
}

export function publicBaseUrl(config: Config): string {
  return config.PUBLIC_BASE_URL ?? `http://${config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST}:${config.PORT}`;
}

/** listen(), with a taken port reported naming the variable that chose it (not a stack trace). */
async function listenOn(
  app: FastifyInstance,
  variable: 'PORT' | 'ADMIN_PORT' | 'WORKER_HEALTH_PORT',
  port: number,
  host: string,
): Promise<void> {
  try {
    await app.listen({ port, host });
  } catch (err) {
    await app.close().catch(() => undefined);
    if (isAddressInUse(err)) {
      throw new ConfigError(variable, `port ${port} on ${host} is already in use; stop what holds it or set ${variable} to a free port`);
    }
    throw err;
  }
}

export interface RunningPlatform {
  backend?: FastifyInstance;
  admin?: FastifyInstance;
  database?: Database;
  backendUrl?: string;
  adminUrl?: string;
  /** RPC URL of the platform chain (the embedded anvil on defaults) and its factory, when known. */
  chainUrl?: string;
  factoryAddress?: string;
  stop(): Promise<void>;
}

/** What a backend is built from beyond configuration; anything left out is made from `config`. */
export interface BackendParts {
  /** Run a generation worker inside the backend (`npm start`; always without REDIS_URL). */
  runWorker?: boolean;
  chain?: ChainServices;
  indexer?: IndexerHost;
  /** Replacements for the parts built from configuration (the test kit passes its own). */
  deps?: Partial<BackendDeps>;
}

/**
 * The backend app with its job queue (and worker), built but not listening: `startBackend` puts it
 * on its port, the test kit drives it with `inject()`. A worker runs inside it when `runWorker` is
 * true (`npm start`) or when there is no REDIS_URL: the in-process queue has no other consumer.
 */
export async function buildBackend(config: Config, database: Database, parts: BackendParts = {}): Promise<FastifyInstance> {
  const deps = parts.deps ?? {};
  const storage = 'storage' in deps ? deps.storage : createStorage(config, publicBaseUrl(config));
  const ownQueue = 'jobQueue' in deps ? undefined : createJobQueue(config);
  const jobQueue = ownQueue ?? deps.jobQueue;
  const backend = await buildBackendApp({
    config,
    database,
    metadataBaseUrl: config.METADATA_BASE_URL ?? publicBaseUrl(config),
    chain: parts.chain,
    contractExists: parts.chain?.contractExists,
    indexer: parts.indexer,
    ...deps,
    storage,
    jobQueue,
  });
  const worker =
    ownQueue && storage && (parts.runWorker ?? !config.REDIS_URL)
      ? await startGenerationWorker({ config, database, storage, queue: ownQueue, log: workerLog(backend.log) })
      : undefined;
  backend.addHook('onClose', async () => {
    await worker?.close({ graceMs: config.SHUTDOWN_GRACE_MS });
    await ownQueue?.close();
  });
  return backend;
}

export async function startBackend(config: Config, database: Database, parts: BackendParts = {}): Promise<FastifyInstance> {
  // Built-in workflows and global collections exist from the first start (idempotent; a
  // worker elsewhere seeds the workflows too): develop works on a fresh platform.
  await seedBuiltinWorkflows(database.db);
  await seedBuiltinGlobalCollections(database.db, normalizeGenerationData);
  const backend = await buildBackend(config, database, parts);
  await listenOn(backend, 'PORT', config.PORT, config.HOST);
  return backend;
}

/**
 * `atelier worker`: generation steps from the BullMQ queue (REDIS_URL), WORKER_CONCURRENCY at a
 * time; /healthz and /readyz (database, queue) on WORKER_HEALTH_PORT.
 */
export async function startWorkerProcess(config: Config): Promise<{ stop(): Promise<void> }> {
  if (!config.REDIS_URL)
    throw new Error('atelier worker needs REDIS_URL: without it the queue lives inside `atelier start`/`atelier backend`');
  const database = await openConfiguredDatabase(config);
  await database.migrate();
  const queue = createJobQueue(config);
  // Log lines written inside a span (job.process) carry its trace_id and span_id.
  const logger = pino(logOptions(config.LOG_LEVEL, 'worker'));
  const worker = await startGenerationWorker({
    config,
    database,
    storage: createStorage(config, publicBaseUrl(config)),
    queue,
    log: workerLog(logger),
  });
  const health = await createAppShell({
    config,
    title: 'Atelier worker',
    description: 'Health of a generation worker.',
    ready: { database: () => database.ping(), queue: () => queue.ping() },
    metrics: { process: 'worker', db: database.db },
  });
  await listenOn(health, 'WORKER_HEALTH_PORT', config.WORKER_HEALTH_PORT, config.HOST);
  return {
    async stop() {
      // Health answers while the steps drain; steps still running after the grace go back to the queue.
      await worker.close({ graceMs: config.SHUTDOWN_GRACE_MS });
      await queue.close();
      await health.close();
      await database.close();
    },
  };
}

/** The admin proxy, built but not listening (the test kit injects; `startAdmin` listens). */
export function buildAdmin(config: Config, overrides: Partial<AdminDeps> = {}): Promise<FastifyInstance> {
  return buildAdminApp(config, overrides);
}

export async function startAdmin(config: Config, overrides: Partial<AdminDeps> = {}): Promise<FastifyInstance> {
  const admin = await buildAdmin(config, overrides);
  await listenOn(admin, 'ADMIN_PORT', config.ADMIN_PORT, config.HOST);
  return admin;
}

/** Everything in one process (`atelier start`). */
export async function startAll(config: Config): Promise<RunningPlatform> {
  const database = await openConfiguredDatabase(config);
  await database.migrate();
  // PGlite: this process holds the data directory's lock, so any lease holder recorded is a
  // process that died (kill -9): its duties are taken at once rather than after the lease expiry.
  if (database.kind === 'pglite') await clearLeases(database.db);
  // The embedded anvil (and the platform contracts on first start) before the apps.
  const chain = await startPlatformChain(config, database.db, stderrChainLogger(config));
  // The ownership indexer, when a factory (NFT_FACTORY_ADDRESS or deployments/<chainId>.json) and an
  // RPC are known; the backend serves its live status and socket.io on its port (docs/indexer.md).
  const indexer =
    config.NFT_RPC_URL || config.DEV_CHAIN
      ? await startIndexer({
          config,
          database,
          // The live deployment (the embedded chain keeps its record in the data dir).
          target: chain.deployment
            ? {
                ...(chain.rpcUrl ? { rpcUrl: chain.rpcUrl } : {}),
                factoryAddress: chain.deployment.contracts.DiamondFactory,
                startBlock: chain.deployment.blockNumber,
                contracts: chain.deployment.contracts as Record<string, string>,
              }
            : chain.rpcUrl
              ? { rpcUrl: chain.rpcUrl }
              : undefined,
        })
      : undefined;
  const backend = await startBackend(config, database, { runWorker: true, chain: chain.services, indexer: indexer?.host }).catch(
    async (err: unknown) => {
      await indexer?.stop();
      throw err;
    },
  );
  const backendUrl = publicBaseUrl(config);
  const adminConfig = { ...config, BACKEND_API_URL: config.BACKEND_API_URL ?? backendUrl };
  // socket.io on the admin port too, fed by the same indexer: the console's live activity (docs/admin-ui.md).
  const admin = await startAdmin(adminConfig, {
    chain: chain.services,
    ...(indexer?.host.events ? { indexerEvents: indexer.host.events } : {}),
  });
  const adminUrl = `http://${config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST}:${config.ADMIN_PORT}`;
  // ERC-4906 MetadataUpdate for completed artwork, and the crash repair of mints and deploys
  // (services/metadata-updates.ts, services/crash-repair.ts; docs/minting.md).
  const duties = startNftDuties({
    db: database.db,
    config,
    chain: chain.services,
    metadataBaseUrl: config.METADATA_BASE_URL ?? publicBaseUrl(config),
    log: backend.log,
  });
  return {
    backend,
    admin,
    database,
    backendUrl,
    adminUrl,
    chainUrl: chain.rpcUrl,
    factoryAddress: chain.deployment?.contracts.DiamondFactory,
    async stop() {
      await indexer?.stop();
      await duties.stop();
      await closeAppWithin(admin, config.SHUTDOWN_GRACE_MS);
      await closeAppWithin(backend, config.SHUTDOWN_GRACE_MS);
      await chain.stop(); // stops anvil, which writes its state
      await database.close();
    },
  };
}

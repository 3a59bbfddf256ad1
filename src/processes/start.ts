/**
 * `atelier start`: everything in one process on embedded defaults. Opens, in order: configuration
 * (the service key) → database → chain (the embedded anvil and the platform contracts on first
 * start) → the indexer → the backend (services, app, worker) → the admin proxy → the duties.
 */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import { startPlatformChain, stderrChainLogger } from '../chain/dev-chain.ts';
import type { Database } from '../db/client.ts';
import { clearLeases } from '../db/leases.ts';
import { startIndexer } from '../indexer/service.ts';
import { startNftDuties } from '../duties/nft.ts';
import { webhookSettingsOf } from '../services/wire-webhooks.ts';
import { walletHealthSettingsOf } from '../services/wire-wallet-health.ts';
import { closeAppWithin } from '../startup/graceful.ts';
import { startProcessTelemetry } from '../telemetry.ts';
import { startAdmin } from './admin.ts';
import { startBackend } from './backend.ts';
import { adminBaseUrl, ensureServiceKey, metadataBaseUrlOf, openConfiguredDatabase, publicBaseUrl, type RunningProcess } from './shared.ts';

export interface RunningPlatform extends RunningProcess {
  config: Config;
  backend: FastifyInstance;
  admin: FastifyInstance;
  database: Database;
  backendUrl: string;
  adminUrl: string;
  /** The service key: API_KEY, or the one generated in the data dir. */
  key: ReturnType<typeof ensureServiceKey>;
  /** RPC URL of the platform chain (the embedded anvil on defaults) and its factory, when known. */
  chainUrl?: string;
  factoryAddress?: string;
}

export async function runStart(loaded: Config): Promise<RunningPlatform> {
  const follows = !!(loaded.NFT_RPC_URL || loaded.DEV_CHAIN);
  // One heartbeat per service this process runs (the indexer only when there is a chain to follow).
  const stopTelemetry = startProcessTelemetry(loaded, ['backend', 'admin', 'worker', ...(follows ? ['indexer'] : [])]);
  const key = ensureServiceKey(loaded);
  const config: Config = { ...loaded, API_KEY: key.key };

  const database = await openConfiguredDatabase(config);
  await database.migrate();
  // PGlite: this process holds the data directory's lock, so any lease holder recorded is a
  // process that died (kill -9): its duties are taken at once rather than after the lease expiry.
  if (database.kind === 'pglite') await clearLeases(database.db);

  // The embedded anvil (and the platform contracts on first start) before the apps.
  const chain = await startPlatformChain(config, database.db, stderrChainLogger(config));

  // The ownership indexer, when a factory (NFT_FACTORY_ADDRESS or deployments/<chainId>.json) and an
  // RPC are known; the backend serves its live status and socket.io on its port (docs/indexer.md).
  const indexer = follows
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

  // The backend: its services, app and the worker (the in-process queue's consumer).
  const backend = await startBackend(config, database, { runWorker: true, chain: chain.services, indexer: indexer?.host }).catch(
    async (err: unknown) => {
      await indexer?.stop();
      throw err;
    },
  );
  const backendUrl = publicBaseUrl(config);

  // The admin proxy, reaching this backend; socket.io on its port too, fed by the same indexer
  // (the console's live activity, docs/admin-ui.md).
  const admin = await startAdmin(
    { ...config, BACKEND_API_URL: config.BACKEND_API_URL ?? backendUrl },
    { chain: chain.services, ...(indexer?.host.events ? { indexerEvents: indexer.host.events } : {}) },
  );

  // ERC-4906 MetadataUpdate for completed artwork, and the crash repair of mints and deploys
  // (services/metadata-updates.ts, services/crash-repair.ts; docs/minting.md).
  const duties = startNftDuties({
    webhooks: webhookSettingsOf(config),
    walletHealth: { ...walletHealthSettingsOf(config), intervalMs: config.WALLET_HEALTH_INTERVAL_MS },
    db: database.db,
    chain: chain.services,
    chainId: config.NFT_CHAIN_ID,
    leaseTtlMs: config.DUTY_LEASE_TTL_MS,
    metadataBaseUrl: metadataBaseUrlOf(config),
    log: backend.log,
  });

  return {
    config,
    backend,
    admin,
    database,
    backendUrl,
    adminUrl: adminBaseUrl(config),
    key,
    chainUrl: chain.rpcUrl,
    factoryAddress: chain.deployment?.contracts.DiamondFactory,
    async stop() {
      try {
        await indexer?.stop();
        await duties.stop();
        await closeAppWithin(admin, config.SHUTDOWN_GRACE_MS);
        await closeAppWithin(backend, config.SHUTDOWN_GRACE_MS);
        await chain.stop(); // stops anvil, which writes its state
        await database.close();
      } finally {
        await stopTelemetry().catch(() => undefined);
      }
    },
  };
}

/**
 * `atelier admin`: the admin proxy on ADMIN_PORT. Opens, in order: configuration → database (only
 * with DATABASE_URL: chain writes are recorded before they are sent) → chain → the backend client
 * and caller lookup → app → socket.io. `buildAdmin` is also what `atelier start` and the test kit use.
 */
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import { createChainServices } from '../chain/platform-chain.ts';
import { buildAdminApp } from '../http/admin/app.ts';
import { createBackendClient } from '../http/admin/backend-client.ts';
import { createCallerLookup } from '../http/admin/caller-lookup.ts';
import type { AdminDeps } from '../http/admin/deps.ts';
import type { IndexerEvents } from '../indexer/events.ts';
import { closeAppWithin } from '../startup/graceful.ts';
import { startProcessTelemetry } from '../telemetry.ts';
import { attachIndexerRealtime } from './realtime.ts';
import { adminBaseUrl, listenOn, openConfiguredDatabase, type RunningProcess } from './shared.ts';

/** What the test kit (or `atelier start`) gives instead of building it from configuration. */
export type AdminOverrides = Partial<Omit<AdminDeps, 'config'>> & {
  /**
   * The indexer events of this process, for socket.io on this port (`npm start`). Without them,
   * socket.io is attached only when REDIS_URL carries the events of an indexer elsewhere.
   */
  indexerEvents?: IndexerEvents;
};

/** The admin proxy, built but not listening (the test kit injects; `startAdmin` listens). */
export async function buildAdmin(config: Config, overrides: AdminOverrides = {}): Promise<FastifyInstance> {
  const backend = overrides.backend ?? createBackendClient(config.BACKEND_API_URL, config.API_KEY);
  const admin = await buildAdminApp({
    config,
    backend,
    chain: overrides.chain,
    metadataRewrites: overrides.metadataRewrites,
    callers: overrides.callers ?? createCallerLookup(backend),
    ...(overrides.fetchResolver ? { fetchResolver: overrides.fetchResolver } : {}),
  });
  // Live activity for the console on its own origin (docs/admin-ui.md).
  attachIndexerRealtime(admin, overrides.indexerEvents, config.REDIS_URL);
  return admin;
}

export async function startAdmin(config: Config, overrides: AdminOverrides = {}): Promise<FastifyInstance> {
  const admin = await buildAdmin(config, overrides);
  await listenOn(admin, 'ADMIN_PORT', config.ADMIN_PORT, config.HOST);
  return admin;
}

/** `atelier admin`. */
export async function runAdmin(config: Config): Promise<RunningProcess & { url: string }> {
  const stopTelemetry = startProcessTelemetry(config, ['admin']);
  // Chain writes are recorded before they are sent: with DATABASE_URL the admin proxy has a
  // tx sender; without it its chain routes answer 503 (docs/chain-operations.md).
  const database = config.DATABASE_URL ? await openConfiguredDatabase(config) : undefined;
  const chain = database
    ? createChainServices({
        config,
        db: database.db,
        deploymentsDir: path.join(config.dataDir, 'deployments'),
        startSenders: [config.NFT_CHAIN_ID],
      })
    : undefined;
  const app = await startAdmin(config, { chain });
  return {
    url: adminBaseUrl(config),
    async stop() {
      try {
        await closeAppWithin(app, config.SHUTDOWN_GRACE_MS);
        await chain?.close();
        await database?.close();
      } finally {
        await stopTelemetry().catch(() => undefined);
      }
    },
  };
}

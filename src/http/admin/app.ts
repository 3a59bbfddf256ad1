/**
 * The admin proxy: /api/nft/*. Database operations are forwarded to the backend (one table,
 * forwards.ts); chain operations run here. Callers: the operator (service key) and signed-in users
 * (a JWT, a user API key or a Sign-In with Ethereum session), whom the backend identifies
 * (caller-lookup.ts) and whose calls go to the backend with their own credential; what only the
 * platform wallet's operator may do (deploying the platform, raw deployments) is refused to users
 * (docs/auth.md "The admin proxy", docs/permissions.md). It also serves the console (web/) and
 * socket.io for its live activity.
 */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.ts';
import type { IndexerEvents } from '../../indexer/events.ts';
import { installAuth } from '../plugins/auth.ts';
import { createAppShell } from '../plugins/shell.ts';
import { chainCheck, healthCheck } from '../readiness.ts';
import { installErrorHandling } from '../plugins/errors.ts';
import { attachRealtime } from '../realtime.ts';
import { createBackendClient, type BackendClient } from './backend-client.ts';
import { type CallerLookup, createCallerLookup } from './caller-lookup.ts';
import { adminChainRoutes } from './chain.ts';
import { adminDeployRoutes } from './deploy.ts';
import { adminForwardRoutes } from './forwards.ts';
import { adminJobRoutes } from './jobs.ts';
import { adminSessionRoutes } from './session.ts';
import type { ChainServices } from '../../chain/platform-chain.ts';
import { adminUiRoutes } from './ui.ts';
import type { Resolver } from '../../net/guarded-fetch.ts';

export interface AdminDeps {
  config: Config;
  backend: BackendClient;
  /** Chain operations (deploy, collections on chain, admin actions, metadata); without it those routes answer 503. */
  chain?: ChainServices;
  /** URI prefixes of our own metadata host → where this process reaches it (default METADATA_BASE_URL → BACKEND_API_URL). */
  metadataRewrites?: Array<{ from: string; to: string }>;
  /** Name resolution of the metadata proxy's fetches (SSRF tests); default: the system's. */
  fetchResolver?: Resolver;
  /** Who user credentials are (asked of the backend, briefly cached); default from `backend`. */
  callers?: CallerLookup;
  /**
   * The indexer events of this process, for socket.io on this port (`npm start`). Without them,
   * socket.io is attached only when REDIS_URL carries the events of an indexer elsewhere.
   */
  indexerEvents?: IndexerEvents;
}

export async function buildAdminApp(config: Config, overrides: Partial<AdminDeps> = {}): Promise<FastifyInstance> {
  const backend = overrides.backend ?? createBackendClient(config.BACKEND_API_URL, config.API_KEY);
  const deps: AdminDeps = {
    config,
    backend,
    chain: overrides.chain,
    metadataRewrites: overrides.metadataRewrites,
    callers: overrides.callers ?? createCallerLookup(backend),
    ...(overrides.fetchResolver ? { fetchResolver: overrides.fetchResolver } : {}),
    ...(overrides.indexerEvents ? { indexerEvents: overrides.indexerEvents } : {}),
  };
  const app = await createAppShell({
    config,
    title: 'Atelier admin proxy',
    description: 'NFT administration: collections, factory and collection deployment, admin calls, metadata.',
    bodyLimit: 16 * 1024 * 1024,
    metrics: { process: 'admin' },
    errorStyle: 'success',
    ready: {
      backend: healthCheck(config.BACKEND_API_URL),
      ...(deps.chain ? { chain: chainCheck(() => deps.chain!.client(config.NFT_CHAIN_ID).getBlockNumber()) } : {}),
    },
  });
  installErrorHandling(app, 'success');
  installAuth(app, { config, style: 'success', remote: deps.callers });
  await app.register(adminForwardRoutes, deps);
  await app.register(adminSessionRoutes, deps);
  await app.register(adminJobRoutes, deps);
  await app.register(adminChainRoutes, deps);
  await app.register(adminDeployRoutes, deps);
  // The console (web/, docs/admin-ui.md): public static files; the page sends its credential itself.
  await app.register(adminUiRoutes, deps);
  // Live activity for the console on its own origin (src/http/realtime.ts; docs/admin-ui.md).
  if (deps.indexerEvents || config.REDIS_URL) {
    const realtime = attachRealtime(app.server, deps.indexerEvents, { redisUrl: config.REDIS_URL });
    app.addHook('preClose', () => realtime.close());
  }
  return app;
}

/**
 * The admin proxy: /api/nft/*. Database operations are forwarded to the backend (one table,
 * forwards.ts); chain operations run here. Every route needs the service key: this process signs
 * with the platform wallet.
 */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.ts';
import { installAuth } from '../plugins/auth.ts';
import { createAppShell } from '../plugins/shell.ts';
import { chainCheck, healthCheck } from '../readiness.ts';
import { installErrorHandling } from '../plugins/errors.ts';
import { createBackendClient, type BackendClient } from './backend-client.ts';
import { adminChainRoutes } from './chain.ts';
import { adminDeployRoutes } from './deploy.ts';
import { adminForwardRoutes } from './forwards.ts';
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
}

export async function buildAdminApp(config: Config, overrides: Partial<AdminDeps> = {}): Promise<FastifyInstance> {
  const deps: AdminDeps = {
    config,
    backend: overrides.backend ?? createBackendClient(config.BACKEND_API_URL, config.API_KEY),
    chain: overrides.chain,
    metadataRewrites: overrides.metadataRewrites,
    ...(overrides.fetchResolver ? { fetchResolver: overrides.fetchResolver } : {}),
  };
  const app = await createAppShell({
    config,
    title: 'Atelier admin proxy',
    description: 'NFT administration: collections, factory and collection deployment, admin calls, metadata.',
    bodyLimit: 16 * 1024 * 1024,
    metrics: { process: 'admin' },
    ready: {
      backend: healthCheck(config.BACKEND_API_URL),
      ...(deps.chain ? { chain: chainCheck(() => deps.chain!.client(config.NFT_CHAIN_ID).getBlockNumber()) } : {}),
    },
  });
  installErrorHandling(app, 'success');
  installAuth(app, { config, style: 'success', serviceKeyOnly: true });
  await app.register(adminForwardRoutes, deps);
  await app.register(adminChainRoutes, deps);
  await app.register(adminDeployRoutes, deps);
  // The admin web UI (web/, docs/admin-ui.md): public static files; the page sends the key itself.
  await app.register(adminUiRoutes, deps);
  return app;
}

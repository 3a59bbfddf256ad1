/**
 * The admin proxy: /api/nft/*. Database operations are forwarded to the backend (one table,
 * forwards.ts); chain operations run here. Callers: the operator (service key) and signed-in users
 * (a JWT, a user API key or a Sign-In with Ethereum session), whom the backend identifies
 * (caller-lookup.ts) and whose calls go to the backend with their own credential; what only the
 * platform wallet's operator may do (deploying the platform, raw deployments) is refused to users
 * (docs/auth.md "The admin proxy", docs/permissions.md). It also serves the console (web/).
 * Built from wired parts by src/processes/admin.ts (which attaches socket.io).
 */
import type { FastifyInstance } from 'fastify';
import { installAuth } from '../plugins/auth.ts';
import { createAppShell } from '../plugins/shell.ts';
import { chainCheck, healthCheck } from '../readiness.ts';
import { installErrorHandling } from '../plugins/errors.ts';
import { adminChainRoutes } from './chain.ts';
import { adminDeployRoutes } from './deploy.ts';
import type { AdminDeps } from './deps.ts';
import { adminForwardRoutes } from './forwards.ts';
import { adminJobRoutes } from './jobs.ts';
import { adminSessionRoutes } from './session.ts';
import { adminUiRoutes } from './ui.ts';

export async function buildAdminApp(deps: AdminDeps): Promise<FastifyInstance> {
  const { config } = deps;
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
  return app;
}

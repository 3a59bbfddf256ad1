/**
 * The app of `atelier indexer` as its own process: the indexer package API (docs/api/nft.md §4.4)
 * and the ownership/status routes on one port (PORT). Built from wired services by
 * src/processes/indexer.ts, which also attaches socket.io.
 */
import type { FastifyInstance } from 'fastify';
import type { CredentialPort } from '../services/credentials.ts';
import { indexerRoutes, type IndexerRoutesOptions } from './backend/indexer.ts';
import type { MetricSources } from './metrics.ts';
import { installAuth, type AuthSettings } from './plugins/auth.ts';
import { createAppShell, type AppShellSettings } from './plugins/shell.ts';
import type { ReadinessChecks } from './readiness.ts';
import { installErrorHandling } from './plugins/errors.ts';

/** What the indexer app reads from the configuration: the shell's settings and authentication's. */
export type IndexerAppSettings = AppShellSettings & AuthSettings;

export interface IndexerAppServices {
  config: IndexerAppSettings;
  ready: ReadinessChecks;
  metrics: Omit<MetricSources, 'token' | 'process'>;
  credentials: CredentialPort;
  indexer: IndexerRoutesOptions;
}

export async function buildIndexerApp(s: IndexerAppServices): Promise<FastifyInstance> {
  const app = await createAppShell({
    config: s.config,
    title: 'Atelier indexer',
    description: 'Ownership indexer: apps, app tokens, mints, owner tokens, contract reads, indexer status; socket.io events.',
    metrics: { process: 'indexer', ...s.metrics },
    ready: s.ready,
  });
  installErrorHandling(app, 'envelope');
  installAuth(app, { config: s.config, credentials: s.credentials, style: 'envelope' });
  await app.register(indexerRoutes, s.indexer);
  return app;
}

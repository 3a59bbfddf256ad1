/**
 * `atelier indexer` as its own process: the indexer package API (docs/api/nft.md §4.4), the
 * ownership/status routes and socket.io on one port (PORT), over the same database.
 */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import { installAuth } from './plugins/auth.ts';
import { credentialsOn } from '../services/credentials.ts';
import { indexerRoutes, type IndexerHost } from './backend/indexer.ts';
import { createAppShell } from './plugins/shell.ts';
import { chainCheck, rpcBlockNumber } from './readiness.ts';
import { installErrorHandling } from './plugins/errors.ts';
import { closeAppWithin } from '../startup/graceful.ts';

export async function buildIndexerApp(deps: { config: Config; database: Database; indexer: IndexerHost }): Promise<FastifyInstance> {
  const app = await createAppShell({
    config: deps.config,
    title: 'Atelier indexer',
    description: 'Ownership indexer: apps, app tokens, mints, owner tokens, contract reads, indexer status; socket.io events.',
    metrics: { process: 'indexer', db: deps.database.db, indexer: deps.indexer },
    ready: {
      database: () => deps.database.ping(),
      ...(deps.indexer.rpcUrl ? { chain: chainCheck(() => rpcBlockNumber(deps.indexer.rpcUrl!)) } : {}),
      indexer: async () => {
        // A standby (another process holds the chain's lease) is ready: it takes over when needed.
        if (deps.indexer.isLeader && !deps.indexer.isLeader()) return;
        const live = deps.indexer.liveStatus?.();
        if (live && !live.running) throw new Error('the indexer loop is not running');
        if (live?.stalled) throw new Error(`stalled: no progress since ${live.last_progress_at ?? 'start'}`);
      },
    },
  });
  installErrorHandling(app, 'envelope');
  installAuth(app, { config: deps.config, credentials: credentialsOn(deps.database.db), style: 'envelope' });
  await app.register(indexerRoutes, deps);
  return app;
}

/**
 * `atelier indexer [--reindex]`: migrations, the indexer (full reindex first with --reindex), and
 * its API + socket.io on PORT.
 */
export async function startIndexerProcess(
  config: Config,
  opts: { reindex?: boolean; openDatabase: (config: Config) => Promise<Database> },
): Promise<{ app: FastifyInstance; chainId: number; stop(): Promise<void> }> {
  const { startIndexer } = await import('../indexer/service.ts');
  const database = await opts.openDatabase(config);
  await database.migrate();
  const running = await startIndexer({ config, database, reindex: opts.reindex });
  if (!running) {
    await database.close();
    throw new Error(
      `nothing to index on chain ${config.NFT_CHAIN_ID}: set NFT_FACTORY_ADDRESS (or commit deployments/${config.NFT_CHAIN_ID}.json) and an RPC URL (NFT_RPC_URL, or the dev chain)`,
    );
  }
  const app = await buildIndexerApp({ config, database, indexer: running.host });
  await app.listen({ port: config.PORT, host: config.HOST });
  return {
    app,
    chainId: running.host.chainId,
    async stop() {
      // The chain's lease is given up first: a standby indexer takes over at once.
      await running.stop();
      await closeAppWithin(app, config.SHUTDOWN_GRACE_MS);
      await database.close();
    },
  };
}

/**
 * `atelier indexer [--reindex]`: the ownership indexer as its own process. Opens, in order:
 * configuration → database → the indexer (its follow loop a leased duty; a full reindex first
 * with --reindex) → read services → its API and socket.io on PORT.
 */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import { buildIndexerApp } from '../http/indexer-app.ts';
import { chainCheck, rpcBlockNumber } from '../http/readiness.ts';
import { startIndexer } from '../indexer/service.ts';
import { createContractReads } from '../services/contract-reads.ts';
import { credentialsOn } from '../services/wire-identity.ts';
import { indexerReadsOn } from '../services/wire-indexer.ts';
import { closeAppWithin } from '../startup/graceful.ts';
import { startProcessTelemetry } from '../telemetry.ts';
import { attachIndexerRealtime } from './realtime.ts';
import { metricsReadsOf, openConfiguredDatabase, publicBaseUrl, type RunningProcess } from './shared.ts';

export async function runIndexer(
  config: Config,
  opts: { reindex?: boolean } = {},
): Promise<RunningProcess & { app: FastifyInstance; chainId: number; url: string }> {
  const stopTelemetry = startProcessTelemetry(config, ['indexer']);
  const database = await openConfiguredDatabase(config);
  await database.migrate();
  const running = await startIndexer({ config, database, reindex: opts.reindex });
  if (!running) {
    await database.close();
    await stopTelemetry().catch(() => undefined);
    throw new Error(
      `nothing to index on chain ${config.NFT_CHAIN_ID}: set NFT_FACTORY_ADDRESS (or commit deployments/${config.NFT_CHAIN_ID}.json) and an RPC URL (NFT_RPC_URL, or the dev chain)`,
    );
  }
  const host = running.host;
  const app = await buildIndexerApp({
    config,
    credentials: credentialsOn(database.db),
    indexer: {
      reads: indexerReadsOn(database.db, config, host),
      contracts: createContractReads({ config, host }),
    },
    metrics: { reads: metricsReadsOf(database.db), indexer: host },
    ready: {
      database: () => database.ping(),
      ...(host.rpcUrl ? { chain: chainCheck(() => rpcBlockNumber(host.rpcUrl!)) } : {}),
      indexer: async () => {
        // A standby (another process holds the chain's lease) is ready: it takes over when needed.
        if (host.isLeader && !host.isLeader()) return;
        const live = host.liveStatus?.();
        if (live && !live.running) throw new Error('the indexer loop is not running');
        if (live?.stalled) throw new Error(`stalled: no progress since ${live.last_progress_at ?? 'start'}`);
      },
    },
  });
  attachIndexerRealtime(app, host.events, config.REDIS_URL);
  await app.listen({ port: config.PORT, host: config.HOST });
  return {
    app,
    chainId: host.chainId,
    url: publicBaseUrl(config),
    async stop() {
      try {
        // The chain's lease is given up first: a standby indexer takes over at once.
        await running.stop();
        await closeAppWithin(app, config.SHUTDOWN_GRACE_MS);
        await database.close();
      } finally {
        await stopTelemetry().catch(() => undefined);
      }
    },
  };
}

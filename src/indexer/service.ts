/**
 * Composition of the indexer from configuration: which chain, RPC, factory and start block; the
 * database store and the JSON-RPC source; a pino logger; the event hub that socket.io forwards
 * (attached by the HTTP app that hosts the indexer: src/http/realtime.ts). Used by `atelier start`
 * (inside the backend process) and `atelier indexer` (its own process, src/http/indexer-app.ts).
 */
import path from 'node:path';
import pino from 'pino';
import { logOptions } from '../logging/log-lines.ts';
import { getAddress } from 'viem';
import { rpcUrlFor, type RpcOptions } from '../chain/chains.ts';
import { rpcUrlList } from '../chain/rpc-transport.ts';
import { readDeploymentRecord } from '../chain/deploy-platform.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import { IndexerEvents } from './events.ts';
import type { IndexerHost } from './host.ts';
import { Indexer, type IndexerOptions } from './indexer.ts';
import { JsonRpc } from './rpc.ts';
import { createDbStore } from './store.ts';
import { startIndexerDuty } from '../duties/indexer.ts';

/** An indexer over a database and an RPC URL (the production ports). */
export function createIndexer(opts: Omit<IndexerOptions, 'store' | 'source'> & { database: Database; rpcUrl: string }): Indexer {
  const { database, rpcUrl, ...rest } = opts;
  return new Indexer({ ...rest, store: createDbStore(database.db, opts.chainId), source: new JsonRpc(rpcUrlList(rpcUrl)) });
}

/** What choosing the chain to index reads from the configuration. */
export type IndexerTargetOptions = RpcOptions & Pick<Config, 'NFT_FACTORY_ADDRESS' | 'dataDir'>;

export interface IndexerTarget {
  chainId: number;
  rpcUrl: string;
  factoryAddress: string;
  startBlock: number;
  contracts?: Record<string, string>;
}

/**
 * The chain to index: NFT_CHAIN_ID, its RPC URL, and the factory from NFT_FACTORY_ADDRESS or
 * deployments/<chainId>.json (whose blockNumber is the start block). Undefined when no factory is
 * known or the chain has no RPC: nothing to follow.
 */
export function indexerTarget(config: IndexerTargetOptions, overrides: Partial<IndexerTarget> = {}): IndexerTarget | undefined {
  const chainId = overrides.chainId ?? config.NFT_CHAIN_ID;
  let rpcUrl = overrides.rpcUrl;
  if (!rpcUrl) {
    try {
      rpcUrl = rpcUrlFor(chainId, config);
    } catch {
      return undefined;
    }
  }
  // The data dir's record first (written by `atelier deploy` or `atelier start` on the dev chain,
  // read by every process sharing DATA_DIR), then the committed one.
  const record = readDeploymentRecord(chainId, path.join(config.dataDir, 'deployments')) ?? readDeploymentRecord(chainId);
  const factory = overrides.factoryAddress ?? config.NFT_FACTORY_ADDRESS ?? record?.contracts.DiamondFactory;
  if (!factory) return undefined;
  const sameFactory = record && getAddress(record.contracts.DiamondFactory) === getAddress(factory);
  return {
    chainId,
    rpcUrl,
    factoryAddress: getAddress(factory),
    startBlock: overrides.startBlock ?? (sameFactory ? record.blockNumber : 0),
    contracts:
      overrides.contracts ?? (sameFactory ? (record.contracts as Record<string, string>) : { DiamondFactory: getAddress(factory) }),
  };
}

export interface RunningIndexer {
  indexer: Indexer;
  events: IndexerEvents;
  /** What the backend app needs (BackendDeps.indexer). */
  host: IndexerHost;
  stop(): Promise<void>;
}

/** What starting the indexer reads from the configuration. */
export type StartIndexerSettings = IndexerTargetOptions & Pick<Config, 'LOG_LEVEL' | 'DUTY_LEASE_TTL_MS'>;

export interface StartIndexerOptions {
  config: StartIndexerSettings;
  database: Database;
  target?: Partial<IndexerTarget>;
  /** Full reindex before following (`atelier indexer --reindex`). */
  reindex?: boolean;
  /** Default true: start the follow loop. */
  follow?: boolean;
  options?: Partial<Omit<IndexerOptions, 'store' | 'source'>>;
}

/** Starts the indexer; undefined when there is nothing to index (no factory or RPC known). */
export async function startIndexer(opts: StartIndexerOptions): Promise<RunningIndexer | undefined> {
  const target = indexerTarget(opts.config, opts.target);
  if (!target) return undefined;
  const events = new IndexerEvents();
  const logger = pino(logOptions(opts.config.LOG_LEVEL, 'indexer'));
  const indexer = createIndexer({
    database: opts.database,
    chainId: target.chainId,
    rpcUrl: target.rpcUrl,
    factoryAddress: target.factoryAddress,
    startBlock: target.startBlock,
    events,
    logger: {
      info: (o, m) => logger.info(o, m),
      warn: (o, m) => logger.warn(o, m),
      error: (o, m) => logger.error(o, m),
    },
    ...opts.options,
  });
  if (opts.reindex) await indexer.resetForReindex();
  // One follower per chain across every indexer process: the holder of the chain's lease (src/duties/indexer.ts).
  const lease =
    (opts.follow ?? true)
      ? startIndexerDuty({
          db: opts.database.db,
          chainId: target.chainId,
          indexer,
          leaseTtlMs: opts.config.DUTY_LEASE_TTL_MS,
          logger,
        })
      : undefined;
  const host: IndexerHost = {
    chainId: target.chainId,
    rpcUrl: target.rpcUrl,
    contracts: target.contracts,
    events,
    liveStatus: () => indexer.liveStatus(),
    ...(lease ? { isLeader: () => lease.isLeader() } : {}),
  };
  logger.info({ chainId: target.chainId, factory: target.factoryAddress, startBlock: target.startBlock }, 'indexer started');
  return {
    indexer,
    events,
    host,
    async stop() {
      await lease?.stop();
      await indexer.stop();
    },
  };
}

/**
 * `atelier backend`: the backend service on PORT. Opens, in order: configuration → database →
 * chain → services → app → duties. `buildBackend` (services and app, not listening) is also what
 * `atelier start` and the test kit use, so tests run what production runs.
 */
import { startLeasedPurchaseFollower } from '../duties/sale-purchases.ts';
import { purchaseStoreOn } from '../services/wire-nft.ts';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import { seedBuiltinGlobalCollections } from '../db/global-collections.ts';
import { seedBuiltinWorkflows } from '../db/workflows.ts';
import { normalizeGenerationData } from '../domain/generation-data.ts';
import type { MintingChainAccess } from '../chain/mint.ts';
import { createChainServices, type ChainServices } from '../chain/platform-chain.ts';
import type { ConceptExpander } from '../generation/concept/index.ts';
import type { GeneratorConnector } from '../generation/connectors/index.ts';
import type { StepPayload } from '../generation/pipeline.ts';
import { createJobQueue, startGenerationWorker } from '../generation/runtime.ts';
import { buildBackendApp } from '../http/backend/app.ts';
import { chainNonceOf } from '../http/metrics.ts';
import { chainCheck } from '../http/readiness.ts';
import type { IndexerHost } from '../indexer/host.ts';
import { logOptions, workerLog } from '../logging/log-lines.ts';
import type { WorkQueue } from '../queue/index.ts';
import { createContentServices } from '../services/content.ts';
import { createContractReads } from '../services/contract-reads.ts';
import { credentialsOn } from '../services/wire-identity.ts';
import { indexerReadsOn } from '../services/wire-indexer.ts';
import { createJobStreamHub } from '../services/job-stream-hub.ts';
import { MetadataCache } from '../services/metadata-documents.ts';
import { createMetadataInvalidation } from '../services/metadata-invalidation.ts';
import { createNftServices } from '../services/wire-nft.ts';
import { startNftDuties } from '../duties/nft.ts';
import { startLeasedExactReveal } from '../duties/exact-reveal.ts';
import { startExportRecovery } from '../duties/export-recovery.ts';
import { walletHealthRows } from '../db/wallet-health.ts';
import { webhookServiceOn, webhookSettingsOf } from '../services/wire-webhooks.ts';
import { walletHealthReadsOn, walletHealthSettingsOf } from '../services/wire-wallet-health.ts';
import { sessionServiceOn } from '../services/wire-identity.ts';
import { videoWebhookServiceOn } from '../services/wire-content.ts';
import { walletServiceOn } from '../services/wire-wallets.ts';
import { startProcessTelemetry } from '../telemetry.ts';
import { closeAppWithin } from '../startup/graceful.ts';
import { createStorage } from '../storage/index.ts';
import type { Storage } from '../storage/types.ts';
import { attachIndexerRealtime } from './realtime.ts';
import { listenOn, metadataBaseUrlOf, metricsReadsOf, openConfiguredDatabase, publicBaseUrl, type RunningProcess } from './shared.ts';

/** Parts the test kit (or `atelier start`) gives instead of building them from configuration. */
export interface BackendOverrides {
  /** Public host of metadata documents; default METADATA_BASE_URL or the public base URL. */
  metadataBaseUrl?: string;
  /** Chain check for reset; absent when no chain is configured. */
  contractExists?: (chainId: number, address: string) => Promise<boolean>;
  /** Chain services: deploy-status verification, design-stage deploy, mints and payments (503 without). */
  chain?: ChainServices;
  /** Chain access for mints and payment checks when narrower than `chain` (tests); default `chain`. */
  mintingChain?: MintingChainAccess;
  /** File storage (uploads, thumbnails, GET /files/*); without it those routes are absent. */
  storage?: Storage;
  /** Language model for collection generation; default from configuration. */
  conceptExpander?: ConceptExpander;
  /** The indexer of this process (docs/indexer.md): live status, socket.io events, RPC for §4.4 reads. */
  indexer?: IndexerHost;
  /** Generation steps are queued here (docs/jobs.md); without it the generate routes answer 503. */
  jobQueue?: WorkQueue<StepPayload>;
  /** SSE job stream timing (tests shorten it). */
  sse?: { heartbeatMs?: number; safetyReadMs?: number };
  /** Connector choice for POST /workflows/:id/test; default from COMFYUI_URL / OPENAI_*. */
  connectorFor?: (workflowType: string, workflowData: unknown) => GeneratorConnector;
  /** In-process cache of final metadata documents (docs/minting.md); one per app by default. */
  metadataCache?: MetadataCache;
}

/** What a backend is built from beyond configuration; anything left out is made from `config`. */
export interface BackendParts {
  /** Run a generation worker inside the backend (`npm start`; always without REDIS_URL). */
  runWorker?: boolean;
  chain?: ChainServices;
  indexer?: IndexerHost;
  /** Replacements for the parts built from configuration (the test kit passes its own). */
  deps?: BackendOverrides;
}

/**
 * The backend's services and app with its job queue (and worker), built but not listening:
 * `startBackend` puts it on its port, the test kit drives it with `inject()`. A worker runs inside
 * it when `runWorker` is true (`npm start`) or when there is no REDIS_URL: the in-process queue
 * has no other consumer.
 */
export async function buildBackend(config: Config, database: Database, parts: BackendParts = {}): Promise<FastifyInstance> {
  const given = parts.deps ?? {};
  const o: BackendOverrides = { chain: parts.chain, contractExists: parts.chain?.contractExists, indexer: parts.indexer, ...given };
  const { db } = database;
  const logger = pino(logOptions(config.LOG_LEVEL));
  const metadataBaseUrl = o.metadataBaseUrl ?? metadataBaseUrlOf(config);
  const storage = 'storage' in given ? given.storage : createStorage(config, publicBaseUrl(config));
  const ownQueue = 'jobQueue' in given ? undefined : createJobQueue(config);
  const jobQueue = ownQueue ?? given.jobQueue;

  // Services. One metadata cache per replica; a changed token is dropped in every replica (Redis).
  const metadataCache = o.metadataCache ?? new MetadataCache();
  const invalidation = createMetadataInvalidation(metadataCache, config.REDIS_URL);
  const onTokenChanged = (collectionId: string, tokenId?: number) => invalidation.tokenChanged(collectionId, tokenId);
  const credentials = credentialsOn(db);
  const nft = createNftServices({
    db,
    config,
    metadataBaseUrl,
    publicBaseUrl: publicBaseUrl(config),
    chain: o.chain,
    mintingChain: o.mintingChain,
    contractExists: o.contractExists,
    jobQueue,
    storage,
    conceptExpander: o.conceptExpander,
    metadataCache,
    onTokenChanged,
    log: (err, message) => logger.error({ err }, message),
  });
  const content = createContentServices({
    db,
    config,
    ...(storage ? { storage } : {}),
    ...(jobQueue ? { queue: jobQueue } : {}),
    ...(o.connectorFor ? { connectorFor: o.connectorFor } : {}),
    log: (msg, extra) => logger.warn(extra, msg),
    metadataBaseUrl,
    onTokenChanged,
  });
  // One reader per watched job for every SSE stream of this process, woken by NOTIFY.
  const streams = createJobStreamHub(
    {
      snapshots: (cursors, limit) => content.jobs.snapshots(cursors, limit),
      listen: (channel, onPayload, onReconnect) => database.listen(channel, onPayload, onReconnect),
      statusOf: (job) => job.status,
      log: logger,
    },
    o.sse?.safetyReadMs !== undefined ? { safetyReadMs: o.sse.safetyReadMs } : {},
  );
  // Sign-in sessions last at most as long as a JWT may (docs/auth.md "Sessions").
  const sessions = sessionServiceOn(db, config.JWT_MAX_AGE_SECONDS);

  // The app over them.
  const chain = o.chain;
  const walletDetails = async () => ({
    wallets: (await walletHealthRows(db)).map((w) => ({
      chain_id: w.chain_id,
      address: w.address,
      balance_wei: w.balance_wei,
      threshold_wei: w.threshold_wei,
      low: w.low,
      checked_at: w.checked_at,
    })),
  });
  const backend = await buildBackendApp({
    config,
    logger,
    ready: {
      database: () => database.ping(),
      ...(jobQueue ? { queue: () => jobQueue.ping() } : {}),
      ...(chain ? { chain: chainCheck(() => chain.client(config.NFT_CHAIN_ID).getBlockNumber()) } : {}),
    },
    // The platform wallet per chain as the wallet-health duty last read it (docs/operations.md).
    ...(chain || o.mintingChain ? { readyDetails: walletDetails } : {}),
    metrics: {
      reads: metricsReadsOf(db),
      ...(chain ? { chainNonce: chainNonceOf(chain) } : {}),
      ...(o.indexer ? { indexer: o.indexer } : {}),
    },
    credentials,
    metadataBaseUrl,
    publicBaseUrl: publicBaseUrl(config),
    nft,
    content,
    indexer: {
      reads: indexerReadsOn(db, config, o.indexer),
      contracts: createContractReads({ config, host: o.indexer }),
    },
    streams,
    publicUrl: (key) => storage?.publicUrl(key) ?? key,
    sse: {
      maxPerUser: config.JOB_STREAMS_PER_USER,
      ...(o.sse?.heartbeatMs !== undefined ? { heartbeatMs: o.sse.heartbeatMs } : {}),
    },
    videoStream: {
      hlsBase: config.VIDEO_STREAM_BASE_URL.replace(/\/+$/, ''),
      thumbnailBase: config.VIDEO_THUMBNAIL_BASE_URL.replace(/\/+$/, ''),
    },
    video: videoWebhookServiceOn(db, {
      ...(config.VIDEO_WEBHOOK_SECRET ? { secret: config.VIDEO_WEBHOOK_SECRET } : {}),
      toleranceSeconds: config.VIDEO_WEBHOOK_TOLERANCE_SECONDS,
    }),
    webhooks: webhookServiceOn(db, webhookSettingsOf(config)),
    walletHealth: walletHealthReadsOn(db),
    sessions,
    wallets: walletServiceOn(db, config, o.mintingChain ?? chain, sessions),
  });
  backend.addHook('onClose', () => invalidation.close());
  backend.addHook('onClose', () => streams.close());
  // Collectors' on-chain purchases become decks and artwork (docs/minting.md "On-chain sale").
  const saleChain = o.mintingChain ?? chain;
  if (saleChain && nft.has.generation) {
    const follower = startLeasedPurchaseFollower({
      db,
      store: purchaseStoreOn(db),
      chainId: config.NFT_CHAIN_ID,
      client: () => saleChain.client(config.NFT_CHAIN_ID),
      minting: nft.minting,
      log: logger,
    });
    backend.addHook('onClose', () => follower.stop());
    // Exact counts: provenance before the sale, the reveal after it (docs/fairness.md "Exact counts").
    const exactReveal = startLeasedExactReveal({ db, exact: nft.exact, fair: nft.fairness, log: logger });
    backend.addHook('onClose', () => exactReveal.stop());
  }
  // Exports and pins whose process died are built or pinned again (docs/permanence.md "Crashes").
  const exportRecovery = startExportRecovery(nft.permanence, {
    onError: (err) => logger.warn({ err }, 'export recovery failed'),
  });
  backend.addHook('onClose', () => exportRecovery.stop());
  // socket.io where an indexer runs in this process, and on every replica when Redis carries
  // the events of an indexer elsewhere (src/http/realtime.ts).
  attachIndexerRealtime(backend, o.indexer?.events, config.REDIS_URL);
  // The built-in workflows exist from the first start on (idempotent; edited ones are kept).
  await content.workflows.seedBuiltins();

  // The worker inside this process, when it is the queue's only consumer.
  const worker =
    ownQueue && storage && (parts.runWorker ?? !config.REDIS_URL)
      ? await startGenerationWorker({ config, database, storage, queue: ownQueue, log: workerLog(logger) })
      : undefined;
  backend.addHook('onClose', async () => {
    await worker?.close({ graceMs: config.SHUTDOWN_GRACE_MS });
    await ownQueue?.close();
  });
  return backend;
}

/** Seeds what a fresh platform needs, builds the backend and listens on PORT. */
export async function startBackend(config: Config, database: Database, parts: BackendParts = {}): Promise<FastifyInstance> {
  // Built-in workflows and global collections exist from the first start (idempotent; a
  // worker elsewhere seeds the workflows too): develop works on a fresh platform.
  await seedBuiltinWorkflows(database.db);
  await seedBuiltinGlobalCollections(database.db, normalizeGenerationData);
  const backend = await buildBackend(config, database, parts);
  await listenOn(backend, 'PORT', config.PORT, config.HOST);
  return backend;
}

/** `atelier backend`. */
export async function runBackend(config: Config): Promise<RunningProcess & { url: string }> {
  const stopTelemetry = startProcessTelemetry(config, config.REDIS_URL ? ['backend'] : ['backend', 'worker']);
  const database = await openConfiguredDatabase(config);
  await database.migrate();
  // Chain services on the configured RPCs (no embedded anvil: that is `atelier start`'s).
  const chain = createChainServices({
    config,
    db: database.db,
    deploymentsDir: path.join(config.dataDir, 'deployments'),
    startSenders: [config.NFT_CHAIN_ID],
  });
  const app = await startBackend(config, database, { chain });
  // ERC-4906 for completed artwork and the crash repair (mints, deploys): every replica is a
  // candidate, the holder of each duty's lease runs it (src/duties/, docs/operations.md).
  const duties = startNftDuties({
    webhooks: webhookSettingsOf(config),
    walletHealth: { ...walletHealthSettingsOf(config), intervalMs: config.WALLET_HEALTH_INTERVAL_MS },
    db: database.db,
    chain,
    chainId: config.NFT_CHAIN_ID,
    leaseTtlMs: config.DUTY_LEASE_TTL_MS,
    metadataBaseUrl: metadataBaseUrlOf(config),
    log: app.log,
  });
  return {
    url: publicBaseUrl(config),
    async stop() {
      try {
        // Leases given up first: another replica takes the duties over at once.
        await duties.stop();
        await closeAppWithin(app, config.SHUTDOWN_GRACE_MS);
        await chain.close();
        await database.close();
      } finally {
        await stopTelemetry().catch(() => undefined);
      }
    },
  };
}

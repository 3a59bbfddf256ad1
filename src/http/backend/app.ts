/** The backend service: every REST route of both spec documents except /api/nft/*. */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/client.ts';
import { installAuth } from '../plugins/auth.ts';
import { credentialsOn } from '../../services/credentials.ts';
import { createAppShell } from '../plugins/shell.ts';
import { chainCheck } from '../readiness.ts';
import { chainNonceOf } from '../metrics.ts';
import { installErrorHandling } from '../plugins/errors.ts';
import { collectionDesignRoutes } from './collection-design.ts';
import { collectionRoutes } from './collections.ts';
import { collectionViewRoutes } from './collection-views.ts';
import { deployRoutes } from './deploy.ts';
import type { ChainServices } from '../../chain/platform-chain.ts';
import { custodialRoutes } from './custodial.ts';
import { feedRoutes } from './feed.ts';
import { identityRoutes } from './identity.ts';
import { walletRoutes } from './wallets.ts';
import { walletServiceOn } from '../../services/wallet-ports.ts';
import { sessionServiceOn } from '../../services/sessions.ts';
import { indexerRoutes, type IndexerHost } from './indexer.ts';
import { deckRoutes } from './decks.ts';
import { metadataRoutes } from './metadata.ts';
import { mintingRoutes } from './minting.ts';
import { saleRoutes } from './sale.ts';
import { startLeasedPurchaseFollower } from '../../services/sale-purchases.ts';
import { sampleRoutes } from './samples.ts';
import type { MintingChainAccess } from '../../chain/mint.ts';
import { createNftServices } from '../../services/nft-ports.ts';
import { MetadataCache } from '../../services/metadata-documents.ts';
import { createMetadataInvalidation } from '../../services/metadata-invalidation.ts';
import { outputRoutes } from './outputs.ts';
import { uploadRoutes } from './uploads.ts';
import type { Storage } from '../../storage/types.ts';
import type { ConceptExpander } from '../../generation/concept/index.ts';
import type { GeneratorConnector } from '../../generation/connectors/index.ts';
import type { StepPayload } from '../../generation/pipeline.ts';
import type { WorkQueue } from '../../queue/index.ts';
import { jobRoutes } from './jobs.ts';
import { createJobStreamHub } from '../../services/job-stream-hub.ts';
import { workflowRoutes } from './workflows.ts';
import { developRoutes } from './develop.ts';
import { generationRoutes } from './generation.ts';
import { createContentServices } from '../../services/content.ts';
import { videoWebhookServiceOn } from '../../services/video-webhook.ts';
import { videoWebhookRoutes } from './video-webhook.ts';

export interface BackendDeps {
  config: Config;
  database: Database;
  /** Public host of metadata documents; contractParams point here. */
  metadataBaseUrl: string;
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

export async function buildBackendApp(deps: BackendDeps): Promise<FastifyInstance> {
  const app = await createAppShell({
    config: deps.config,
    title: 'Atelier backend',
    description: 'Collections, outputs, decks, jobs, workflows, uploads, metadata, samples, ownership.',
    bodyLimit: 16 * 1024 * 1024,
    ready: {
      database: () => deps.database.ping(),
      ...(deps.jobQueue ? { queue: () => deps.jobQueue!.ping() } : {}),
      ...(deps.chain ? { chain: chainCheck(() => deps.chain!.client(deps.config.NFT_CHAIN_ID).getBlockNumber()) } : {}),
    },
    metrics: {
      process: 'backend',
      db: deps.database.db,
      ...(deps.chain ? { chainNonce: chainNonceOf(deps.chain) } : {}),
      ...(deps.indexer ? { indexer: deps.indexer } : {}),
    },
  });
  installErrorHandling(app, 'envelope');
  const credentials = credentialsOn(deps.database.db);
  installAuth(app, { config: deps.config, credentials, style: 'envelope' });
  // One metadata cache per replica; a changed token is dropped in every replica (issue 18.4).
  const metadataCache = deps.metadataCache ?? new MetadataCache();
  const invalidation = createMetadataInvalidation(metadataCache, deps.config.REDIS_URL);
  app.addHook('onClose', () => invalidation.close());
  const nft = createNftServices({
    db: deps.database.db,
    config: deps.config,
    metadataBaseUrl: deps.metadataBaseUrl,
    chain: deps.chain,
    mintingChain: deps.mintingChain,
    contractExists: deps.contractExists,
    jobQueue: deps.jobQueue,
    storage: deps.storage,
    conceptExpander: deps.conceptExpander,
    metadataCache,
    onTokenChanged: (collectionId, tokenId) => invalidation.tokenChanged(collectionId, tokenId),
    log: (err, message) => app.log.error({ err }, message),
  });
  const nftOptions = { nft, metadataBaseUrl: deps.metadataBaseUrl };
  // Collectors' on-chain purchases become decks and artwork (services/sale-purchases.ts).
  const chainAccess = deps.mintingChain ?? deps.chain;
  if (chainAccess && nft.has.generation) {
    const follower = startLeasedPurchaseFollower({
      db: deps.database.db,
      chainId: deps.config.NFT_CHAIN_ID,
      client: () => chainAccess.client(deps.config.NFT_CHAIN_ID),
      minting: nft.minting,
      log: app.log,
    });
    app.addHook('onClose', () => follower.stop());
  }
  await app.register(collectionRoutes, nftOptions);
  await app.register(collectionViewRoutes, nftOptions);
  await app.register(collectionDesignRoutes, nftOptions);
  await app.register(deployRoutes, nftOptions);
  await app.register(mintingRoutes, nftOptions);
  await app.register(saleRoutes, nftOptions);
  await app.register(sampleRoutes, nftOptions);
  await app.register(metadataRoutes, nftOptions);
  await app.register(indexerRoutes, deps);
  // Content (outputs, decks, jobs, workflows, uploads, feed, identity): one plugin per resource.
  const content = createContentServices({
    db: deps.database.db,
    config: deps.config,
    ...(deps.storage ? { storage: deps.storage } : {}),
    ...(deps.jobQueue ? { queue: deps.jobQueue } : {}),
    ...(deps.connectorFor ? { connectorFor: deps.connectorFor } : {}),
    log: (msg, extra) => app.log.warn(extra, msg),
    metadataBaseUrl: deps.metadataBaseUrl,
    onTokenChanged: (collectionId, tokenId) => invalidation.tokenChanged(collectionId, tokenId),
  });
  const stream = {
    hlsBase: deps.config.VIDEO_STREAM_BASE_URL.replace(/\/+$/, ''),
    thumbnailBase: deps.config.VIDEO_THUMBNAIL_BASE_URL.replace(/\/+$/, ''),
  };
  await app.register(outputRoutes, { outputs: content.outputs });
  await app.register(deckRoutes, { decks: content.decks });
  await app.register(developRoutes, { develop: content.develop, hasQueue: content.generation !== undefined });
  await app.register(generationRoutes, { generation: content.generation });
  // One reader per watched job for every SSE stream of this process, woken by NOTIFY.
  const streams = createJobStreamHub(
    {
      snapshots: (cursors, limit) => content.jobs.snapshots(cursors, limit),
      listen: (channel, onPayload, onReconnect) => deps.database.listen(channel, onPayload, onReconnect),
      statusOf: (job) => job.status,
      log: app.log,
    },
    deps.sse?.safetyReadMs !== undefined ? { safetyReadMs: deps.sse.safetyReadMs } : {},
  );
  app.addHook('onClose', () => streams.close());
  await app.register(jobRoutes, {
    jobs: content.jobs,
    publicUrl: (key) => deps.storage?.publicUrl(key) ?? key,
    streams,
    sse: {
      maxPerUser: deps.config.JOB_STREAMS_PER_USER,
      ...(deps.sse?.heartbeatMs !== undefined ? { heartbeatMs: deps.sse.heartbeatMs } : {}),
    },
  });
  await app.register(workflowRoutes, { workflows: content.workflows });
  await app.register(custodialRoutes, { custodial: content.custodial });
  await app.register(uploadRoutes, { uploads: content.uploads });
  await app.register(feedRoutes, { feed: content.feed, stream });
  await app.register(videoWebhookRoutes, {
    video: videoWebhookServiceOn(deps.database.db, {
      ...(deps.config.VIDEO_WEBHOOK_SECRET ? { secret: deps.config.VIDEO_WEBHOOK_SECRET } : {}),
      toleranceSeconds: deps.config.VIDEO_WEBHOOK_TOLERANCE_SECONDS,
    }),
  });
  await app.register(identityRoutes, { identity: content.identity, config: deps.config, credentials });
  // Sign-in sessions last at most as long as a JWT may (docs/auth.md "Sessions").
  const sessions = sessionServiceOn(deps.database.db, deps.config.JWT_MAX_AGE_SECONDS);
  await app.register(walletRoutes, {
    wallets: walletServiceOn(deps.database.db, deps.config, deps.mintingChain ?? deps.chain, sessions),
    sessions,
    config: deps.config,
  });
  // The built-in workflows exist from the first start on (idempotent; edited ones are kept).
  await content.workflows.seedBuiltins();
  return app;
}

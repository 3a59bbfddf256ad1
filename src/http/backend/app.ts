/**
 * The backend service: every REST route of both spec documents except /api/nft/*. It receives
 * built services (src/processes/backend.ts wires them) and only registers routes over them.
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { JobHistoryRow, JobRow } from '../../db/jobs.ts';
import { installAuth, type AuthSettings } from '../plugins/auth.ts';
import type { CredentialPort } from '../../services/credentials.ts';
import { createAppShell, type AppShellSettings } from '../plugins/shell.ts';
import type { ReadinessChecks } from '../readiness.ts';
import type { MetricSources } from '../metrics.ts';
import { installErrorHandling } from '../plugins/errors.ts';
import { collectionDesignRoutes } from './collection-design.ts';
import { collectionRoutes } from './collections.ts';
import { collectionViewRoutes } from './collection-views.ts';
import { deployRoutes } from './deploy.ts';
import { custodialRoutes } from './custodial.ts';
import { feedRoutes } from './feed.ts';
import { identityRoutes, type IdentityRoutesOptions } from './identity.ts';
import { walletRoutes, type WalletRoutesOptions } from './wallets.ts';
import type { SessionService } from '../../services/sessions.ts';
import type { WalletService } from '../../services/wallets.ts';
import { indexerRoutes, type IndexerRoutesOptions } from './indexer.ts';
import { deckRoutes } from './decks.ts';
import { metadataRoutes } from './metadata.ts';
import { mintingRoutes } from './minting.ts';
import { fairnessRoutes } from './fairness.ts';
import { saleRoutes } from './sale.ts';
import { mintPageRoutes, type MintPageRoutesOptions } from './mint-page.ts';
import { permanenceRoutes } from './permanence.ts';
import { sampleRoutes } from './samples.ts';
import type { NftServices } from '../../services/wire-nft.ts';
import { outputRoutes } from './outputs.ts';
import { uploadRoutes } from './uploads.ts';
import { jobRoutes } from './jobs.ts';
import type { JobStreamHub } from '../../services/job-stream-hub.ts';
import { workflowRoutes } from './workflows.ts';
import { developRoutes } from './develop.ts';
import { generationRoutes } from './generation.ts';
import type { ContentServices } from '../../services/content.ts';
import type { VideoWebhookService } from '../../services/video-webhook.ts';
import { videoWebhookRoutes } from './video-webhook.ts';
import type { WebhookService } from '../../services/webhooks.ts';
import { webhookRoutes } from './webhooks.ts';
import type { WalletHealthReads } from '../../services/wallet-health.ts';
import { walletHealthRoutes } from './wallet-health.ts';

/**
 * What the backend app reads from the configuration: the shell's settings, authentication's, the
 * mint page's CSP and the public identity routes' limits (each hop names its own).
 */
export type BackendAppSettings = AppShellSettings &
  AuthSettings &
  MintPageRoutesOptions['config'] &
  IdentityRoutesOptions['config'] &
  WalletRoutesOptions['config'];

/** What the backend app is built from: services already wired to their ports. */
export interface BackendServices {
  /** Auth, rate limits, OpenAPI, identity routes (the HTTP settings of configuration). */
  config: BackendAppSettings;
  logger?: FastifyBaseLogger;
  /** /readyz checks by dependency name (database, queue, chain). */
  ready: ReadinessChecks;
  /** /readyz details that do not decide readiness (the platform wallet's health). */
  readyDetails?: () => Promise<Record<string, unknown>>;
  /** /metrics sources beyond HTTP latency. */
  metrics: Omit<MetricSources, 'token' | 'process'>;
  credentials: CredentialPort;
  /** Public host of metadata documents; contractParams point here. */
  metadataBaseUrl: string;
  /** This backend's public URL (PUBLIC_BASE_URL): the mint page links (docs/mint-page.md). Default: metadataBaseUrl. */
  publicBaseUrl?: string;
  nft: NftServices;
  content: ContentServices;
  indexer: IndexerRoutesOptions;
  /** One reader per watched job for every SSE stream of this process, woken by NOTIFY. */
  streams: JobStreamHub<JobRow, JobHistoryRow>;
  /** Public URL of a storage key; the key itself without storage. */
  publicUrl: (key: string) => string;
  /** SSE job stream settings (tests shorten the heartbeat). */
  sse: { heartbeatMs?: number; maxPerUser: number };
  /** HLS and thumbnail bases of the video feed. */
  videoStream: { hlsBase: string; thumbnailBase: string };
  video: VideoWebhookService;
  /** Outbound webhook subscriptions (docs/webhooks.md). */
  webhooks: WebhookService;
  /** The platform wallet's stored health (docs/operations.md "Wallet health"). */
  walletHealth: WalletHealthReads;
  sessions: SessionService;
  wallets: WalletService;
}

export async function buildBackendApp(s: BackendServices): Promise<FastifyInstance> {
  const app = await createAppShell({
    config: s.config,
    ...(s.logger ? { logger: s.logger } : {}),
    title: 'Atelier backend',
    description: 'Collections, outputs, decks, jobs, workflows, uploads, metadata, samples, ownership.',
    bodyLimit: 16 * 1024 * 1024,
    ready: s.ready,
    ...(s.readyDetails ? { readyDetails: s.readyDetails } : {}),
    metrics: { process: 'backend', ...s.metrics },
  });
  installErrorHandling(app, 'envelope');
  installAuth(app, { config: s.config, credentials: s.credentials, style: 'envelope' });
  const nftOptions = { nft: s.nft, metadataBaseUrl: s.metadataBaseUrl, publicBaseUrl: s.publicBaseUrl ?? s.metadataBaseUrl };
  await app.register(collectionRoutes, nftOptions);
  await app.register(collectionViewRoutes, nftOptions);
  await app.register(collectionDesignRoutes, nftOptions);
  await app.register(deployRoutes, nftOptions);
  await app.register(mintingRoutes, nftOptions);
  await app.register(fairnessRoutes, nftOptions);
  await app.register(saleRoutes, nftOptions);
  await app.register(mintPageRoutes, { ...nftOptions, config: s.config });
  await app.register(permanenceRoutes, { permanence: s.nft.permanence, freeze: s.nft.freeze });
  await app.register(sampleRoutes, nftOptions);
  await app.register(metadataRoutes, nftOptions);
  await app.register(indexerRoutes, s.indexer);
  // Content (outputs, decks, jobs, workflows, uploads, feed, identity): one plugin per resource.
  const { content } = s;
  await app.register(outputRoutes, { outputs: content.outputs });
  await app.register(deckRoutes, { decks: content.decks });
  await app.register(developRoutes, { develop: content.develop, hasQueue: content.generation !== undefined });
  await app.register(generationRoutes, { generation: content.generation });
  await app.register(jobRoutes, { jobs: content.jobs, publicUrl: s.publicUrl, streams: s.streams, sse: s.sse });
  await app.register(workflowRoutes, { workflows: content.workflows });
  await app.register(custodialRoutes, { custodial: content.custodial });
  await app.register(uploadRoutes, { uploads: content.uploads });
  await app.register(feedRoutes, { feed: content.feed, stream: s.videoStream });
  await app.register(videoWebhookRoutes, { video: s.video });
  await app.register(webhookRoutes, { webhooks: s.webhooks });
  await app.register(walletHealthRoutes, { walletHealth: s.walletHealth });
  await app.register(identityRoutes, { identity: content.identity, config: s.config, credentials: s.credentials });
  await app.register(walletRoutes, { wallets: s.wallets, sessions: s.sessions, config: s.config });
  return app;
}

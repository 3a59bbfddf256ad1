/** The backend service: every REST route of both spec documents except /api/nft/*. */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/client.ts';
import { installAuth } from '../plugins/auth.ts';
import { createAppShell } from '../plugins/shell.ts';
import { installErrorHandling } from '../plugins/errors.ts';
import { collectionDesignRoutes } from './collection-design.ts';
import { collectionRoutes } from './collections.ts';
import { deployRoutes } from './deploy.ts';
import type { ChainServices } from '../../chain/platform-chain.ts';
import { custodialRoutes } from './custodial.ts';
import { feedRoutes } from './feed.ts';
import { identityRoutes } from './identity.ts';
import { indexerRoutes, type IndexerHost } from './indexer.ts';
import { deckRoutes } from './decks.ts';
import { metadataRoutes, type MetadataCache } from './metadata.ts';
import { mintingRoutes, type MintingDeps } from './minting.ts';
import { outputRoutes } from './outputs.ts';
import { uploadRoutes } from './uploads.ts';
import type { Storage } from '../../storage/types.ts';
import type { ConceptExpander } from '../../generation/concept/index.ts';
import type { GeneratorConnector } from '../../generation/connectors/index.ts';
import type { StepPayload } from '../../generation/pipeline.ts';
import type { WorkQueue } from '../../queue/index.ts';
import { jobRoutes } from './jobs.ts';
import { workflowRoutes } from './workflows.ts';
import { developRoutes } from './develop.ts';
import { seedBuiltinWorkflows } from '../../db/workflows.ts';

export interface BackendDeps extends MintingDeps {
  config: Config;
  database: Database;
  /** Public host of metadata documents; contractParams point here. */
  metadataBaseUrl: string;
  /** Chain check for reset; absent when no chain is configured. */
  contractExists?: (chainId: number, address: string) => Promise<boolean>;
  /** Chain services: deploy-status verification and design-stage deploy (503 without). */
  chain?: ChainServices;
  /** File storage (uploads, thumbnails, GET /files/*); without it those routes are absent. */
  storage?: Storage;
  /** Language model for collection generation; default from configuration. */
  conceptExpander?: ConceptExpander;
  /** The indexer of this process (docs/indexer.md): live status, socket.io events, RPC for §4.4 reads. */
  indexer?: IndexerHost;
  /** Generation steps are queued here (docs/jobs.md); without it the generate routes answer 503. */
  jobQueue?: WorkQueue<StepPayload>;
  /** SSE job stream timing (tests shorten it). */
  sse?: { heartbeatMs?: number; pollMs?: number };
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
    ready: () => deps.database.ping(),
  });
  installErrorHandling(app, 'envelope');
  installAuth(app, { config: deps.config, db: deps.database.db, style: 'envelope' });
  collectionRoutes(app, deps);
  deployRoutes(app, deps);
  outputRoutes(app, deps);
  deckRoutes(app, deps);
  if (deps.storage) uploadRoutes(app, { ...deps, storage: deps.storage });
  collectionDesignRoutes(app, deps);
  identityRoutes(app, deps);
  await app.register(indexerRoutes, deps);
  feedRoutes(app, deps);
  custodialRoutes(app, deps);
  metadataRoutes(app, deps);
  mintingRoutes(app, deps);
  jobRoutes(app, deps);
  workflowRoutes(app, deps);
  developRoutes(app, deps);
  // The built-in workflows exist from the first start on (idempotent; edited ones are kept).
  await seedBuiltinWorkflows(deps.database.db);
  return app;
}

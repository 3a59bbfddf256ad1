/**
 * The content services on their real ports (the database, the configured storage, the job
 * queue, the connectors): built once per backend by src/http/backend/app.ts.
 */
import type { Db } from '../db/client.ts';
import type { ConnectorOptions } from '../generation/connector-config.ts';
import type { GeneratorConnector } from '../generation/connectors/index.ts';
import type { StepPayload } from '../generation/pipeline.ts';
import type { WorkQueue } from '../queue/index.ts';
import type { Storage } from '../storage/types.ts';
import { custodialServiceOn } from './wire-content.ts';
import { deckServiceOn } from './wire-content.ts';
import { developServiceOn } from './wire-content.ts';
import { feedServiceOn } from './wire-content.ts';
import { generationServiceOn, type GenerationSettings } from './wire-generation.ts';
import { identityServiceOn } from './wire-identity.ts';
import { jobServiceOn, type JobServiceSettings } from './wire-content.ts';
import { outputServiceOn } from './wire-content.ts';
import { uploadServiceOn } from './wire-content.ts';
import { workflowServiceOn } from './wire-content.ts';

/** What the content services read from the configuration: credits, the stuck-step age and the connectors' settings. */
export type ContentSettings = GenerationSettings & JobServiceSettings & ConnectorOptions;

export interface ContentDeps {
  db: Db;
  config: ContentSettings;
  /** Without it, uploads are unavailable and outputs get no thumbnails. */
  storage?: Storage;
  /** Without it, starting, retrying and developing generations are unavailable. */
  queue?: WorkQueue<StepPayload>;
  /** Connector choice for workflow tests; default from COMFYUI_URL / OPENAI_*. */
  connectorFor?: (workflowType: string, workflowData: unknown) => GeneratorConnector;
  log?: (msg: string, extra: Record<string, unknown>) => void;
  /** Base of the public token documents (a minted token's generated artwork records its document). */
  metadataBaseUrl?: string;
  /** A minted token's document changed (a deck's new cover): drops it from every replica's cache. */
  onTokenChanged?: (collectionId: string, tokenId: number) => void;
}

export function createContentServices(deps: ContentDeps) {
  const { db, config, storage, queue } = deps;
  const generation = queue
    ? generationServiceOn({
        db,
        config,
        queue,
        ...(storage ? { storage } : {}),
        ...(deps.metadataBaseUrl ? { metadataBaseUrl: deps.metadataBaseUrl } : {}),
      })
    : undefined;
  return {
    generation,
    jobs: jobServiceOn(db, config),
    outputs: outputServiceOn(db, storage, deps.log),
    decks: deckServiceOn(db, deps.onTokenChanged),
    develop: developServiceOn(db, generation),
    workflows: workflowServiceOn(db, config, {
      ...(storage ? { storage } : {}),
      ...(deps.connectorFor ? { connectorFor: deps.connectorFor } : {}),
    }),
    uploads: storage ? uploadServiceOn(db, storage) : undefined,
    custodial: custodialServiceOn(db),
    identity: identityServiceOn(db),
    feed: feedServiceOn(db),
  };
}

export type ContentServices = ReturnType<typeof createContentServices>;

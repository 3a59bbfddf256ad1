/**
 * The wiring of the content services (docs/content.md): each service's ports bound to src/db. The
 * services declare their ports; only wire* modules import db values (README "Architecture").
 */
import { type Db } from '../db/client.ts';
import {
  archiveDeck,
  createDeck,
  deckDetail,
  deckStats,
  getDeckWithOwners,
  listCollectionDecks,
  listUserDecks,
  lockDeck,
  publishDeck,
  updateDeck,
} from '../db/decks.ts';
import { type DeckService, createDeckService } from './decks.ts';
import { getCollection } from '../db/collections.ts';
import { createCustodialCollection } from '../db/custodial.ts';
import { type CustodialService, createCustodialService } from './custodial.ts';
import {
  collectionOutputStats,
  completeOutput,
  createOutput,
  failOutput,
  getOutputWithOwners,
  hideOutput,
  listCollectionOutputs,
  moveOutput,
  outputDetail,
  setThumbnail,
} from '../db/outputs.ts';
import { makeThumbnail } from '../storage/thumbnails.ts';
import { type Storage } from '../storage/types.ts';
import { type OutputPorts, type OutputService, createOutputService } from './outputs.ts';
import { createFlatFile, flatFilesByIds, setStreamIds } from '../db/flat-files.ts';
import { providerUserIdOf } from '../db/identity.ts';
import { FID_PROVIDER, type UploadService, createUploadService } from './uploads.ts';
import { type VideoWebhookService, createVideoWebhookService } from './video-webhook.ts';
import type { Config } from '../config.ts';
import { createWorkflow, getWorkflow, listWorkflows, requirementIndex, seedBuiltinWorkflows } from '../db/workflows.ts';
import { connectorConfigOf, type ConnectorOptions } from '../generation/connector-config.ts';
import { createConnector } from '../generation/connectors/index.ts';
import { type WorkflowPorts, type WorkflowService, createWorkflowService } from './workflows.ts';
import { listGlobalCollections, setCollectionGlobal } from '../db/global-collections.ts';
import { type GenerationService } from './generation.ts';
import { type DevelopService, createDevelopService } from './develop.ts';
import {
  deckCounts,
  deckOutputsPage,
  featuredCollection,
  featuredDecks,
  feedCreators,
  feedDeck,
  newestDeckOutputs,
  trendingCollections,
} from '../db/feed.ts';
import { type FeedService, createFeedService } from './feed.ts';
import { getBalance } from '../db/credits.ts';
import { findJob, historyAfter, listRetryBackups, listSteps } from '../db/jobs.ts';
import { streamSnapshot } from '../db/job-stream.ts';
import { applyJobEvent } from '../generation/job-store.ts';
import { type JobService, createJobService } from './jobs.ts';

const ignore = () => undefined;

export function deckServiceOn(db: Db, tokenChanged?: (collectionId: string, tokenId: number) => void): DeckService {
  return createDeckService({
    ...(tokenChanged ? { tokenChanged } : {}),
    get: (id) => getDeckWithOwners(db, id),
    detail: (id) => deckDetail(db, id),
    create: (input) => createDeck(db, input),
    update: (id, patch) => updateDeck(db, id, patch),
    archive: (id) => archiveDeck(db, id),
    publish: (id) => publishDeck(db, id),
    lock: (id) => lockDeck(db, id),
    stats: (id) => deckStats(db, id),
    listForCollection: (collectionId, filter) => listCollectionDecks(db, collectionId, filter),
    listForUser: (userId, filter) => listUserDecks(db, userId, filter),
  });
}

export function custodialServiceOn(db: Db): CustodialService {
  return createCustodialService({ create: (c) => createCustodialCollection(db, c) });
}

export function outputServiceOn(db: Db, storage?: Storage, log?: OutputPorts['log']): OutputService {
  return createOutputService({
    outputs: {
      get: (id) => getOutputWithOwners(db, id),
      detail: (id) => outputDetail(db, id),
      create: (input) => createOutput(db, input),
      complete: (id, c) => completeOutput(db, id, c),
      fail: (id, message) => failOutput(db, id, message),
      hide: (id) => hideOutput(db, id),
      move: (id, deckId) => moveOutput(db, id, deckId),
      setThumbnail: (id, url) => setThumbnail(db, id, url),
      list: (collectionId, filter) => listCollectionOutputs(db, collectionId, filter),
      stats: (collectionId) => collectionOutputStats(db, collectionId),
    },
    decks: { get: (id) => getDeckWithOwners(db, id) },
    ...(storage ? { thumbnails: (outputId: string, url: string, mime: string | null) => makeThumbnail(storage, outputId, url, mime) } : {}),
    ...(log ? { log } : {}),
  });
}

export function uploadServiceOn(db: Db, storage: Storage): UploadService {
  return createUploadService({
    storage,
    flatFiles: { create: (input) => createFlatFile(db, input) },
    fidOf: (userId) => providerUserIdOf(db, userId, FID_PROVIDER),
  });
}

export function videoWebhookServiceOn(db: Db, settings: { secret?: string; toleranceSeconds: number }): VideoWebhookService {
  return createVideoWebhookService({ setStreamIds: (target, ids) => setStreamIds(db, target, ids), ...settings });
}

export function workflowServiceOn(
  db: Db,
  config: ConnectorOptions,
  opts: { storage?: Storage; connectorFor?: WorkflowPorts['connectorFor'] } = {},
): WorkflowService {
  const { storage } = opts;
  return createWorkflowService({
    list: (f) => listWorkflows(db, f),
    get: (idOrName) => getWorkflow(db, idOrName),
    create: (w) => createWorkflow(db, w),
    requirements: (field) => requirementIndex(db, field),
    seedBuiltins: () => seedBuiltinWorkflows(db),
    connectorFor: opts.connectorFor ?? ((type, data) => createConnector(type, connectorConfigOf(config), { workflowData: data })),
    ...(storage ? { store: (key: string, bytes: Buffer, mime: string) => storage.put(key, bytes, mime) } : {}),
  });
}

export function developServiceOn(db: Db, generation?: GenerationService): DevelopService {
  return createDevelopService({
    outputs: { get: (id) => getOutputWithOwners(db, id) },
    collections: {
      get: (id) => getCollection(db, id),
      globals: (inputType) => listGlobalCollections(db, inputType),
      setGlobal: (id, mark) => setCollectionGlobal(db, id, mark),
    },
    ...(generation ? { generation } : {}),
  });
}

export function feedServiceOn(db: Db): FeedService {
  return createFeedService({
    trending: (q) => trendingCollections(db, q),
    featured: () => featuredCollection(db),
    featuredDecks: (ids) => featuredDecks(db, ids),
    deckCounts: (ids) => deckCounts(db, ids),
    newestDeckOutputs: (ids, perDeck) => newestDeckOutputs(db, ids, perDeck),
    creators: (ids) => feedCreators(db, ids),
    deck: (id) => feedDeck(db, id),
    deckOutputs: (id, q) => deckOutputsPage(db, id, q),
  });
}

/** What the job service reads from the configuration: the credits a generation costs and the first grant. */
export type JobServiceSettings = Pick<Config, 'CREDITS_INITIAL_GRANT' | 'CREDITS_PER_GENERATION'>;

export function jobServiceOn(db: Db, config: JobServiceSettings): JobService {
  return createJobService({
    jobs: {
      find: (id) => findJob(db, id),
      historyAfter: (jobId, afterId, limit) => historyAfter(db, jobId, afterId, limit),
      streamSnapshot: (cursors, limit) => streamSnapshot(db, cursors, limit),
      steps: (jobId) => listSteps(db, jobId),
      retryBackups: (jobId) => listRetryBackups(db, jobId),
    },
    flatFiles: { byIds: (ids) => flatFilesByIds(db, ids) },
    apply: (jobId, event) => applyJobEvent(db, jobId, event),
    outputs: {
      // Only while it is open: a completed, failed or hidden output answers 409, which changes nothing here.
      complete: (id, url) => completeOutput(db, id, { url }).then(ignore, ignore),
      fail: (id, message) => failOutput(db, id, message).then(ignore, ignore),
    },
    credits: {
      balance: (userId) => getBalance(db, userId, config.CREDITS_INITIAL_GRANT),
      costPerGeneration: config.CREDITS_PER_GENERATION,
    },
  });
}

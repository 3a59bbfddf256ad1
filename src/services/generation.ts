/**
 * Generation use cases (docs/api/content.md §4.3, docs/api/nft.md §4.2.1, docs/jobs.md): start a
 * generation (generate routes, generations route, develop, minting, samples) and retry a job.
 *
 * Start: authorize, build the job's data (pure, src/generation/pipeline.ts) from the collection and
 * workflow (cached: generation-catalog.ts), then one statement checks that both are current,
 * debits a charged user and writes the deck, output, job, history and step 0; queue step 0 and
 * return at once; a worker does the rest. Invariants: nothing is debited unless the rows are
 * written; a failure to queue fails the job and its output (503) and refunds the debit; a token id
 * gets one deck per collection (409).
 */
import { randomInt, randomUUID } from 'node:crypto';
import { InsufficientCredits } from '../domain/credits.ts';
import type { GenerationRows, GenerationRowsResult } from '../db/generation-rows.ts';
import type { JobRow } from '../db/jobs.ts';
import { DEFAULT_WORKFLOW } from '../domain/default-workflow.ts';
import { AppError, conflict, invalid, notFound } from '../domain/errors.ts';
import { mintTokenMetadata, type Attribute } from '../domain/metadata.ts';
import type { FairSeed } from '../domain/fair-seed.ts';
import { isExact, type DealtPosition } from '../domain/exact-deck.ts';
import type { GenerationData } from '../domain/generation-data.ts';
import type { Chooser } from '../domain/minter-choices.ts';
import { authorize, can, ownerFor, type Caller } from '../domain/policy.ts';
import { planRetry, retryRefusal } from '../generation/job-events.ts';
import {
  buildJobData,
  buildStepPayload,
  hasStepRows,
  inputMetadataOf,
  MAX_JOB_RETRIES,
  queueJobId,
  queueOptions,
  RETRY_LIMIT_MESSAGE,
  type JobWorkflow,
  type MintState,
  type StepPayload,
} from '../generation/pipeline.ts';
import { DEFAULT_PRIORITY, type WorkQueue } from '../queue/index.ts';
import { currentTraceCarrier, withSpan } from '../telemetry.ts';
import { ownership } from './ownership.ts';
import { tokenDeckName } from '../domain/deck-name.ts';

/** Why generation routes answer 503 on a backend without a job queue. */
export const NO_QUEUE = 'generation is not available: this backend has no job queue configured';

/** The job type of a plain generation (the generate routes' default). */
export const DEFAULT_JOB_TYPE = 'collection_generation';

/** The workflow and job type a collection's `component` names, when it names them. */
export function collectionComponent(component: unknown): { workflow?: string; jobType?: string } {
  if (!component || typeof component !== 'object') return {};
  const c = component as { workflow?: unknown; job_type?: unknown };
  return {
    ...(typeof c.workflow === 'string' && c.workflow ? { workflow: c.workflow } : {}),
    ...(typeof c.job_type === 'string' && c.job_type ? { jobType: c.job_type } : {}),
  };
}

/** What one generation asks for (the caller decides the owner and the charge). */
export interface GenerationRequest {
  collectionId: string;
  variables: Record<string, unknown>;
  deckId?: string;
  /** The mint path only (`token.set_mint_state`). */
  mintState?: MintState;
  source: string;
  jobType: string;
  workflowId?: string;
  priority?: number;
  socialPfp?: string | null;
  /** Samples: a required customizable variable may be left out (domain/variables.ts ResolveOptions). */
  requiredMayBeOmitted?: boolean;
  socialOrg?: string;
  socialIdentifier?: string;
  /** Fixed seed (tests, reproductions); random otherwise. `variables.seed` wins over it. */
  seed?: number;
  /** A minted token's fair seed (docs/fairness.md): its word is the seed; recorded in the job data. */
  fairSeed?: FairSeed;
  /** Who the supplied variables are recorded as chosen by (the token's receipt); default `owner`. */
  chooser?: Chooser;
  /** Exact counts: where the supplied variables were dealt from (docs/fairness.md "Exact counts"). */
  dealt?: DealtPosition;
  /** Develop: the output this one is made from. */
  parentOutputId?: string;
  /** Develop: the output (and its deck) belong to the source's collection; default collectionId. */
  outputCollectionId?: string;
}

export interface StartGenerationResult {
  jobId: string;
  outputId: string;
  deckId: string;
}

export interface RetryResult {
  jobId: string;
  retryAttempt: number;
  message: string;
}

export interface GenerationPorts {
  /**
   * What generations are built from, each with the row version it was read at (possibly a cached
   * copy: the insert refuses a stale one, and the service asks again with `fresh`).
   */
  collections: {
    get(
      id: string,
      fresh?: boolean,
    ): Promise<{
      id: string;
      title: string;
      description?: string;
      cover_image_url?: string | null;
      data: unknown;
      component?: unknown;
      version: string;
    }>;
  };
  workflows: { find(idOrName: string, fresh?: boolean): Promise<(JobWorkflow & { version: string }) | null> };
  decks: {
    get(id: string): Promise<{
      id: string;
      collection_id: string;
      user_id: string | null;
      status: string;
      collection_owner_id: string | null;
      /** A minted token's deck (null or absent: not a token). */
      token_id?: number | null;
      /** The collection has exact counts (absent: it has not). */
      collection_exact?: boolean;
    }>;
  };
  /** The debit is part of `rows.insert`; a refund gives it back when the job could not start. */
  credits: { refund(userId: string, amount: number): Promise<void> };
  socialLinks: { upsert(org: string, identifier: string): Promise<{ id: string }> };
  rows: { insert(rows: GenerationRows): Promise<GenerationRowsResult> };
  queue: Pick<WorkQueue<StepPayload>, 'add'>;
  jobs: {
    find(id: string): Promise<JobRow | null>;
    /** The job and its open output fail (step 0 could not be queued). */
    failSubmission(jobId: string, outputId: string, message: string): Promise<void>;
    /** The job's history entries (a one-step job's replaced attempt records its step's times from them). */
    history(jobId: string): Promise<Array<{ data: unknown; created_at: Date }>>;
    resetForRetry: (statement: ReturnType<typeof planRetry>) => Promise<JobRow | null>;
    submitStep(job: JobRow, stepOrder: number, retryAttempt: number): Promise<void>;
  };
  settings: { creditsPerGeneration: number; creditsInitialGrant: number; stuckAfterMs: number; metadataBaseUrl?: string };
  /** Randomness and time, replaceable in tests. */
  uuid?: () => string;
  seed?: () => number;
  now?: () => Date;
}

/** Submits tried when the collection or workflow keeps changing under a submit (each re-reads them). */
const SUBMIT_ATTEMPTS = 3;

export function createGenerationService(ports: GenerationPorts) {
  const uuid = ports.uuid ?? randomUUID;
  const seed = ports.seed ?? (() => randomInt(0, 2 ** 32 - 1));
  const now = ports.now ?? (() => new Date());

  async function resolveWorkflow(workflowId: string | undefined, fresh: boolean): Promise<JobWorkflow & { version: string }> {
    const row = await ports.workflows.find(workflowId ?? DEFAULT_WORKFLOW, fresh);
    if (row) return row;
    if (!workflowId)
      throw new AppError(
        'unavailable',
        `the default workflow "${DEFAULT_WORKFLOW}" is missing: restart the backend to create the built-in workflows`,
      );
    throw invalid(`body.workflow_id: workflow ${workflowId} does not exist`);
  }

  /**
   * Starts one generation for `caller` (the output, deck and job are the caller's; the operator's
   * are the user's it names, or the platform's). Errors: 404 collection or deck, 400 bad
   * variables / workflow / deck, COLLECTION_CORRUPTED (400), 402 credits, 403, 409 locked deck
   * or taken token id, 503 queue.
   */
  async function start(caller: Caller, input: GenerationRequest): Promise<StartGenerationResult> {
    authorize(caller, 'collection.generate');
    if (input.mintState) authorize(caller, 'token.set_mint_state');
    return withSpan('job.submit', { 'job.workflow_id': input.workflowId ?? DEFAULT_WORKFLOW, 'job.type': input.jobType }, async (span) => {
      const userId = ownerFor(caller);
      const jobId = uuid();
      const outputId = uuid();
      // A new deck's id is chosen here so that the job's data can name it.
      const deckId = input.deckId ?? uuid();
      const jobSeed = input.fairSeed ? input.fairSeed.seed_word : (input.seed ?? seed());
      const cost = ports.settings.creditsPerGeneration;
      const charged = caller.kind === 'user' && cost > 0 ? caller.userId : null;
      // The social link (custodial generations) is found or created first; the rest is one statement.
      let custodiedFor: string | null | undefined;
      for (let attempt = 1; ; attempt++) {
        // Cached copies first; after a stale one, read again (generation-catalog.ts).
        const fresh = attempt > 1;
        const collection = await ports.collections.get(input.collectionId, fresh);
        if (input.mintState && !input.dealt && isExact(collection.data as GenerationData | null)) {
          throw conflict(
            `body.mint_state: collection ${collection.id} has exact counts: a token's artwork is dealt at the reveal (docs/fairness.md "Exact counts")`,
            { code: 'EXACT_COUNTS' },
          );
        }
        // A collection may name its workflow and job type (custodial templates: flexible_prompt and
        // the template's job_type; built-in global collections: their renderer). A request's own wins.
        const own = collectionComponent(collection.component);
        const workflow = await resolveWorkflow(input.workflowId ?? own.workflow, fresh);
        const jobType = input.jobType === DEFAULT_JOB_TYPE && own.jobType ? own.jobType : input.jobType;
        span.setAttributes({ 'job.workflow_id': workflow.id, 'job.type': jobType });
        const data = buildJobData({
          collection,
          workflow: {
            id: workflow.id,
            name: workflow.name,
            type: workflow.type,
            models: workflow.models,
            custom_nodes: workflow.custom_nodes,
          },
          requestedVariables: input.variables ?? {},
          seed: jobSeed,
          socialPfp: input.socialPfp ?? null,
          ...(input.requiredMayBeOmitted ? { requiredMayBeOmitted: true } : {}),
          deckId,
          outputId,
          source: input.source,
          ...(input.mintState ? { mintState: input.mintState } : {}),
          ...(input.fairSeed ? { fairSeed: input.fairSeed } : {}),
          chooser: input.chooser ?? 'owner',
          ...(input.dealt ? { dealt: input.dealt } : {}),
        });

        const outputCollectionId = input.outputCollectionId ?? collection.id;
        if (input.deckId) {
          const deck = await ports.decks.get(input.deckId);
          if (deck.collection_id !== outputCollectionId) throw invalid(`body.deck_id: deck ${deck.id} belongs to another collection`);
          authorize(caller, 'deck.add_output', ownership(deck));
          if (deck.status === 'locked') throw conflict(`deck ${deck.id} is locked: no new outputs can be added`);
          // An exact token's only artwork is the one the reveal deals it (services/exact-reveal.ts).
          if (deck.collection_exact && deck.token_id != null && !input.dealt) {
            throw conflict(
              `body.deck_id: deck ${deck.id} is token ${deck.token_id} of a collection with exact counts, whose artwork is dealt at the reveal (docs/fairness.md "Exact counts")`,
              { code: 'EXACT_COUNTS' },
            );
          }
        }
        if (custodiedFor === undefined)
          custodiedFor =
            input.socialOrg && input.socialIdentifier ? (await ports.socialLinks.upsert(input.socialOrg, input.socialIdentifier)).id : null;

        const priority = input.priority ?? DEFAULT_PRIORITY;
        // The job.submit span's W3C context rides in the queued step (job.process continues it).
        const trace = currentTraceCarrier();
        const step0 = { ...buildStepPayload({ id: jobId, output_id: outputId, data, priority }, 0, 0), ...(trace ? { trace } : {}) };
        const queueId = queueJobId(jobId, 0, 0);
        const inserted = await ports.rows.insert({
          jobId,
          outputId,
          deckId: input.deckId ?? null,
          newDeck: {
            id: deckId,
            name: input.mintState ? tokenDeckName(collection.title, input.mintState.token_id) : collection.title,
            userId,
            custodiedFor,
          },
          ...(input.mintState ? { mintState: input.mintState } : {}),
          outputCollectionId,
          built: {
            collection: { id: collection.id, version: collection.version },
            workflow: { id: workflow.id, version: workflow.version },
          },
          ...(charged ? { charge: { userId: charged, amount: cost, initialGrant: ports.settings.creditsInitialGrant } } : {}),
          output: {
            userId,
            source: input.source,
            inputMetadata: inputMetadataOf(data),
            custodiedFor,
            parentOutputId: input.parentOutputId ?? null,
            // A minted token's artwork carries its ERC-721 document from the start.
            tokenMetadata: input.mintState
              ? mintTokenMetadata({
                  collection: {
                    id: collection.id,
                    title: collection.title,
                    description: collection.description ?? '',
                    cover_image_url: collection.cover_image_url ?? null,
                  },
                  tokenId: input.mintState.token_id,
                  metadataBaseUrl: ports.settings.metadataBaseUrl ?? '',
                  attributes: data.traits as Attribute[],
                })
              : null,
          },
          job: {
            name: collection.title,
            description: `${jobType} of collection ${collection.id}`,
            jobType,
            priority,
            workflowId: workflow.id,
            data,
            userId,
            collectionId: collection.id,
          },
          ...(hasStepRows(step0.totalSteps)
            ? { step0: { stepName: step0.payload.nodeName, stepType: step0.type, queueJobId: queueId, input: step0 } }
            : {}),
        });
        // Nothing was written (and nothing debited) in these cases.
        if ('stale' in inserted) {
          if (attempt < SUBMIT_ATTEMPTS) continue;
          throw conflict(`collection ${input.collectionId} or its workflow kept changing during the submission: try again`);
        }
        if ('insufficient' in inserted) throw new InsufficientCredits(cost, inserted.insufficient.balance);
        if ('refused' in inserted) {
          // A deck locked between the checks and the debit: the debit is given back.
          if (charged && inserted.debited) await ports.credits.refund(charged, cost).catch(() => undefined);
          if (inserted.refused === 'token_taken')
            throw conflict(`body.mint_state.token_id: token ${input.mintState?.token_id} of this collection already has a deck`, {
              code: 'TOKEN_HAS_DECK',
            });
          throw conflict(`deck ${input.deckId} is locked: no new outputs can be added`);
        }
        try {
          await ports.queue.add(queueId, step0, queueOptions(step0));
        } catch (err) {
          const message = `could not submit the job to the queue: ${err instanceof Error ? err.message : String(err)}`;
          await ports.jobs.failSubmission(jobId, outputId, message);
          if (charged) await ports.credits.refund(charged, cost).catch(() => undefined);
          throw new AppError('unavailable', message);
        }
        span.setAttribute('job.id', jobId);
        return { jobId, outputId, deckId: inserted.deckId };
      }
    });
  }

  /**
   * POST /api/jobs/:id/retry: same job id, retry_count + 1, the original data backed up, the
   * generation re-run from its first step under new queue ids. Jobs the caller may not see are
   * 404; refusals are 409 (job-events.ts `retryRefusal`).
   */
  async function retry(caller: Caller, jobId: string): Promise<RetryResult> {
    const current = await ports.jobs.find(jobId);
    if (!current || !can(caller, 'job.read', { ownerId: current.user_id })) throw notFound(`job ${jobId}`);
    authorize(caller, 'job.retry', { ownerId: current.user_id });
    const refusal = retryRefusal(current, now(), ports.settings.stuckAfterMs);
    if (refusal) throw refusal;
    const job = await ports.jobs.resetForRetry(planRetry(current, jobId, await ports.jobs.history(jobId)));
    if (!job) {
      const again = await ports.jobs.find(jobId);
      if (again && again.retry_count >= MAX_JOB_RETRIES)
        throw conflict(RETRY_LIMIT_MESSAGE, { code: 'MAX_RETRIES_REACHED', retry_count: again.retry_count });
      throw conflict(`job ${jobId} changed while retrying: try again`);
    }
    await ports.jobs.submitStep(job, 0, job.retry_count);
    return { jobId, retryAttempt: job.retry_count, message: `Job queued for retry ${job.retry_count} of ${MAX_JOB_RETRIES}` };
  }

  return { start, retry };
}

export type GenerationService = ReturnType<typeof createGenerationService>;

/** The input of `startGeneration`: a request plus who it is for (kept for the minting and sample paths). */
export interface StartGenerationInput extends GenerationRequest {
  /** The user the output, deck and job belong to (null: the platform). */
  userId: string | null;
  /** Trusted callers (the service key, the mint and sample paths): not charged, any deck, mint state. */
  isService?: boolean;
}

/**
 * The generation pipeline shared by every entry point (POST /api/collections/:id/generate, its
 * legacy alias, POST /collections/:id/generations, minting and samples): validate the collection
 * data, resolve variables, charge credits, create the deck, the pending output and the job row,
 * and submit the first step to the queue (content-service.md §4.3). Steps run in order: the
 * worker that completes step k submits step k+1 (docs/jobs.md).
 */
import { randomInt, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { ZodError } from 'zod';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { getCollection } from '../db/collections.ts';
import { addCredits, debitCredits } from '../db/credits.ts';
import { assertCanModifyDeck, getDeck } from '../db/decks.ts';
import { ensureStep, getJob, type JobRow } from '../db/jobs.ts';
import { failOutput } from '../db/outputs.ts';
import { upsertSocialLink } from '../db/social-links.ts';
import { jobRetryBackups, jobs, outputs, jobHistory } from '../db/schema/index.ts';
import { DEFAULT_WORKFLOW, findWorkflow, type WorkflowRow } from '../db/workflows.ts';
import { AppError, conflict, invalid } from '../domain/errors.ts';
import { normalizeGenerationData, type GenerationData, type Step } from '../domain/generation-data.ts';
import { resolveSteps, resolveVariables, VariableError, type ReferenceImage, type Trait } from '../domain/variables.ts';
import { DEFAULT_PRIORITY, type WorkQueue } from '../queue/index.ts';
import type { Storage } from '../storage/types.ts';
import { withSpan } from '../telemetry.ts';
import { applyJobEvent } from './job-events.ts';

export const MAX_JOB_RETRIES = 3;
export const RETRY_LIMIT_MESSAGE = `Job has reached the maximum retry limit of ${MAX_JOB_RETRIES}`;
/** Queue tries per step (generator failures that may pass: timeouts, 5xx). */
export const STEP_ATTEMPTS = 3;

/** What is queued for one step: JSON only (BullMQ stores it). */
export interface StepPayload {
  jobId: string;
  outputId: string;
  stepOrder: number;
  totalSteps: number;
  retryAttempt: number;
  /** Queue tries of this step; the last failed try fails the job. */
  attempts: number;
  /** The workflow type: chooses the connector (and is job.service_required). */
  type: string;
  payload: {
    nodeName: string;
    prompt: string;
    seed: number;
    values: Record<string, string>;
    referenceImages: ReferenceImage[];
    userImage: string | null;
    width?: number;
    height?: number;
  };
  requirements: { models: string[]; custom_nodes: string[] };
  workflow_context: { workflow_id: string; workflow_name: string; workflow_priority: number; total_steps: number; current_step: number };
}

/** What the pipeline needs; BackendDeps and the worker runtime both provide it. */
export interface GenerationContext {
  db: Db;
  config: Config;
  queue: WorkQueue<StepPayload>;
  storage?: Storage;
}

export const queueJobId = (jobId: string, stepOrder: number, retryAttempt: number) => `${jobId}-s${stepOrder}-r${retryAttempt}`;

export interface MintState {
  token_id: number;
  tx_hash?: string;
  recipient?: string;
  metadata_uri?: string;
}

export interface StartGenerationInput {
  collectionId: string;
  variables: Record<string, unknown>;
  /** The user the output, deck and job belong to (null: a service call without a user). */
  userId: string | null;
  /** Service-key calls are not charged and may use any deck. */
  isService?: boolean;
  deckId?: string;
  mintState?: MintState;
  source: string;
  jobType: string;
  workflowId?: string;
  priority?: number;
  socialPfp?: string | null;
  socialOrg?: string;
  socialIdentifier?: string;
  /** Fixed seed (tests, reproductions); random otherwise. `variables.seed` wins over it. */
  seed?: number;
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

/** The collection data, or COLLECTION_CORRUPTED (400) with message, userMessage and details. */
export function loadGenerationData(collectionId: string, raw: unknown): GenerationData {
  try {
    return normalizeGenerationData(raw);
  } catch (err) {
    const issues = err instanceof ZodError ? err.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message })) : [];
    throw corrupted(
      collectionId,
      issues.length > 0
        ? `collection data is invalid at ${issues[0]!.path || 'data'}: ${issues[0]!.message}`
        : 'collection data is invalid',
      { issues },
    );
  }
}

export function corrupted(collectionId: string, message: string, details: Record<string, unknown>): AppError {
  return new AppError('invalid', 'COLLECTION_CORRUPTED', {
    code: 'COLLECTION_CORRUPTED',
    message,
    userMessage: 'This collection cannot be generated because its configuration is damaged. Ask the creator to review and save it again.',
    details: { collectionId, ...details },
  });
}

/** A collection without steps still generates: one image from its title and values. */
function stepsOf(data: GenerationData, title: string): GenerationData {
  if (data.steps.length > 0) return data;
  const intent = [
    title,
    ...data.variables.filter((v) => !v.name.startsWith('ref_image_') && v.name !== 'social_pfp').map((v) => `$${v.name}`),
  ].join(', ');
  return {
    ...data,
    steps: [{ id: 0, nodeName: 'image', nodePayload: { intent, user_image: null, optional_ref_image: null, seed: null } }],
  };
}

export async function resolveWorkflow(db: Db, workflowId: string | undefined, field = 'body.workflow_id'): Promise<WorkflowRow> {
  const row = await findWorkflow(db, workflowId ?? DEFAULT_WORKFLOW);
  if (row) return row;
  if (!workflowId)
    throw new AppError(
      'unavailable',
      `the default workflow "${DEFAULT_WORKFLOW}" is missing: restart the backend to create the built-in workflows`,
    );
  throw invalid(`${field}: workflow ${workflowId} does not exist`);
}

function variableFailure(collectionId: string, err: VariableError): AppError {
  // Mistakes in the request name the body field; problems in the stored data are corruption.
  if (err.code === 'NO_OPTIONS' || err.code === 'UNKNOWN_REFERENCE') {
    return corrupted(collectionId, err.message, { field: err.field, code: err.code });
  }
  return invalid(`body.${err.field}: ${err.message}`, { code: err.code });
}

/** What a step payload is built from: the job row, or the values it was just inserted with. */
export type JobForStep = Pick<JobRow, 'id' | 'output_id' | 'data' | 'priority'>;

export function buildStepPayload(job: JobForStep, stepOrder: number, retryAttempt: number): StepPayload {
  const d = job.data as JobData;
  const step = d.steps[stepOrder]!;
  return {
    jobId: job.id,
    outputId: job.output_id!,
    stepOrder,
    totalSteps: d.steps.length,
    retryAttempt,
    attempts: STEP_ATTEMPTS,
    type: d.workflow.type,
    payload: {
      nodeName: step.nodeName,
      prompt: step.nodePayload.intent,
      seed: step.nodePayload.seed ?? d.seed,
      values: d.variables,
      referenceImages: d.referenceImages,
      userImage: step.nodePayload.user_image,
      ...(typeof step.nodePayload.width === 'number' ? { width: step.nodePayload.width } : {}),
      ...(typeof step.nodePayload.height === 'number' ? { height: step.nodePayload.height } : {}),
    },
    requirements: { models: d.workflow.models, custom_nodes: d.workflow.custom_nodes },
    workflow_context: {
      workflow_id: d.workflow.id,
      workflow_name: d.workflow.name,
      workflow_priority: job.priority,
      total_steps: d.steps.length,
      current_step: stepOrder,
    },
  };
}

/** The job's `data` (spec fields collectionId, variables, outputs, plus what the worker needs). */
export interface JobData {
  collectionId: string;
  variables: Record<string, string>;
  requestedVariables: Record<string, unknown>;
  traits: Trait[];
  seed: number;
  steps: Step[];
  referenceImages: ReferenceImage[];
  workflow: { id: string; name: string; type: string; models: string[]; custom_nodes: string[] };
  deckId: string;
  outputId: string;
  source: string;
  mintState?: MintState;
  outputs?: unknown;
}

/** Creates the step row and queues it; both idempotent (same queue id → one queue job). */
export async function submitStep(ctx: GenerationContext, job: JobForStep, stepOrder: number, retryAttempt: number): Promise<void> {
  const payload = buildStepPayload(job, stepOrder, retryAttempt);
  const id = queueJobId(job.id, stepOrder, retryAttempt);
  await ensureStep(ctx.db, {
    jobId: job.id,
    stepName: payload.payload.nodeName,
    stepType: payload.type,
    stepOrder,
    retryAttempt,
    queueJobId: id,
    input: payload as unknown as Record<string, unknown>,
  });
  await enqueueStep(ctx, id, payload);
}

/** Queues a step's payload under its queue id (priority and tries from the payload). */
function enqueueStep(ctx: GenerationContext, id: string, payload: StepPayload): Promise<void> {
  return ctx.queue.add(id, payload, { priority: payload.workflow_context.workflow_priority, attempts: payload.attempts, backoffMs: 1000 });
}

/** A unique-index violation on a deck's (collection, token id): that token already has a deck. */
function isTokenConflict(err: unknown): boolean {
  const e = err as { message?: string; cause?: unknown; constraint?: string };
  return /decks_collection_token|duplicate key/i.test(String(e?.message) + String(e?.cause ?? '') + String(e?.constraint ?? ''));
}

interface GenerationRows {
  jobId: string;
  outputId: string;
  /** Existing deck (the output joins it unless it is locked) or null for a new deck. */
  deckId: string | null;
  newDeck: { id: string; name: string; userId: string | null; custodiedFor: string | null };
  mintState?: MintState;
  outputCollectionId: string;
  output: {
    userId: string | null;
    source: string;
    inputMetadata: Record<string, unknown>;
    custodiedFor: string | null;
    parentOutputId: string | null;
  };
  job: {
    name: string;
    description: string;
    jobType: string;
    priority: number;
    workflowId: string;
    data: JobData;
    userId: string | null;
    collectionId: string;
  };
  step0: StepPayload;
  queueId: string;
}

/**
 * The deck (new, or +1 on the given one), the pending output, the job, its "job created" history
 * entry and step 0's row, in one statement: one round trip, and all of it or none of it (the deck
 * update matching nothing, because the deck was locked meanwhile, inserts nothing). Returns the
 * deck id, or null when the given deck refused the output.
 */
async function insertGenerationRows(db: Db, r: GenerationRows): Promise<string | null> {
  const m = r.mintState;
  const mint = m
    ? sql`${m.token_id}::bigint, ${m.tx_hash ?? null}::varchar, ${m.recipient ?? null}::varchar, 'minted', now(), ${m.metadata_uri ?? null}::text`
    : sql`null::bigint, null::varchar, null::varchar, null::varchar, null::timestamptz, null::text`;
  const deck = r.deckId
    ? sql`update decks set output_count = output_count + 1, updated_at = now()
          ${m ? sql`, token_id = ${m.token_id}, mint_tx_hash = ${m.tx_hash ?? null}, mint_recipient = ${m.recipient ?? null}, mint_status = 'minted', minted_at = now(), metadata_uri = ${m.metadata_uri ?? null}` : sql``}
          where id = ${r.deckId} and collection_id = ${r.outputCollectionId} and status <> 'locked'
          returning id`
    : sql`insert into decks (id, collection_id, user_id, name, description, output_count, is_custodial, custodied_for,
            token_id, mint_tx_hash, mint_recipient, mint_status, minted_at, metadata_uri)
          values (${r.newDeck.id}::uuid, ${r.outputCollectionId}, ${r.newDeck.userId}, ${r.newDeck.name.slice(0, 200)}, '', 1, ${r.newDeck.custodiedFor !== null},
            ${r.newDeck.custodiedFor}::uuid, ${mint})
          returning id`;
  const o = r.output;
  const j = r.job;
  const result = (await db.execute(sql`
    with d as (${deck}),
    o as (
      insert into outputs (id, collection_id, deck_id, job_id, user_id, source, input_metadata, is_custodial, custodied_for, parent_output_id)
      select ${r.outputId}::uuid, ${r.outputCollectionId}::uuid, d.id, ${r.jobId}, ${o.userId}, ${o.source}, ${JSON.stringify(o.inputMetadata)}::jsonb,
        ${o.custodiedFor !== null}::boolean, ${o.custodiedFor}::uuid, ${o.parentOutputId}::uuid
      from d
      returning id),
    j as (
      insert into jobs (id, name, description, status, progress, job_type, priority, workflow_id, data, user_id, collection_id, output_id)
      select ${r.jobId}, ${j.name.slice(0, 200)}, ${j.description}, 'pending', 0, ${j.jobType}, ${j.priority}::int, ${j.workflowId},
        ${JSON.stringify(j.data)}::jsonb, ${j.userId}, ${j.collectionId}::uuid, o.id
      from o
      returning id),
    h as (insert into job_history (job_id, status, message, progress) select id, 'pending', 'job created', 0 from j),
    s as (
      insert into job_steps (job_id, step_name, step_type, step_order, retry_attempt, status, input_data, queue_job_id)
      select id, ${r.step0.payload.nodeName.slice(0, 100)}, ${r.step0.type.slice(0, 50)}, 0, 0, 'pending', ${JSON.stringify(r.step0)}::jsonb, ${r.queueId}
      from j)
    select d.id as deck_id from d join j on true`)) as unknown as { rows: Array<{ deck_id: string }> };
  return result.rows[0]?.deck_id ?? null;
}

/**
 * Starts one generation: returns at once with the job, output and deck ids; a worker does the
 * rest. Errors: 404 collection, 400 bad variables / workflow / deck, COLLECTION_CORRUPTED (400),
 * 402 insufficient credits, 409 locked deck or taken token id.
 */
export async function startGeneration(ctx: GenerationContext, input: StartGenerationInput): Promise<StartGenerationResult> {
  return withSpan('job.submit', { 'job.workflow_id': input.workflowId ?? DEFAULT_WORKFLOW, 'job.type': input.jobType }, async (span) => {
    const { db, config } = ctx;
    const collection = await getCollection(db, input.collectionId);
    const data = stepsOf(loadGenerationData(collection.id, collection.data), collection.title);
    const workflow = await resolveWorkflow(db, input.workflowId);
    span.setAttribute('job.workflow_id', workflow.id);

    let resolved;
    let steps;
    try {
      resolved = resolveVariables(data, input.variables ?? {}, {
        seed: input.seed ?? randomInt(0, 2 ** 32 - 1),
        socialPfp: input.socialPfp ?? null,
      });
      steps = resolveSteps(data, resolved.values, resolved.seed);
    } catch (err) {
      if (err instanceof VariableError) throw variableFailure(collection.id, err);
      throw err;
    }

    const outputCollectionId = input.outputCollectionId ?? collection.id;
    if (input.deckId) {
      const deck = await getDeck(db, input.deckId);
      if (deck.collection_id !== outputCollectionId) throw invalid(`body.deck_id: deck ${deck.id} belongs to another collection`);
      await assertCanModifyDeck(db, deck, { userId: input.userId, isService: !!input.isService });
      if (deck.status === 'locked') throw conflict(`deck ${deck.id} is locked: no new outputs can be added`);
    }

    const cost = config.CREDITS_PER_GENERATION;
    const charged = !input.isService && input.userId !== null && cost > 0;
    if (charged) await debitCredits(db, input.userId!, cost, config.CREDITS_INITIAL_GRANT);

    const jobId = randomUUID();
    const outputId = randomUUID();
    try {
      // The social link (custodial generations) is found or created first; the rest is one statement.
      const custodiedFor =
        input.socialOrg && input.socialIdentifier ? (await upsertSocialLink(db, input.socialOrg, input.socialIdentifier)).id : null;
      const jobData: JobData = {
        collectionId: collection.id,
        variables: resolved.values,
        requestedVariables: input.variables ?? {},
        traits: resolved.traits,
        seed: resolved.seed,
        steps: steps.steps,
        referenceImages: steps.referenceImages,
        workflow: {
          id: workflow.id,
          name: workflow.name,
          type: workflow.type,
          models: workflow.models,
          custom_nodes: workflow.custom_nodes,
        },
        // A new deck's id is chosen here so that the job's data can name it.
        deckId: input.deckId ?? randomUUID(),
        outputId,
        source: input.source,
        ...(input.mintState ? { mintState: input.mintState } : {}),
      };
      const priority = input.priority ?? DEFAULT_PRIORITY;
      const jobForStep: JobForStep = { id: jobId, output_id: outputId, data: jobData, priority };
      const step0 = buildStepPayload(jobForStep, 0, 0);
      const queueId = queueJobId(jobId, 0, 0);
      let deckId: string | null;
      try {
        deckId = await insertGenerationRows(db, {
          jobId,
          outputId,
          deckId: input.deckId ?? null,
          newDeck: {
            id: jobData.deckId,
            name: input.mintState ? `${collection.title} #${input.mintState.token_id}` : collection.title,
            userId: input.userId,
            custodiedFor,
          },
          ...(input.mintState ? { mintState: input.mintState } : {}),
          outputCollectionId,
          output: {
            userId: input.userId,
            source: input.source,
            inputMetadata: { variables: resolved.values, traits: resolved.traits, seed: resolved.seed, workflow: workflow.name },
            custodiedFor,
            parentOutputId: input.parentOutputId ?? null,
          },
          job: {
            name: `${collection.title}`,
            description: `${input.jobType} of collection ${collection.id}`,
            jobType: input.jobType,
            priority,
            workflowId: workflow.id,
            data: jobData,
            userId: input.userId,
            collectionId: collection.id,
          },
          step0,
          queueId,
        });
      } catch (err) {
        if (input.mintState && isTokenConflict(err)) {
          throw conflict(`body.mint_state.token_id: token ${input.mintState.token_id} of this collection already has a deck`);
        }
        throw err;
      }
      if (!deckId) throw conflict(`deck ${input.deckId} is locked: no new outputs can be added`);
      try {
        await enqueueStep(ctx, queueId, step0);
      } catch (err) {
        const message = `could not submit the job to the queue: ${err instanceof Error ? err.message : String(err)}`;
        await applyJobEvent(db, jobId, { type: 'error', message, source: 'worker' });
        await failOutput(db, outputId, message).catch(() => undefined);
        throw new AppError('unavailable', message);
      }
      span.setAttribute('job.id', jobId);
      return { jobId, outputId, deckId };
    } catch (err) {
      if (charged) await addCredits(db, input.userId!, cost, config.CREDITS_INITIAL_GRANT).catch(() => undefined);
      throw err;
    }
  });
}

/**
 * POST /api/jobs/:id/retry: same job id, retry_count + 1, the original data backed up, the
 * generation re-run from its first step under new queue ids. Allowed for failed jobs and for
 * stuck ones (pending or processing, untouched for `stuckAfterMs`); refused after 3 retries.
 */
export async function retryJob(ctx: GenerationContext, jobId: string, stuckAfterMs: number) {
  const { db } = ctx;
  const current = await getJob(db, jobId);
  if (current.retry_count >= MAX_JOB_RETRIES)
    throw conflict(RETRY_LIMIT_MESSAGE, { code: 'MAX_RETRIES_REACHED', retry_count: current.retry_count });
  const stuckBefore = new Date(Date.now() - stuckAfterMs);
  const retryable = current.status === 'failed' || (current.status !== 'completed' && current.updated_at < stuckBefore);
  if (!retryable) {
    throw conflict(
      current.status === 'completed'
        ? `job ${jobId} is completed: only failed or stuck jobs can be retried`
        : `job ${jobId} is ${current.status} and still moving: it can be retried when it fails or has not changed for ${Math.round(stuckAfterMs / 60000)} minutes`,
    );
  }
  const job = await db.transaction(async (tx) => {
    const [updated] = await tx
      .update(jobs)
      .set({
        status: 'pending',
        progress: 0,
        error_message: null,
        workflow_output: null,
        completed_at: null,
        retry_count: sql`${jobs.retry_count} + 1`,
        updated_at: sql`now()`,
      })
      .where(
        sql`${jobs.id} = ${jobId} and ${jobs.retry_count} = ${current.retry_count} and ${jobs.retry_count} < ${MAX_JOB_RETRIES} and ${jobs.status} = ${current.status}`,
      )
      .returning();
    if (!updated) return null;
    await tx.insert(jobRetryBackups).values({
      job_id: jobId,
      retry_attempt: updated.retry_count,
      original_status: current.status,
      original_data: current.data as Record<string, unknown>,
      original_error: current.error_message,
      original_workflow_output: current.workflow_output,
    });
    await tx.insert(jobHistory).values({
      job_id: jobId,
      status: 'pending',
      message: `retry ${updated.retry_count} of ${MAX_JOB_RETRIES} queued`,
      progress: 0,
      data: { event: 'retry', retry_attempt: updated.retry_count },
    });
    if (updated.output_id) {
      // The output goes back to pending for the new attempt (a completed output is left as it is).
      await tx
        .update(outputs)
        .set({ status: 'pending', error_message: null, updated_at: sql`now()` })
        .where(sql`${outputs.id} = ${updated.output_id} and ${outputs.status} in ('failed', 'processing', 'pending')`);
    }
    return updated;
  });
  if (!job) {
    const again = await getJob(db, jobId);
    if (again.retry_count >= MAX_JOB_RETRIES)
      throw conflict(RETRY_LIMIT_MESSAGE, { code: 'MAX_RETRIES_REACHED', retry_count: again.retry_count });
    throw conflict(`job ${jobId} changed while retrying: try again`);
  }
  await submitStep(ctx, job, 0, job.retry_count);
  return {
    jobId,
    retryAttempt: job.retry_count,
    message: `Job queued for retry ${job.retry_count} of ${MAX_JOB_RETRIES}`,
  };
}

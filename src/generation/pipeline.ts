/**
 * The pure half of the generation pipeline (docs/api/content.md §4.3, docs/jobs.md): collection
 * data → the job's data (resolved variables, traits, seed, substituted steps, workflow) → the
 * payload queued for each step. No I/O: the use case is src/services/generation.ts, the worker
 * src/generation/worker.ts.
 *
 * Invariants: a job's `data` holds everything a step needs, so a step re-runs identically (retry,
 * crash); a step payload is built only from the job's data, its output id and its priority.
 */
import { ZodError } from 'zod';
import { AppError, invalid } from '../domain/errors.ts';
import { normalizeGenerationData, type GenerationData, type Step } from '../domain/generation-data.ts';
import type { FairSeed } from '../domain/fair-seed.ts';
import type { DealtPosition } from '../domain/exact-deck.ts';
import type { Chooser } from '../domain/minter-choices.ts';
import { resolveSteps, resolveVariables, VariableError, type ReferenceImage, type Trait } from '../domain/variables.ts';

export const MAX_JOB_RETRIES = 3;
export const RETRY_LIMIT_MESSAGE = `Job has reached the maximum retry limit of ${MAX_JOB_RETRIES}`;
/** Queue tries per step (generator failures that may pass: timeouts, 5xx). */
export const STEP_ATTEMPTS = 3;
/** Delay before a step's second queue try; doubled for each further try. */
export const STEP_BACKOFF_MS = 1000;

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
  /** W3C trace context of the span that queued this step: job.process continues that trace. */
  trace?: { traceparent: string; tracestate?: string };
}

export interface MintState {
  token_id: number;
  tx_hash?: string;
  recipient?: string;
  metadata_uri?: string;
}

/** The workflow fields a job records (its type chooses the connector at run time). */
export interface JobWorkflow {
  id: string;
  name: string;
  type: string;
  models: string[];
  custom_nodes: string[];
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
  workflow: JobWorkflow;
  deckId: string;
  outputId: string;
  source: string;
  mintState?: MintState;
  outputs?: unknown;
  /** A minted token's fair seed and its inputs (docs/fairness.md). */
  fairSeed?: FairSeed;
  /** Who the requested variables were chosen by: `minter` (public mint) or `owner`. */
  chooser?: Chooser;
  /** Exact counts: the token's deck position, the reveal offset and the provenance hash (docs/fairness.md). */
  dealt?: DealtPosition;
}

/** What a step payload is built from: the job row, or the values it is about to be inserted with. */
export interface JobForStep {
  id: string;
  output_id: string | null;
  data: unknown;
  priority: number;
}

/**
 * Whether a job's steps have rows of their own (job_steps). A one-step job has none: the job is
 * its step (the job's status, times, error and `step_output` are the step's), which spares each
 * job a row insert, two row updates and their index entries (docs/jobs.md "One-step jobs"). A job
 * of several steps keeps a row per step: a step reads the previous one's output from it.
 */
export const hasStepRows = (totalSteps: number) => totalSteps > 1;

/** Queue id of one step of one attempt: a retry queues new ids, a re-delivery reuses its own. */
export const queueJobId = (jobId: string, stepOrder: number, retryAttempt: number) => `${jobId}-s${stepOrder}-r${retryAttempt}`;

export function corrupted(collectionId: string, message: string, details: Record<string, unknown>): AppError {
  return new AppError('invalid', 'COLLECTION_CORRUPTED', {
    code: 'COLLECTION_CORRUPTED',
    message,
    userMessage: 'This collection cannot be generated because its configuration is damaged. Ask the creator to review and save it again.',
    details: { collectionId, ...details },
  });
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

/** A collection without steps still generates: one image from its title and values. */
export function withDefaultStep(data: GenerationData, title: string): GenerationData {
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

/** Mistakes in the request name the body field; problems in the stored data are corruption. */
export function variableFailure(collectionId: string, err: VariableError): AppError {
  if (err.code === 'NO_OPTIONS' || err.code === 'UNKNOWN_REFERENCE') {
    return corrupted(collectionId, err.message, { field: err.field, code: err.code });
  }
  return invalid(`body.${err.field}: ${err.message}`, { code: err.code });
}

export interface JobDataInput {
  collection: { id: string; title: string; data: unknown };
  workflow: JobWorkflow;
  requestedVariables: Record<string, unknown>;
  /** The seed when `variables.seed` does not fix one. */
  seed: number;
  socialPfp: string | null;
  /** Samples: a required customizable variable may be left out (domain/variables.ts ResolveOptions). */
  requiredMayBeOmitted?: boolean;
  deckId: string;
  outputId: string;
  source: string;
  mintState?: MintState;
  fairSeed?: FairSeed;
  chooser?: Chooser;
  dealt?: DealtPosition;
}

/**
 * Resolves the collection's variables and steps once: the job's data. Throws
 * COLLECTION_CORRUPTED for stored-data problems and a 400 naming `body.variables.<name>` for the
 * request's.
 */
export function buildJobData(input: JobDataInput): JobData {
  const { collection } = input;
  const data = withDefaultStep(loadGenerationData(collection.id, collection.data), collection.title);
  let resolved: ReturnType<typeof resolveVariables>;
  let steps: ReturnType<typeof resolveSteps>;
  try {
    resolved = resolveVariables(data, input.requestedVariables, {
      seed: input.seed,
      socialPfp: input.socialPfp,
      requiredMayBeOmitted: input.requiredMayBeOmitted ?? false,
    });
    steps = resolveSteps(data, resolved.values, resolved.seed);
  } catch (err) {
    if (err instanceof VariableError) throw variableFailure(collection.id, err);
    throw err;
  }
  return {
    collectionId: collection.id,
    variables: resolved.values,
    requestedVariables: input.requestedVariables,
    traits: resolved.traits,
    seed: resolved.seed,
    steps: steps.steps,
    referenceImages: steps.referenceImages,
    workflow: input.workflow,
    deckId: input.deckId,
    outputId: input.outputId,
    source: input.source,
    ...(input.mintState ? { mintState: input.mintState } : {}),
    ...(input.fairSeed ? { fairSeed: input.fairSeed } : {}),
    ...(input.chooser ? { chooser: input.chooser } : {}),
    ...(input.dealt ? { dealt: input.dealt } : {}),
  };
}

/** The step's queue payload, from the job's data alone. */
export function buildStepPayload(job: JobForStep, stepOrder: number, retryAttempt: number): StepPayload {
  const d = job.data as JobData;
  const step = d.steps[stepOrder];
  if (!step) throw new Error(`job ${job.id} has no step ${stepOrder} (it has ${d.steps.length})`);
  if (!job.output_id) throw new Error(`job ${job.id} has no output`);
  return {
    jobId: job.id,
    outputId: job.output_id,
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

/** Queue options of a step: its priority and tries come from the payload. */
export function queueOptions(payload: StepPayload) {
  return { priority: payload.workflow_context.workflow_priority, attempts: payload.attempts, backoffMs: STEP_BACKOFF_MS };
}

/** What the pending output records about its generation. */
export function inputMetadataOf(data: JobData): Record<string, unknown> {
  return {
    variables: data.variables,
    traits: data.traits,
    seed: data.seed,
    workflow: data.workflow.name,
    // The token's fair seed and its inputs: the `generation` object of its document (docs/fairness.md).
    ...(data.fairSeed ? { fair_seed: data.fairSeed } : {}),
  };
}

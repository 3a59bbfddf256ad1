/**
 * The generation worker: takes steps from the queue, runs the workflow's connector, stores the
 * image and applies the events (node_started, node_progress, node_completed, complete, error)
 * through job-events.ts. It runs inside `npm start` (in-process queue or BullMQ) and as
 * `atelier worker` processes sharing a BullMQ queue.
 *
 * Crash safety: every write is idempotent. A step re-delivered after a crash (BullMQ stalled
 * check, or the reconciler re-queueing it) finds its row and either runs it again (same storage
 * key, conditional updates) or, when it had completed, goes straight on to the next step or the
 * job completion, which is applied once.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { ensureOneStepRow, ensureStep, setStepQueueJobId, staleOneStepJobs, staleSteps, type JobStepRow } from '../db/jobs.ts';
import { claimStep } from '../db/step-runs.ts';
import { UUID_RE } from '../domain/ids.ts';
import { failOutput } from '../db/outputs.ts';
import type { QueueJob, WorkerHandle, WorkQueue } from '../queue/index.ts';
import { EXTENSION } from '../storage/mime.ts';
import { makeThumbnail } from '../storage/thumbnails.ts';
import type { Storage } from '../storage/types.ts';
import { parentFromCarrier, withSpan } from '../telemetry.ts';
import { connectorConfigOf, type ConnectorOptions } from './connector-config.ts';
import { createConnector, type GeneratorConnector, type ReferenceImageInput } from './connectors/index.ts';
import { errorMessage, stepFailureAction } from './errors.ts';
import { OPEN, planClaim, planLastStep, type ApplyOptions, type FinishResult } from './job-events.ts';
import { applyJobEvent, finishGeneration } from './job-store.ts';
import { oneStepRow } from './one-step.ts';
import { hasStepRows, queueJobId, queueOptions, type StepPayload } from './pipeline.ts';
import { loadReferenceImages } from './reference-images.ts';
import type { Resolver } from '../net/guarded-fetch.ts';
import { submitStep } from './steps.ts';

/** What the reconciler needs: the database and the queue. */
export interface QueueContext {
  db: Db;
  queue: WorkQueue<StepPayload>;
  /** A log line (warn unless `level` says info). */
  log?: (msg: string, extra?: Record<string, unknown>, level?: 'info' | 'warn') => void;
}

/** What the worker reads from the configuration: the connectors' settings and the outside-fetch allowances (reference images). */
export type WorkerSettings = ConnectorOptions & Pick<Config, 'OUTSIDE_FETCH_ALLOW_ORIGINS'>;

export interface WorkerContext extends QueueContext {
  config: WorkerSettings;
  storage: Storage;
  /** Chooses the connector; default createConnector(type, config from COMFYUI_URL / OPENAI_*). */
  connectorFor?: (workflowType: string, workflowData: unknown) => GeneratorConnector;
  /** Step-completion write backoff (tests shorten it). */
  applyOptions?: ApplyOptions;
  /** Name resolution of outside fetches (reference images); tests inject one. Default: the system's. */
  resolve?: Resolver;
}

/** This process as the history names it: several workers share one queue (docs/deployment.md). */
export const WORKER_ID = `${os.hostname()}:${process.pid}`;

/** Least time between two progress writes of a step (unless progress jumped 10 points). */
export const PROGRESS_INTERVAL_MS = 1000;

export interface StepOutput extends Record<string, unknown> {
  key: string;
  url: string;
  mime_type: string;
  size: number;
  connector: string;
}

/** The queue handler for generation steps. */
export function createStepHandler(ctx: WorkerContext) {
  const { db, storage } = ctx;
  const connectorFor =
    ctx.connectorFor ?? ((type: string, data: unknown) => createConnector(type, connectorConfigOf(ctx.config), { workflowData: data }));

  /** Reads what the step needs and applies node_started, in one statement (db/step-runs.ts). */
  function claim(qjob: QueueJob<StepPayload>) {
    const p = qjob.payload;
    const workflowId = p.workflow_context.workflow_id;
    return claimStep(
      db,
      planClaim(
        p.jobId,
        {
          type: 'node_started',
          stepOrder: p.stepOrder,
          retryAttempt: p.retryAttempt,
          totalSteps: p.totalSteps,
          stepName: p.payload.nodeName,
          queueJobId: qjob.id,
          worker: WORKER_ID,
          // The output turns processing with its first step (already processing after a re-delivery).
          ...(p.stepOrder === 0 ? { outputId: p.outputId } : {}),
        },
        // workflows.id is a uuid: a malformed id in a hand-made payload matches nothing.
        // The job's data is read only when a next step is built from it.
        { workflowId: UUID_RE.test(workflowId) ? workflowId : null, withJobData: p.stepOrder + 1 < p.totalSteps },
      ),
    );
  }

  return async function handleStep(qjob: QueueJob<StepPayload>): Promise<unknown> {
    const p = qjob.payload;
    // The step carries the submitting trace (job.submit, or the previous step's job.process).
    return withSpan(
      'job.process',
      { 'job.id': p.jobId, 'job.service_required': p.type },
      async () => {
        let found = await claim(qjob);
        if (
          found &&
          !found.step &&
          hasStepRows(p.totalSteps) &&
          found.job.retry_count === p.retryAttempt &&
          OPEN.includes(found.job.status)
        ) {
          // The row is created before the queue add; a payload without one was queued by hand or
          // by a reconciler: recreate it (from the payload) so progress has somewhere to go. A
          // one-step job has no row: the job is its step (docs/jobs.md "One-step jobs").
          await ensureStep(db, {
            jobId: p.jobId,
            stepName: p.payload.nodeName,
            stepType: p.type,
            stepOrder: p.stepOrder,
            retryAttempt: p.retryAttempt,
            queueJobId: qjob.id,
            input: p as unknown as Record<string, unknown>,
          });
          found = await claim(qjob);
        }
        if (!found) return { skipped: 'job not found' };
        const { job, step } = found;
        if (job.retry_count !== p.retryAttempt) return { skipped: 'superseded by a retry' };
        if (job.status === 'completed' || job.status === 'failed') return { skipped: `job ${job.status}` };

        let output = step?.status === 'completed' ? (step.output_data as StepOutput | null) : null;
        if (!output && !found.started) return { skipped: `step ${step?.status ?? 'missing'}` };
        const last = p.stepOrder + 1 >= p.totalSteps;
        let bytes: Buffer | undefined;
        let done: FinishResult | undefined;
        try {
          if (!output) {
            ({ output, bytes } = await runStep(qjob, found.workflowData, found.previousOutput as StepOutput | null));
            if (!last) await completeStep(qjob, output);
          }
          if (last) done = await finishJob(ctx, qjob, output, { userId: found.outputUserId, status: found.outputStatus }, bytes);
        } catch (err) {
          // Handed back (worker shutting down): not a failure; the queue gives it to another worker.
          if (qjob.signal?.aborted) throw err;
          if (stepFailureAction(err, qjob.attempt, p.attempts) === 'retry') throw err; // the queue tries again with backoff
          const message = errorMessage(err);
          await failJob(db, p, `generation failed: ${message}`);
          ctx.log?.('generation failed', { job_id: p.jobId, output_id: p.outputId, step: p.stepOrder, error: message });
          return { failed: message };
        }
        if (!done) {
          // The job's data and priority do not change while a step runs (a retry changes
          // retry_count, checked above), so the next payload is built from the claim's read.
          await submitStep(ctx, job, p.stepOrder + 1, p.retryAttempt);
          return { next: p.stepOrder + 1 };
        }
        if (done.skipped) return { skipped: done.skipped };
        ctx.log?.('generation completed', { job_id: p.jobId, output_id: p.outputId, url: output.url }, 'info');
        return { completed: output.url };
      },
      p.trace ? parentFromCarrier(p.trace) : undefined,
    );
  };

  /** A step that is not the last: node_completed (retried and verified, job-events.ts). */
  async function completeStep(qjob: QueueJob<StepPayload>, output: StepOutput) {
    const p = qjob.payload;
    await applyJobEvent(
      db,
      p.jobId,
      {
        type: 'node_completed',
        stepOrder: p.stepOrder,
        retryAttempt: p.retryAttempt,
        totalSteps: p.totalSteps,
        stepName: p.payload.nodeName,
        output,
      },
      ctx.applyOptions,
    );
  }

  async function runStep(
    qjob: QueueJob<StepPayload>,
    workflowData: unknown,
    previous: StepOutput | null,
  ): Promise<{ output: StepOutput; bytes: Buffer }> {
    const p = qjob.payload;
    const connector = connectorFor(p.type, workflowData ?? null);

    // Progress: written in order, never blocking the generator, and throttled (one write costs a
    // database statement and a Redis call): a whole-percent rise of 10 points or more, or one at
    // least PROGRESS_INTERVAL_MS after the last write. 100 % is not written: the step's completion
    // follows at once and records the step's full progress with its own history entry.
    let lastReported = -Infinity;
    let lastAt = 0;
    let chain: Promise<unknown> = Promise.resolve();
    const onProgress = (pct: number, message?: string) => {
      if (pct >= 100) return;
      const whole = Math.floor(pct);
      const now = Date.now();
      if (whole <= lastReported) return;
      if (whole - lastReported < 10 && now - lastAt < PROGRESS_INTERVAL_MS) return;
      lastReported = whole;
      lastAt = now;
      chain = chain
        .then(async () => {
          await applyJobEvent(db, p.jobId, {
            type: 'node_progress',
            stepOrder: p.stepOrder,
            retryAttempt: p.retryAttempt,
            totalSteps: p.totalSteps,
            progress: pct,
            ...(message ? { message } : {}),
          });
          await qjob.reportProgress(((p.stepOrder + pct / 100) / p.totalSteps) * 100);
        })
        .catch(() => undefined);
    };

    const referenceImages: ReferenceImageInput[] = await loadReferenceImages(storage, p.payload.referenceImages, {
      allowOrigins: ctx.config.OUTSIDE_FETCH_ALLOW_ORIGINS,
      ...(ctx.resolve ? { resolve: ctx.resolve } : {}),
    });
    if (p.stepOrder > 0) {
      // The previous step's image (its output, read with the claim) is this step's input.
      const obj = previous?.key ? await storage.get(previous.key) : null;
      if (obj) referenceImages.unshift({ name: 'previous_step', bytes: obj.bytes, url: previous!.url });
    }
    const result = await connector.generate(
      {
        prompt: p.payload.prompt,
        seed: p.payload.seed,
        ...(p.payload.width ? { width: p.payload.width } : {}),
        ...(p.payload.height ? { height: p.payload.height } : {}),
        values: p.payload.values,
        referenceImages,
        stepId: qjob.id,
      },
      onProgress,
      qjob.signal,
    );
    await chain;
    // Handed back to the queue by a shutting-down worker: another worker runs the step; this run
    // writes nothing (a step's result is written once).
    if (qjob.commit && !qjob.commit()) throw new Error('step handed back to the queue');
    const ext = (EXTENSION as Record<string, string>)[result.mimeType] ?? 'bin';
    // One key per step (job, step, retry attempt), the same for every run of it: a run killed
    // after its upload leaves no orphan, the next run (another worker's) writes the same name. A
    // reader learns the key from the database only after a run committed; two runs of one step at
    // once cannot both commit (the queue's lock, and a run that lost it commits nothing:
    // queue/bullmq.ts), and `put` replaces a file whole (docs/jobs.md "Stored files").
    const key = `generations/${p.jobId.slice(0, 2)}/${p.jobId}-s${p.stepOrder}-r${p.retryAttempt}.${ext}`;
    const stored = await storage.put(key, result.bytes, result.mimeType);
    const output: StepOutput = {
      key,
      url: stored.url,
      mime_type: result.mimeType,
      size: result.bytes.length,
      connector: connector.kind,
      // Which references the picture holds (and where), when the connector says so.
      ...(result.meta?.referenceImages ? { reference_images: result.meta.referenceImages } : {}),
    };
    return { output, bytes: result.bytes };
  }
}

/** A short random token that makes a run's storage keys its own. */
const runToken = () => randomBytes(4).toString('hex');

/**
 * The last step: its image becomes the output (with its thumbnail and flat file), the step is
 * completed and the job completes once, in one statement (job-store.ts `finishGeneration`:
 * retried and verified like any step completion). `outputAtStart` is the output's owner and
 * status read with the claim; `bytes` the image when this handler generated it (the thumbnail is
 * made from them instead of a storage read). When another finisher completed the output first,
 * the job records what that one wrote.
 */
async function finishJob(
  ctx: WorkerContext,
  qjob: QueueJob<StepPayload>,
  out: StepOutput,
  outputAtStart: { userId: string | null; status: string | null },
  bytes?: Buffer,
) {
  const { db, storage } = ctx;
  const p = qjob.payload;
  let thumbnail: string | null = null;
  if (outputAtStart.status !== 'completed') {
    try {
      thumbnail = await makeThumbnail(storage, p.outputId, out.url, out.mime_type, bytes, `thumbnails/${p.outputId}-${runToken()}.webp`);
    } catch (err) {
      ctx.log?.('thumbnail failed', { outputId: p.outputId, err: String(err) });
    }
  }
  const meta = {
    job_id: p.jobId,
    connector: out.connector,
    size: out.size,
    workflow: p.workflow_context.workflow_name,
    ...(out.reference_images ? { reference_images: out.reference_images } : {}),
  };
  return finishGeneration(
    db,
    planLastStep(
      p.jobId,
      {
        type: 'node_completed',
        stepOrder: p.stepOrder,
        retryAttempt: p.retryAttempt,
        totalSteps: p.totalSteps,
        stepName: p.payload.nodeName,
        output: out,
      },
      {
        outputId: p.outputId,
        file: { key: out.key, url: out.url, mimeType: out.mime_type, size: out.size, ownerId: outputAtStart.userId, relType: 'generation' },
        thumbnailUrl: thumbnail,
        outputMetadata: meta,
      },
    ),
    ctx.applyOptions,
  );
}

async function failJob(db: Db, p: StepPayload, message: string) {
  const r = await applyJobEvent(db, p.jobId, {
    type: 'error',
    message,
    stepOrder: p.stepOrder,
    retryAttempt: p.retryAttempt,
    source: 'worker',
  });
  if (r.applied) await failOutput(db, p.outputId, message).catch(() => undefined);
}

/** Starts `concurrency` parallel step handlers on the queue. */
export function startWorker(ctx: WorkerContext, opts: { concurrency: number }): WorkerHandle {
  const handler = createStepHandler(ctx);
  return ctx.queue.process(handler, { concurrency: opts.concurrency });
}

// ---------------------------------------------------------------------------------------------
// Stale step reconciliation (docs/api/content.md §3, §8)
// ---------------------------------------------------------------------------------------------

export const STALE_STEP_MS = 30 * 1000;
export const RECONCILE_INTERVAL_MS = 20 * 1000;

export interface ReconcileReport {
  checked: number;
  requeued: number;
  failed: number;
  running: number;
}

/**
 * Steps pending or processing, untouched for `staleMs`, of open jobs, compared with the queue:
 * - failed in the queue → the step, the job and the output fail;
 * - unknown to the queue (lost: in-process queue restarted, Redis flushed) → queued again;
 * - completed in the queue but not in the database (the worker's writes were lost) → queued
 *   again under a new id: the handler is idempotent and finishes the job;
 * - waiting or active → left alone (still running; BullMQ's stall check covers dead workers).
 */
export async function reconcileStaleSteps(ctx: QueueContext, opts: { staleMs?: number } = {}): Promise<ReconcileReport> {
  const { db, queue } = ctx;
  const staleMs = opts.staleMs ?? STALE_STEP_MS;
  const report: ReconcileReport = { checked: 0, requeued: 0, failed: 0, running: 0 };
  // Steps with rows, and one-step jobs, whose job is their step (generation/one-step.ts).
  const rows = (await staleSteps(db, staleMs)).map(({ step }) => ({ step, row: true }));
  for (const job of await staleOneStepJobs(db, staleMs)) {
    const step = oneStepRow(job);
    if (step) rows.push({ step, row: false });
    else
      rows.push({
        step: { job_id: job.id, step_order: 0, retry_attempt: job.retry_count, queue_job_id: null, input_data: null } as JobStepRow,
        row: false,
      });
  }
  for (const { step, row } of rows) {
    report.checked++;
    const queueId = step.queue_job_id;
    const state = queueId ? await queue.getState(queueId) : 'unknown';
    const payload = step.input_data as StepPayload | null;
    if (state === 'waiting' || state === 'active') {
      report.running++;
      continue;
    }
    if (state === 'failed' || !payload) {
      await applyJobEvent(db, step.job_id, {
        type: 'error',
        message: payload ? 'generation step failed in the queue' : 'generation step has no payload to run',
        stepOrder: step.step_order,
        retryAttempt: step.retry_attempt,
        source: 'reconciler',
      });
      if (payload) await failOutput(db, payload.outputId, 'generation step failed in the queue').catch(() => undefined);
      report.failed++;
      continue;
    }
    const newId =
      state === 'unknown' && queueId ? queueId : `${queueJobId(step.job_id, step.step_order, step.retry_attempt)}-rc${Date.now()}`;
    if (row) {
      await queue.add(newId, payload, queueOptions(payload));
      await setStepQueueJobId(db, step.id, newId);
    } else {
      // A one-step job's step queued under another id gets a row that says so (before the add,
      // so the step finds it); under its own id it needs none. The row is made only while the
      // job is open in the step's attempt: a job that ended since it was read (its worker
      // finished, so the queue says completed) needs no re-run, and a row would show its step
      // pending for good.
      if (
        newId !== queueId &&
        !(await ensureOneStepRow(db, {
          id: step.id,
          jobId: step.job_id,
          stepName: step.step_name,
          stepType: step.step_type,
          stepOrder: step.step_order,
          retryAttempt: step.retry_attempt,
          queueJobId: newId,
          input: payload as unknown as Record<string, unknown>,
        }))
      )
        continue;
      await queue.add(newId, payload, queueOptions(payload));
    }
    report.requeued++;
    // One line per step put back: a queue store that lost work is visible in the log (docs/operations.md).
    ctx.log?.('re-queued a generation step', {
      job_id: step.job_id,
      step: step.step_order,
      retry_attempt: step.retry_attempt,
      queue_state: state,
      queue_job_id: newId,
      reason: state === 'unknown' ? 'the queue store does not know the step (lost)' : 'completed in the queue but not in the database',
    });
  }
  return report;
}

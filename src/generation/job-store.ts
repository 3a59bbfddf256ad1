/**
 * The job planner's `JobEventStore` port on the database: its statements run by
 * src/db/job-events.ts and src/db/step-runs.ts, and `applyEvent` / `finishWithRetry`
 * (src/generation/job-events.ts) bound to it. The rules stay in job-events.ts, which imports
 * nothing from src/db.
 */
import type { Db } from '../db/client.ts';
import { completeJob, completeStep, failJob, recordProgress, startStep, stepStatus } from '../db/job-events.ts';
import { finishLastStep } from '../db/step-runs.ts';
import type { LastStepStatement } from '../domain/ports/job-statements.ts';
import {
  applyEvent,
  finishWithRetry,
  type ApplyOptions,
  type ApplyResult,
  type FinishResult,
  type JobEvent,
  type JobEventStore,
} from './job-events.ts';

export function jobEventStore(db: Db): JobEventStore {
  return {
    startStep: (s) => startStep(db, s),
    recordProgress: (s) => recordProgress(db, s),
    completeStep: (s) => completeStep(db, s),
    stepStatus: (jobId, order, attempt) => stepStatus(db, jobId, order, attempt),
    completeJob: (s) => completeJob(db, s),
    failJob: (s) => failJob(db, s),
    finishLastStep: (s) => finishLastStep(db, s),
  };
}

/** `applyEvent` on the database. */
export function applyJobEvent(db: Db, jobId: string, event: JobEvent, opts: ApplyOptions = {}): Promise<ApplyResult> {
  return applyEvent(jobEventStore(db), jobId, event, opts);
}

/** `finishWithRetry` on the database. */
export function finishGeneration(db: Db, s: LastStepStatement, opts: ApplyOptions = {}): Promise<FinishResult> {
  return finishWithRetry(jobEventStore(db), s, opts);
}

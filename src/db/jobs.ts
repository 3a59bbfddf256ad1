/**
 * Jobs, job steps, job history and retry backups (docs/api/content.md §2.4, §3 Job): reads and
 * row creation. State changes are decided by src/generation/job-events.ts and run by
 * src/db/job-events.ts; response shapes are src/http/present/jobs.ts.
 */
import { and, asc, desc, eq, gt, sql } from 'drizzle-orm';
import { notFound } from '../domain/errors.ts';
import type { JobRecord, StepRecord } from '../domain/ports/job-statements.ts';
import { rows, type Db } from './client.ts';
import type { Assert, Same } from './port-rows.ts';
import { jobHistory, jobRetryBackups, jobSteps, jobs } from './schema/index.ts';

export type JobRow = typeof jobs.$inferSelect;
export type JobStepRow = typeof jobSteps.$inferSelect;
export type JobHistoryRow = typeof jobHistory.$inferSelect;

/** The row is the job planner's JobRecord (src/domain/ports/job-statements.ts), column for column. */
type _JobRowIsJobRecord = Assert<Same<JobRow, JobRecord>>;
/** The step row is StepRecord (a retry records a one-step job's step as one, generation/one-step.ts). */
type _JobStepRowIsStepRecord = Assert<Same<JobStepRow, StepRecord>>;

export async function findJob(db: Db, id: string): Promise<JobRow | null> {
  const [row] = await db.select().from(jobs).where(eq(jobs.id, id));
  return row ?? null;
}

export async function getJob(db: Db, id: string): Promise<JobRow> {
  const row = await findJob(db, id);
  if (!row) throw notFound(`job ${id}`);
  return row;
}

export interface NewStep {
  jobId: string;
  stepName: string;
  stepType: string;
  stepOrder: number;
  retryAttempt: number;
  queueJobId: string;
  input: Record<string, unknown>;
}

/** Creates the step row unless it exists (a re-run of the step before it creates it again). */
export async function ensureStep(db: Db, s: NewStep): Promise<void> {
  await db
    .insert(jobSteps)
    .values({
      job_id: s.jobId,
      step_name: s.stepName.slice(0, 100),
      step_type: s.stepType.slice(0, 50),
      step_order: s.stepOrder,
      retry_attempt: s.retryAttempt,
      status: 'pending',
      input_data: s.input,
      queue_job_id: s.queueJobId,
    })
    .onConflictDoNothing();
}

/**
 * A one-step job's step row, made by the reconciler when it queues the step under another id
 * (docs/jobs.md "One-step jobs"), only while the job is still open in that attempt: a job that
 * ended meanwhile (its worker finished while the reconciler asked the queue) keeps its step as
 * the job shows it, instead of a row left pending for a re-run it does not need. True when the
 * row was inserted.
 */
export async function ensureOneStepRow(db: Db, s: NewStep & { id: string }): Promise<boolean> {
  const inserted = await rows<{ id: string }>(
    db,
    sql`insert into job_steps (id, job_id, step_name, step_type, step_order, retry_attempt, status, input_data, queue_job_id)
        select ${s.id}::uuid, j.id, ${s.stepName.slice(0, 100)}::varchar, ${s.stepType.slice(0, 50)}::varchar, ${s.stepOrder}::int,
          ${s.retryAttempt}::int, 'pending', ${JSON.stringify(s.input)}::jsonb, ${s.queueJobId}::text
        from jobs j
        where j.id = ${s.jobId} and j.status in ('pending', 'processing') and j.retry_count = ${s.retryAttempt}
        on conflict do nothing
        returning id`,
  );
  return inserted.length > 0;
}

export async function listSteps(db: Db, jobId: string): Promise<JobStepRow[]> {
  return db.select().from(jobSteps).where(eq(jobSteps.job_id, jobId)).orderBy(asc(jobSteps.retry_attempt), asc(jobSteps.step_order));
}

/** History entries of a job after `afterId` (exclusive), oldest first. */
export async function historyAfter(db: Db, jobId: string, afterId = 0, limit = 1000): Promise<JobHistoryRow[]> {
  return db
    .select()
    .from(jobHistory)
    .where(and(eq(jobHistory.job_id, jobId), gt(jobHistory.id, afterId)))
    .orderBy(asc(jobHistory.id))
    .limit(limit);
}

export async function listRetryBackups(db: Db, jobId: string) {
  return db.select().from(jobRetryBackups).where(eq(jobRetryBackups.job_id, jobId)).orderBy(desc(jobRetryBackups.retry_attempt));
}

/** Steps not finished and not touched for `staleMs` whose job is still open, for reconciliation. */
export async function staleSteps(db: Db, staleMs: number, limit = 500) {
  const cutoff = new Date(Date.now() - staleMs);
  return db
    .select({ step: jobSteps, job: { status: jobs.status, retry_count: jobs.retry_count } })
    .from(jobSteps)
    .innerJoin(jobs, eq(jobs.id, jobSteps.job_id))
    .where(
      and(
        sql`${jobSteps.status} in ('pending', 'processing')`,
        sql`${jobSteps.updated_at} < ${cutoff}`,
        sql`${jobs.status} in ('pending', 'processing')`,
        eq(jobSteps.retry_attempt, jobs.retry_count),
      ),
    )
    .orderBy(asc(jobSteps.updated_at))
    .limit(limit);
}

/**
 * SQL: the job (`data` is its data column) has exactly one step, so no step rows (docs/jobs.md
 * "One-step jobs"). A hand-made job whose steps are not an array is not one-step, and does not
 * make the statement raise.
 */
export const oneStepJobSql = (data: string) =>
  `(case when jsonb_typeof(${data}->'steps') = 'array' then jsonb_array_length(${data}->'steps') end) = 1`;

/**
 * Open one-step jobs without a step row in their attempt (the job is its step, docs/jobs.md
 * "One-step jobs") not touched for `staleMs`, for reconciliation.
 */
export async function staleOneStepJobs(db: Db, staleMs: number, limit = 500): Promise<JobRow[]> {
  const cutoff = new Date(Date.now() - staleMs);
  return db
    .select()
    .from(jobs)
    .where(
      and(
        sql`${jobs.status} in ('pending', 'processing')`,
        sql`${jobs.updated_at} < ${cutoff}`,
        sql.raw(oneStepJobSql('"jobs"."data"')),
        sql`not exists (select 1 from job_steps s where s.job_id = ${jobs.id} and s.retry_attempt = ${jobs.retry_count})`,
      ),
    )
    .orderBy(asc(jobs.updated_at))
    .limit(limit);
}

/** The reconciler re-queued a step under `queueJobId`. */
export async function setStepQueueJobId(db: Db, stepId: string, queueJobId: string): Promise<void> {
  await db.update(jobSteps).set({ queue_job_id: queueJobId, updated_at: sql`now()` }).where(eq(jobSteps.id, stepId));
}

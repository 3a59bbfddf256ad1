/**
 * The statements that change a job's state (docs/api/content.md §3 Job). Which states a change
 * applies from and to, and what its history entry says, are decided by
 * src/generation/job-events.ts (the single owner of the rules), whose statement types
 * (src/domain/ports/job-statements.ts) this module takes; it only runs them.
 *
 * Invariants: every change is a conditional UPDATE (its guard lists the states it applies from),
 * so a re-delivered event changes nothing; its history entry is written in the same statement
 * (data-modifying CTEs) or transaction, so whoever sees the new status also sees its entry (the
 * SSE stream relies on it). One statement per event keeps the worker to one round trip each.
 */
import { and, eq, inArray, notInArray, sql } from 'drizzle-orm';
import type {
  CompletionStatement,
  FailureStatement,
  ProgressStatement,
  RetryStatement,
  StartStatement,
  StepCompletionStatement,
} from '../domain/ports/job-statements.ts';
import { firstRow, tx, type Db } from './client.ts';
import { oneStepJobSql, type JobRow } from './jobs.ts';
import { jobHistory, jobRetryBackups, jobSteps, jobs, outputs } from './schema/index.ts';

const count = async (db: Db, query: ReturnType<typeof sql>) => Number((await firstRow<{ n: number }>(db, query))?.n ?? 0);
const list = (values: readonly string[]) =>
  sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  );

/** Job, step, output and history in one statement; true when the job changed. */
export function startStep(db: Db, s: StartStatement): Promise<boolean> {
  return count(
    db,
    sql`with j as (
          update jobs set status = ${s.to}, started_at = coalesce(started_at, now()), updated_at = now()
          where id = ${s.jobId} and status in (${list(s.jobFrom)}) and retry_count = ${s.retryAttempt}
          returning id, progress),
        s as (
          update job_steps set status = ${s.to}, started_at = coalesce(started_at, now()), updated_at = now(),
            queue_job_id = coalesce(${s.queueJobId}::text, queue_job_id)
          where job_id = ${s.jobId} and step_order = ${s.stepOrder} and retry_attempt = ${s.retryAttempt}
            and status in (${list(s.stepFrom)}) and exists (select 1 from j)),
        o as (
          update outputs set status = ${s.to}, updated_at = now()
          where id = ${s.outputId}::uuid and status = ${s.outputFrom} and exists (select 1 from j)),
        h as (
          insert into job_history (job_id, status, message, progress, data)
          select id, ${s.history.status}, ${s.history.message}, progress, ${JSON.stringify(s.history.data)}::jsonb from j)
        select count(*)::int as n from j`,
  ).then((n) => n > 0);
}

export function recordProgress(db: Db, s: ProgressStatement): Promise<boolean> {
  return count(
    db,
    sql`with j as (
          update jobs set progress = ${s.progress}, updated_at = now()
          where id = ${s.jobId} and status = ${s.jobIn} and retry_count = ${s.retryAttempt}
            and (progress is null or progress < ${s.progress})
          returning id),
        s as (
          update job_steps set updated_at = now()
          where job_id = ${s.jobId} and step_order = ${s.stepOrder} and retry_attempt = ${s.retryAttempt}
            and exists (select 1 from j)),
        h as (
          insert into job_history (job_id, status, message, progress, data)
          select id, ${s.history.status}, ${s.history.message}, ${s.progress}::real, ${JSON.stringify(s.history.data)}::jsonb from j)
        select count(*)::int as n from j`,
  ).then((n) => n > 0);
}

/**
 * One statement (atomic on its own: no BEGIN/COMMIT round trips); true when the step row changed
 * to `to`, which its RETURNING proves, so no read-back is needed after it (one round trip fewer per step: docs/jobs.md "Throughput").
 */
export function completeStep(db: Db, s: StepCompletionStatement): Promise<boolean> {
  return count(
    db,
    sql`with s as (
            update job_steps set status = ${s.to}, output_data = ${JSON.stringify(s.output)}::jsonb, completed_at = now(),
              updated_at = now(), error_message = null
            where job_id = ${s.jobId} and step_order = ${s.stepOrder} and retry_attempt = ${s.retryAttempt} and status <> ${s.to}
            returning job_id),
          j as (
            update jobs set progress = greatest(coalesce(progress, 0), ${s.progress}::real), updated_at = now()
            where id = ${s.jobId} and status in (${list(s.jobIn)}) and exists (select 1 from s)),
          h as (
            insert into job_history (job_id, status, message, progress, data)
            select job_id, ${s.history.status}, ${s.history.message}, ${s.progress}::real, ${JSON.stringify(s.history.data)}::jsonb from s)
          select count(*)::int as n from s`,
  ).then((n) => n > 0);
}

/**
 * The step's status (the verification read after a completion write that changed nothing), or
 * null. A one-step job without a step row is its own step: the job's status in that attempt.
 */
export async function stepStatus(db: Db, jobId: string, stepOrder: number, retryAttempt: number): Promise<string | null> {
  const row = await firstRow<{ status: string | null }>(
    db,
    sql`select coalesce(
          (select status from job_steps where job_id = ${jobId} and step_order = ${stepOrder} and retry_attempt = ${retryAttempt}),
          (select status from jobs where id = ${jobId} and retry_count = ${retryAttempt} and ${stepOrder} = 0
             and ${sql.raw(oneStepJobSql('data'))})) as status`,
  );
  return row?.status ?? null;
}

export function completeJob(db: Db, s: CompletionStatement): Promise<boolean> {
  const data = Object.keys(s.data).length > 0 ? sql`data || ${JSON.stringify(s.data)}::jsonb` : sql`data`;
  return count(
    db,
    sql`with j as (
          update jobs set status = ${s.to}, progress = 100, workflow_output = ${s.workflowOutput}, error_message = null,
            completed_at = now(), updated_at = now(), data = ${data}
          where id = ${s.jobId} and status <> ${s.to}
          returning id),
        h as (
          insert into job_history (job_id, status, message, progress, data)
          select id, ${s.history.status}, ${s.history.message}, 100, ${JSON.stringify(s.history.data)}::jsonb from j)
        select count(*)::int as n from j`,
  ).then((n) => n > 0);
}

/** The job, its steps and the history entry in one transaction; the job after it, or null. */
export function failJob(db: Db, s: FailureStatement): Promise<JobRow | null> {
  return tx(db, async (t) => {
    const [job] = await t
      .update(jobs)
      .set({ status: s.to, error_message: s.message, updated_at: sql`now()`, completed_at: null })
      .where(and(eq(jobs.id, s.jobId), notInArray(jobs.status, [...s.jobNotIn])))
      .returning();
    if (!job) return null;
    const stepSet = { status: s.to, error_message: s.message, updated_at: sql`now()` };
    const stepOf = eq(jobSteps.job_id, s.jobId);
    if ('order' in s.step) {
      await t
        .update(jobSteps)
        .set(stepSet)
        .where(
          and(
            stepOf,
            eq(jobSteps.step_order, s.step.order),
            eq(jobSteps.retry_attempt, s.step.retryAttempt),
            notInArray(jobSteps.status, [...s.step.notIn]),
          ),
        );
    } else {
      await t
        .update(jobSteps)
        .set(stepSet)
        .where(and(stepOf, eq(jobSteps.retry_attempt, job.retry_count), inArray(jobSteps.status, [...s.step.openIn])));
    }
    await t.insert(jobHistory).values({
      job_id: s.jobId,
      status: s.history.status,
      message: s.history.message,
      progress: job.progress,
      data: s.history.data,
    });
    return job;
  });
}

/**
 * A retry in one transaction: the job back to `to` with retry_count + 1 (conditional on the
 * state that was read, so two retries cannot both pass), the previous state into
 * job_retry_backups, the history entry, the output reopened, and a one-step job's step of the
 * replaced attempt recorded as a row. The job after it, or null.
 */
export function resetForRetry(db: Db, s: RetryStatement): Promise<JobRow | null> {
  return tx(db, async (t) => {
    const [updated] = await t
      .update(jobs)
      .set({
        status: s.to,
        progress: 0,
        error_message: null,
        workflow_output: null,
        completed_at: null,
        // the replaced attempt's step output is kept in its recorded step row (recordStep)
        step_output: null,
        retry_count: sql`${jobs.retry_count} + 1`,
        updated_at: sql`now()`,
      })
      .where(
        sql`${jobs.id} = ${s.jobId} and ${jobs.retry_count} = ${s.current.retry_count} and ${jobs.retry_count} < ${s.maxRetries}
            and ${jobs.status} = ${s.current.status}`,
      )
      .returning();
    if (!updated) return null;
    if (s.recordStep) await t.insert(jobSteps).values(s.recordStep).onConflictDoNothing();
    await t.insert(jobRetryBackups).values({
      job_id: s.jobId,
      retry_attempt: updated.retry_count,
      original_status: s.current.status,
      original_data: s.current.data as Record<string, unknown>,
      original_error: s.current.error_message,
      original_workflow_output: s.current.workflow_output,
    });
    const h = s.history(updated.retry_count);
    await t.insert(jobHistory).values({ job_id: s.jobId, status: h.status, message: h.message, progress: h.progress ?? 0, data: h.data });
    if (updated.output_id) {
      await t
        .update(outputs)
        .set({ status: s.outputTo, error_message: null, updated_at: sql`now()` })
        .where(and(eq(outputs.id, updated.output_id), inArray(outputs.status, [...s.outputFrom])));
    }
    return updated;
  });
}

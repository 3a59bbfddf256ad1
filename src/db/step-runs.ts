/**
 * The two statements a worker runs around one generation step (docs/jobs.md
 * "Throughput"): `claimStep` reads what the step needs and applies node_started, and
 * `finishLastStep` completes the last step and finishes the generation. Which states each change
 * applies from and to, and the history entries, are decided by src/generation/job-events.ts
 * (its statement types: src/domain/ports/job-statements.ts); this module only runs them. Both
 * are named statements (db/prepared.ts), one round trip each.
 *
 * Invariants as in db/job-events.ts: every change is conditional (re-delivered steps change
 * nothing), and each history entry commits with the change it records.
 */
import type { ClaimStatement, LastStepResult, LastStepStatement } from '../domain/ports/job-statements.ts';
import type { Db } from './client.ts';
import { namedStatement, runNamed } from './prepared.ts';

export interface ClaimedStep {
  job: { id: string; status: string; retry_count: number; priority: number; output_id: string | null; data: unknown };
  /** The step row as it was before the claim, or null when it is missing. */
  step: { status: string; output_data: unknown } | null;
  /** The previous step's output_data (steps after the first), or null. */
  previousOutput: unknown;
  workflowData: unknown;
  outputUserId: string | null;
  outputStatus: string | null;
  /** node_started was applied (job, step and output moved; history written). */
  started: boolean;
}

const CLAIM = namedStatement(
  'claim_step',
  `with cur as (
     select j.id, j.status, j.retry_count, j.priority, j.output_id::text as output_id,
       case when :with_job_data::boolean then j.data end as data,
       s.status as step_status, s.output_data as step_output, p.output_data as previous_output,
       w.data as workflow_data, o.user_id as output_user_id, o.status as output_status
     from jobs j
     left join job_steps s on s.job_id = j.id and s.step_order = :step_order::int and s.retry_attempt = :attempt::int
     left join job_steps p on p.job_id = j.id and p.step_order = :step_order::int - 1 and p.retry_attempt = :attempt::int
     left join workflows w on w.id = :workflow_id::uuid
     left join outputs o on o.id = j.output_id
     where j.id = :job::text),
   j as (
     update jobs set status = :to::varchar, started_at = coalesce(started_at, now()), updated_at = now()
     where id = :job::text and status = any(:job_from::text[]) and retry_count = :attempt::int
       and exists (select 1 from cur where step_status = any(:step_from::text[]) or (step_status is null and :one_step::boolean))
     returning id, progress),
   s as (
     update job_steps set status = :to::varchar, started_at = coalesce(started_at, now()), updated_at = now(),
       queue_job_id = coalesce(:queue_job_id::text, queue_job_id)
     where job_id = :job::text and step_order = :step_order::int and retry_attempt = :attempt::int
       and status = any(:step_from::text[]) and exists (select 1 from j)),
   o as (
     update outputs set status = :to::varchar, updated_at = now()
     where id = :output::uuid and status = :output_from::varchar and exists (select 1 from j)),
   h as (
     insert into job_history (job_id, status, message, progress, data)
     select id, :history_status::varchar, :history_message::text, progress, :history_data::jsonb from j)
   select cur.*, exists (select 1 from j) as started from cur`,
);

interface ClaimRow {
  id: string;
  status: string;
  retry_count: number;
  priority: number;
  output_id: string | null;
  data: unknown;
  step_status: string | null;
  step_output: unknown;
  previous_output: unknown;
  workflow_data: unknown;
  output_user_id: string | null;
  output_status: string | null;
  started: boolean;
}

/** Reads the job, the step (before the claim), the previous step's output, the workflow's data and the output, and applies node_started. Null: no such job. */
export async function claimStep(db: Db, c: ClaimStatement): Promise<ClaimedStep | null> {
  const s = c.start;
  const [row] = await runNamed<ClaimRow>(db, CLAIM, {
    job: s.jobId,
    step_order: s.stepOrder,
    attempt: s.retryAttempt,
    workflow_id: c.workflowId,
    with_job_data: c.withJobData,
    one_step: c.oneStep,
    to: s.to,
    job_from: s.jobFrom,
    step_from: s.stepFrom,
    queue_job_id: s.queueJobId,
    output: s.outputId,
    output_from: s.outputFrom,
    history_status: s.history.status,
    history_message: s.history.message,
    history_data: JSON.stringify(s.history.data),
  });
  if (!row) return null;
  return {
    job: { id: row.id, status: row.status, retry_count: row.retry_count, priority: row.priority, output_id: row.output_id, data: row.data },
    step: row.step_status === null ? null : { status: row.step_status, output_data: row.step_output },
    previousOutput: row.previous_output,
    workflowData: row.workflow_data,
    outputUserId: row.output_user_id,
    outputStatus: row.output_status,
    started: row.started,
  };
}

const FINISH = namedStatement(
  'finish_last_step',
  `with jb as (select status, retry_count from jobs where id = :job::text),
   st as (select status from job_steps where job_id = :job::text and step_order = :step_order::int and retry_attempt = :attempt::int),
   -- a one-step job without a step row is its own step
   virtual as (select 1 where :one_step::boolean and not exists (select 1 from st)),
   open_job as (select 1 from jb where status = any(:job_in::text[]) and retry_count = :attempt::int),
   s as (
     update job_steps set status = :step_to::varchar, output_data = :step_output::jsonb, completed_at = now(), updated_at = now(),
       error_message = null
     where job_id = :job::text and step_order = :step_order::int and retry_attempt = :attempt::int and status <> :step_to::varchar
       and exists (select 1 from open_job)
     returning job_id),
   f as (
     insert into flat_files (url, mime_type, size, user_id, rel_type)
     select :file_key::text, :mime_type::varchar, :size::int, :owner::text, :rel_type::varchar
     where exists (select 1 from open_job)
       and exists (select 1 from outputs where id = :output::uuid and status = any(:output_from::text[]))
     returning id),
   o as (
     update outputs set status = :output_to::varchar, url = :url::text, mime_type = :mime_type::varchar,
       thumbnail_url = coalesce(:thumbnail_url::text, thumbnail_url), flat_file_id = (select id from f),
       output_metadata = :output_metadata::jsonb, completed_at = now(), updated_at = now(), error_message = null,
       -- a minted token's ERC-721 document gets its artwork
       token_metadata = case when token_metadata is null then null else token_metadata || jsonb_build_object('image', :url::text) end
     where id = :output::uuid and status = any(:output_from::text[]) and exists (select 1 from f)
     returning id, url, mime_type, thumbnail_url, flat_file_id),
   v as (
     select id, url, mime_type, thumbnail_url, flat_file_id from o
     union all
     select id, url, mime_type, thumbnail_url, flat_file_id from outputs where id = :output::uuid and not exists (select 1 from o)),
   j as (
     update jobs set status = :job_to::varchar, progress = 100, workflow_output = coalesce((select url from v), :url::text),
       error_message = null, completed_at = now(), updated_at = now(),
       step_output = case when :one_step::boolean then :step_output::jsonb else step_output end,
       data = data || jsonb_build_object('outputs', coalesce((select jsonb_agg(jsonb_build_object('id', id, 'url', url,
         'mime_type', mime_type, 'thumbnail_url', thumbnail_url, 'flat_file_id', flat_file_id)) from v), '[]'::jsonb))
     where id = :job::text and status = any(:job_in::text[]) and retry_count = :attempt::int
     returning id, workflow_output),
   -- one entry: the step's completion with the job's; the step's own only if the job did not complete
   h as (
     insert into job_history (job_id, status, message, progress, data)
     select id, :history_status::varchar, :history_message::text, 100::real,
       :history_data::jsonb || jsonb_build_object('workflow_output', workflow_output) from j
     union all
     select job_id, :step_history_status::varchar, :step_history_message::text, :step_progress::real, :step_history_data::jsonb
     from s where not exists (select 1 from j))
   select (select count(*)::int from s) + case when exists (select 1 from virtual) then (select count(*)::int from j) else 0 end as step_changed,
     coalesce((select status from st), (select status from jb, virtual where retry_count = :attempt::int)) as step_status,
     (select count(*)::int from j) as job_completed, (select status from jb) as job_status, (select retry_count from jb) as job_retry_count`,
);

interface FinishRow {
  step_changed: number;
  step_status: string | null;
  job_completed: number;
  job_status: string | null;
  job_retry_count: number | null;
}

/**
 * The end of a generation in one statement: the last step completed, the flat file (only while
 * the output is open), the output's completion (conditional), and the job's completion with its
 * history entry, which records the step's completion too (applied once), all only while the job
 * is open in this attempt. When
 * another finisher completed the output first, the job records what that one wrote.
 */
export async function finishLastStep(db: Db, s: LastStepStatement): Promise<LastStepResult> {
  const f = s.file;
  const st = s.step;
  const [row] = await runNamed<FinishRow>(db, FINISH, {
    job: st.jobId,
    step_order: st.stepOrder,
    attempt: st.retryAttempt,
    job_in: s.jobIn,
    one_step: s.oneStep,
    step_to: st.to,
    step_output: JSON.stringify(st.output),
    step_progress: st.progress,
    step_history_status: st.history.status,
    step_history_message: st.history.message,
    step_history_data: JSON.stringify(st.history.data),
    file_key: f.key,
    mime_type: f.mimeType,
    size: f.size,
    owner: f.ownerId,
    rel_type: f.relType,
    url: f.url,
    output: s.outputId,
    output_from: s.outputFrom,
    output_to: s.outputTo,
    thumbnail_url: s.thumbnailUrl,
    output_metadata: JSON.stringify(s.outputMetadata),
    job_to: s.jobTo,
    history_status: s.history.status,
    history_message: s.history.message,
    history_data: JSON.stringify(s.history.data),
  });
  return {
    stepChanged: (row?.step_changed ?? 0) > 0,
    stepStatus: row?.step_status ?? null,
    jobCompleted: (row?.job_completed ?? 0) > 0,
    jobStatus: row?.job_status ?? null,
    jobRetryCount: row?.job_retry_count ?? null,
  };
}

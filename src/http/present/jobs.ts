/** Jobs, their steps, history and retry backups as the API shows them (docs/api/content.md §2.4, §6.1). */
import type { FlatFileRow } from '../../db/flat-files.ts';
import type { JobHistoryRow, JobRow, JobStepRow } from '../../db/jobs.ts';
import { iso } from '../../domain/time.ts';
import type { JobForensics } from '../../services/jobs.ts';

export function presentJob(row: JobRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    status: row.status,
    progress: row.progress,
    error_message: row.error_message,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
    started_at: iso(row.started_at),
    completed_at: iso(row.completed_at),
    job_type: row.job_type,
    priority: row.priority,
    workflow_id: row.workflow_id,
    workflow_output: row.workflow_output,
    retry_count: row.retry_count,
    data: row.data as Record<string, unknown>,
    user_id: row.user_id,
    collection_id: row.collection_id,
    output_id: row.output_id,
  };
}
export type JobView = ReturnType<typeof presentJob>;

export function presentStep(row: JobStepRow) {
  return {
    id: row.id,
    job_id: row.job_id,
    step_name: row.step_name,
    step_type: row.step_type,
    step_order: row.step_order,
    status: row.status,
    input_data: row.input_data ?? null,
    output_data: row.output_data ?? null,
    retry_attempt: row.retry_attempt,
    error_message: row.error_message,
    queue_job_id: row.queue_job_id,
    started_at: iso(row.started_at),
    completed_at: iso(row.completed_at),
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

export function presentHistory(row: JobHistoryRow) {
  return {
    id: row.id,
    job_id: row.job_id,
    status: row.status,
    message: row.message,
    progress: row.progress,
    data: row.data ?? null,
    created_at: iso(row.created_at)!,
  };
}
export type HistoryView = ReturnType<typeof presentHistory>;

/** GET /api/jobs/:jobId/forensics: the job, its payload with the flat files of its outputs, steps, history, backups. */
export function presentForensics(f: JobForensics, publicUrl: (key: string) => string) {
  const data = f.job.data as Record<string, unknown>;
  return {
    ...presentJob(f.job),
    payload: {
      ...data,
      _flat_files: f.flatFiles.map((file: FlatFileRow) => ({
        id: file.id,
        url: publicUrl(file.url),
        mime_type: file.mime_type,
        stream_asset_id: file.stream_asset_id,
        stream_playback_id: file.stream_playback_id,
      })),
    },
    steps: f.steps.map(presentStep),
    history: f.history.map(presentHistory),
    retry_backups: f.backups.map((b) => ({ ...b, backed_up_at: iso(b.backed_up_at)! })),
  };
}

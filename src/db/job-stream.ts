/**
 * The SSE stream's reads (services/job-stream-hub.ts, docs/jobs.md "SSE stream"): jobs and their
 * new history entries, whatever the number of jobs, in one snapshot. Both statements run in one
 * REPEATABLE READ transaction, so a job_update is never older than the entries it travels with
 * (the console showed "0 %" beside a 40 % entry when the job was read first), and a terminal status
 * never arrives without its entry (it is written in the same transaction as the status).
 */
import { and, asc, eq, gt, inArray, or } from 'drizzle-orm';
import type { Db } from './client.ts';
import type { JobHistoryRow, JobRow } from './jobs.ts';
import { jobHistory, jobs } from './schema/index.ts';

export interface StreamCursor {
  jobId: string;
  afterId: number;
}

/**
 * The jobs named by `cursors` and the history entries of each after its own cursor, oldest first,
 * at most `limit` in all (each job's entries are then the oldest after its cursor, so a cut page is
 * resumed from there).
 */
export async function streamSnapshot(
  db: Db,
  cursors: readonly StreamCursor[],
  limit: number,
): Promise<{ jobs: JobRow[]; history: JobHistoryRow[] }> {
  if (cursors.length === 0) return { jobs: [], history: [] };
  return db.transaction(
    async (t) => {
      const found = await t
        .select()
        .from(jobs)
        .where(
          inArray(
            jobs.id,
            cursors.map((c) => c.jobId),
          ),
        );
      const history = await t
        .select()
        .from(jobHistory)
        .where(or(...cursors.map((c) => and(eq(jobHistory.job_id, c.jobId), gt(jobHistory.id, c.afterId)))))
        .orderBy(asc(jobHistory.id))
        .limit(limit);
      return { jobs: found, history };
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}

/**
 * The SSE hub's reads (services/job-stream-hub.ts, docs/jobs.md "SSE stream"): the jobs woken in
 * one turn and their new history entries, in two statements whatever the number of jobs. The jobs
 * are read before their history, so a terminal status is never seen without its entry.
 */
import { and, asc, eq, gt, inArray, or } from 'drizzle-orm';
import type { Db } from './client.ts';
import type { JobHistoryRow, JobRow } from './jobs.ts';
import { jobHistory, jobs } from './schema/index.ts';

export async function jobsByIds(db: Db, ids: string[]): Promise<JobRow[]> {
  if (ids.length === 0) return [];
  return db.select().from(jobs).where(inArray(jobs.id, ids));
}

/**
 * The history entries of each job after its own cursor, oldest first, at most `limit` in all
 * (each job's entries are then the oldest after its cursor, so a cut page is resumed from there).
 */
export async function historyAfterEach(
  db: Db,
  cursors: Array<{ jobId: string; afterId: number }>,
  limit: number,
): Promise<JobHistoryRow[]> {
  if (cursors.length === 0) return [];
  return db
    .select()
    .from(jobHistory)
    .where(or(...cursors.map((c) => and(eq(jobHistory.job_id, c.jobId), gt(jobHistory.id, c.afterId)))))
    .orderBy(asc(jobHistory.id))
    .limit(limit);
}

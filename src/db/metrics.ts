/** Aggregates for /metrics (src/http/metrics.ts): counts and ages only, never ids or addresses of users. */
import { sql } from 'drizzle-orm';
import { type Executor, rows } from './client.ts';
import { oneStepJobSql } from './jobs.ts';

/** Jobs by status. */
export function jobsByState(db: Executor): Promise<Array<{ status: string; n: number }>> {
  return rows(db, sql`SELECT status, count(*)::int AS n FROM jobs GROUP BY status`);
}

/**
 * Generation steps waiting for a worker (the queue's depth, whichever queue store) and the oldest
 * one's age. A pending one-step job without a step row is its own pending step (docs/jobs.md "One-step jobs").
 */
export async function pendingSteps(db: Executor): Promise<{ n: number; oldest_s: number }> {
  const [r] = await rows<{ n: number; oldest_s: number | null }>(
    db,
    sql`SELECT count(*)::int AS n, extract(epoch FROM now() - min(created_at))::float8 AS oldest_s FROM (
          SELECT s.created_at FROM job_steps s JOIN jobs j ON j.id = s.job_id
          WHERE s.status = 'pending' AND j.status IN ('pending', 'processing')
          UNION ALL
          -- waiting since its attempt began: the job's creation, or the retry that queued it again
          -- (nothing else changes a pending job, so that is its updated_at; created_at is the first attempt's)
          SELECT j.updated_at FROM jobs j
          WHERE j.status = 'pending' AND ${sql.raw(oneStepJobSql('j.data'))}
            AND NOT EXISTS (SELECT 1 FROM job_steps s WHERE s.job_id = j.id AND s.retry_attempt = j.retry_count)) w`,
  );
  return { n: r?.n ?? 0, oldest_s: r?.oldest_s ?? 0 };
}

/** Per chain and wallet: transactions not final yet, and the highest nonce recorded. */
export function txSenderState(
  db: Executor,
): Promise<Array<{ chain_id: number; from_address: string; pending: number; max_nonce: number | null }>> {
  return rows(
    db,
    sql`SELECT chain_id, lower(from_address) AS from_address,
               count(*) FILTER (WHERE status IN ('queued', 'signed', 'sent'))::int AS pending,
               max(nonce) FILTER (WHERE status IN ('signed', 'sent', 'mined', 'reverted'))::int AS max_nonce
        FROM chain_transactions GROUP BY chain_id, lower(from_address)`,
  );
}

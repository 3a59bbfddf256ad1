/**
 * Leases of singleton duties (schema/ops.ts). Every time is the database's clock, so processes
 * on machines with skewed clocks agree on who holds a lease.
 */
import { sql } from 'drizzle-orm';
import { type Executor, firstRow, rows } from './client.ts';

/**
 * Takes the lease `name` for `holder` for `ttlMs`, or renews it when `holder` already has it.
 * True when `holder` holds it afterwards; false while another holder's lease has not expired.
 */
export async function acquireLease(db: Executor, name: string, holder: string, ttlMs: number): Promise<boolean> {
  const row = await firstRow<{ holder: string }>(
    db,
    sql`INSERT INTO leases (name, holder, expires_at, acquired_at)
        VALUES (${name}, ${holder}, now() + make_interval(secs => ${ttlMs / 1000}), now())
        ON CONFLICT (name) DO UPDATE SET
          holder = excluded.holder,
          expires_at = excluded.expires_at,
          acquired_at = CASE WHEN leases.holder = excluded.holder THEN leases.acquired_at ELSE now() END
        WHERE leases.holder = excluded.holder OR leases.expires_at < now()
        RETURNING holder`,
  );
  return row?.holder === holder;
}

/** Gives the lease up (a clean stop): the next candidate takes it on its next attempt. */
export async function releaseLease(db: Executor, name: string, holder: string): Promise<void> {
  await db.execute(sql`DELETE FROM leases WHERE name = ${name} AND holder = ${holder}`);
}

/**
 * Forgets every lease: only for a database no other process can use (PGlite, whose data directory
 * is locked by this process), where any recorded holder is a process that died.
 */
export async function clearLeases(db: Executor): Promise<void> {
  await db.execute(sql`DELETE FROM leases`);
}

export interface LeaseRow {
  name: string;
  holder: string;
  expires_at: Date | string;
  acquired_at: Date | string;
}

/** Who holds the lease `name` now (unexpired, by the database's clock), or undefined. */
export async function liveLeaseHolder(db: Executor, name: string): Promise<string | undefined> {
  const row = await firstRow<{ holder: string }>(db, sql`SELECT holder FROM leases WHERE name = ${name} AND expires_at > now()`);
  return row?.holder;
}

/** Every lease, current or expired (docs/operations.md; tests). */
export function listLeases(db: Executor): Promise<LeaseRow[]> {
  return rows<LeaseRow>(db, sql`SELECT name, holder, expires_at, acquired_at FROM leases ORDER BY name`);
}

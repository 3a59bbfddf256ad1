/**
 * The `idempotency_keys` table (Idempotency-Key header): one row per (scope, key), inserted
 * `in_progress` with the request's hash (its `updated_at` is the holder's lease, renewed while it
 * runs), completed with the response, or deleted so a retry runs again. The protocol over these statements (wait, replay, refuse) is services/idempotency.ts.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from './client.ts';
import { idempotencyKeys } from './schema/index.ts';

export interface IdempotencyRow {
  status: string;
  statusCode: number | null;
  requestHash: string | null;
  body: unknown;
}

/** Inserts the key `in_progress`; false when the (scope, key) row exists already. */
export async function insertIdempotencyKey(db: Db, scope: string, key: string, hash: string): Promise<boolean> {
  const inserted = await db
    .insert(idempotencyKeys)
    .values({ scope, key, status: 'in_progress', response: { request_hash: hash } })
    .onConflictDoNothing()
    .returning({ key: idempotencyKeys.key });
  return inserted.length > 0;
}

export async function readIdempotencyKey(db: Db, scope: string, key: string): Promise<IdempotencyRow | undefined> {
  const [row] = await db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key)));
  if (!row) return undefined;
  const stored = row.response as { request_hash?: string; body?: unknown } | null;
  return { status: row.status, statusCode: row.status_code, requestHash: stored?.request_hash ?? null, body: stored?.body ?? null };
}

export async function finishIdempotencyKey(db: Db, scope: string, key: string, hash: string, statusCode: number, body: unknown) {
  await db
    .update(idempotencyKeys)
    .set({ status: 'completed', status_code: statusCode, response: { request_hash: hash, body }, updated_at: sql`now()` })
    .where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key)));
}

export async function releaseIdempotencyKey(db: Db, scope: string, key: string) {
  await db.delete(idempotencyKeys).where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key)));
}

/** Takes over an `in_progress` key whose holder has not renewed it for `leaseMs` (one caller wins). */
export async function takeOverIdempotencyKey(db: Db, scope: string, key: string, leaseMs: number): Promise<boolean> {
  const taken = await db
    .update(idempotencyKeys)
    .set({ updated_at: sql`now()` })
    .where(
      and(
        eq(idempotencyKeys.scope, scope),
        eq(idempotencyKeys.key, key),
        eq(idempotencyKeys.status, 'in_progress'),
        sql`${idempotencyKeys.updated_at} < now() - make_interval(secs => ${leaseMs / 1000})`,
      ),
    )
    .returning({ key: idempotencyKeys.key });
  return taken.length > 0;
}

/** The holder's heartbeat on an `in_progress` key. */
export async function renewIdempotencyKey(db: Db, scope: string, key: string): Promise<void> {
  await db
    .update(idempotencyKeys)
    .set({ updated_at: sql`now()` })
    .where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key), eq(idempotencyKeys.status, 'in_progress')));
}

/**
 * Request idempotency (`Idempotency-Key` header) over the `idempotency_keys` table. The first
 * request with a (scope, key) records `in_progress`; a concurrent duplicate waits for it (up to
 * `waitMs`, then 409); a later duplicate gets the stored response. The same key with a different
 * request body is refused (422-like 409). Responses of 5xx are not stored: the row is removed so
 * a retry runs again (the tx sender's own idempotency key keeps the chain write single).
 */
import { createHash } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from './client.ts';
import { idempotencyKeys } from './schema/index.ts';
import { conflict } from '../domain/errors.ts';

export interface StoredResponse {
  statusCode: number;
  body: unknown;
}

export const requestHash = (body: unknown) =>
  createHash('sha256')
    .update(JSON.stringify(body ?? null))
    .digest('hex');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Returns null when this caller owns the key now, or the stored response to replay. */
export async function beginIdempotent(db: Db, scope: string, key: string, hash: string, waitMs = 60_000): Promise<StoredResponse | null> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const inserted = await db
      .insert(idempotencyKeys)
      .values({ scope, key, status: 'in_progress', response: { request_hash: hash } })
      .onConflictDoNothing()
      .returning({ key: idempotencyKeys.key });
    if (inserted.length > 0) return null;
    const [row] = await db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key)));
    if (!row) continue; // released between the insert and the read: try again
    const stored = row.response as { request_hash?: string; body?: unknown } | null;
    if (stored?.request_hash && stored.request_hash !== hash) {
      throw conflict('Idempotency-Key was already used with a different request body', { code: 'IDEMPOTENCY_KEY_REUSED' });
    }
    if (row.status === 'completed') return { statusCode: row.status_code ?? 200, body: stored?.body ?? null };
    if (Date.now() > deadline) {
      throw conflict('a request with this Idempotency-Key is still in progress; retry later', { code: 'IDEMPOTENCY_IN_PROGRESS' });
    }
    await sleep(100);
  }
}

export async function finishIdempotent(db: Db, scope: string, key: string, hash: string, res: StoredResponse) {
  await db
    .update(idempotencyKeys)
    .set({ status: 'completed', status_code: res.statusCode, response: { request_hash: hash, body: res.body }, updated_at: sql`now()` })
    .where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key)));
}

export async function releaseIdempotent(db: Db, scope: string, key: string) {
  await db.delete(idempotencyKeys).where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key)));
}

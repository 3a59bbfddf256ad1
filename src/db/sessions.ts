/**
 * Platform sessions (docs/auth.md "Sessions"): opened by a Sign-In with Ethereum login, checked
 * by every replica in this table, ended by sign-out or their expiry. Only the token's SHA-256 is
 * stored; the token itself is shown once, to the client that signed in.
 */
import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import { SESSION_TOKEN_PREFIX } from '../domain/credentials.ts';
import type { Db } from './client.ts';
import { userSessions } from './schema/index.ts';

export const hashSessionToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export interface OpenedSession {
  id: string;
  token: string;
  expires_at: Date;
}

/** A new session of `userId`, valid for `ttlSeconds` (the database's clock decides the expiry). */
export async function openSession(
  db: Db,
  userId: string,
  opts: { method: string; address?: string | null; ttlSeconds: number },
): Promise<OpenedSession> {
  const token = SESSION_TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const [row] = await db
    .insert(userSessions)
    .values({
      user_id: userId,
      token_hash: hashSessionToken(token),
      method: opts.method,
      address: opts.address ?? null,
      expires_at: sql`now() + make_interval(secs => ${opts.ttlSeconds})`,
    })
    .returning({ id: userSessions.id, expires_at: userSessions.expires_at });
  return { id: row!.id, token, expires_at: row!.expires_at };
}

/**
 * The live session of a token (not revoked, not expired), or null. `last_used_at` is written at
 * most once a minute per session, so a console polling every few seconds does not write a row
 * per request.
 */
export async function findLiveSession(db: Db, token: string): Promise<{ id: string; user_id: string } | null> {
  const [row] = await db
    .select({ id: userSessions.id, user_id: userSessions.user_id, last_used_at: userSessions.last_used_at })
    .from(userSessions)
    .where(
      and(eq(userSessions.token_hash, hashSessionToken(token)), isNull(userSessions.revoked_at), gt(userSessions.expires_at, sql`now()`)),
    );
  if (!row) return null;
  if (!row.last_used_at || Date.now() - row.last_used_at.getTime() > 60_000) {
    await db.update(userSessions).set({ last_used_at: sql`now()` }).where(eq(userSessions.id, row.id));
  }
  return { id: row.id, user_id: row.user_id };
}

/** Ends a live session of `userId`: true when it was live (and is now revoked). */
export async function revokeSession(db: Db, id: string, userId: string): Promise<boolean> {
  const rows = await db
    .update(userSessions)
    .set({ revoked_at: sql`now()` })
    .where(and(eq(userSessions.id, id), eq(userSessions.user_id, userId), isNull(userSessions.revoked_at)))
    .returning({ id: userSessions.id });
  return rows.length === 1;
}

/** Drops sessions expired or revoked for a day (housekeeping at each login). */
export async function pruneSessions(db: Db): Promise<void> {
  await db.delete(userSessions).where(sql`coalesce(${userSessions.revoked_at}, ${userSessions.expires_at}) < now() - interval '1 day'`);
}

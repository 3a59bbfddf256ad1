/** User API keys: the plaintext is returned once; only its SHA-256 is stored. */
import { createHash, randomBytes } from 'node:crypto';
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from './client.ts';
import { USER_KEY_PREFIX } from '../domain/credentials.ts';
import { apiKeys } from './schema/index.ts';

export { USER_KEY_PREFIX };

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export async function createApiKey(db: Db, userId: string, name: string) {
  const key = USER_KEY_PREFIX + randomBytes(24).toString('base64url');
  const [row] = await db
    .insert(apiKeys)
    .values({ user_id: userId, name, key_hash: hashApiKey(key), key_prefix: key.slice(0, 12) })
    .returning({ id: apiKeys.id, name: apiKeys.name, key_prefix: apiKeys.key_prefix, created_at: apiKeys.created_at });
  return { ...row!, key };
}

/** The owning user id of an active key, or null. */
export async function verifyApiKey(db: Db, key: string): Promise<string | null> {
  const rows = await db
    .update(apiKeys)
    .set({ last_used_at: sql`now()` })
    .where(and(eq(apiKeys.key_hash, hashApiKey(key)), isNull(apiKeys.revoked_at)))
    .returning({ user_id: apiKeys.user_id });
  return rows[0]?.user_id ?? null;
}

export async function revokeApiKey(db: Db, userId: string, id: string): Promise<boolean> {
  const rows = await db
    .update(apiKeys)
    .set({ revoked_at: sql`now()` })
    .where(and(eq(apiKeys.id, id), eq(apiKeys.user_id, userId), isNull(apiKeys.revoked_at)))
    .returning({ id: apiKeys.id });
  return rows.length > 0;
}

export async function listApiKeys(db: Db, userId: string) {
  return db
    .select({
      id: apiKeys.id,
      name: apiKeys.name,
      key_prefix: apiKeys.key_prefix,
      created_at: apiKeys.created_at,
      last_used_at: apiKeys.last_used_at,
      revoked_at: apiKeys.revoked_at,
    })
    .from(apiKeys)
    .where(eq(apiKeys.user_id, userId))
    .orderBy(apiKeys.created_at);
}

/** A key's owner and state (never its hash), or null. */
export async function findApiKey(db: Db, id: string): Promise<{ id: string; user_id: string; revoked_at: Date | null } | null> {
  const [row] = await db
    .select({ id: apiKeys.id, user_id: apiKeys.user_id, revoked_at: apiKeys.revoked_at })
    .from(apiKeys)
    .where(eq(apiKeys.id, id));
  return row ?? null;
}

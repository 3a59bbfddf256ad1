/**
 * The universal user identity model (docs/api/content.md §2.8): an external account
 * (provider, provider_user_id) maps to one internal user.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Db, Executor } from './client.ts';
import { userIdentities, users } from './schema/index.ts';
import { UUID_RE } from '../domain/ids.ts';

export interface ExternalAccount {
  provider: string;
  providerUserId: string;
  email?: string | null;
  /** The provider vouches for `email` (`email_verified: true`): only then does it link accounts. */
  emailVerified?: boolean;
  displayName?: string | null;
  avatarUrl?: string | null;
  metadata?: Record<string, unknown>;
}

/**
 * Rules 1–3: existing identity → its user; else a user with the same *verified* email gets the
 * new identity; else a new user and identity. An unverified email never links and is not the new
 * user's email either (else it would later attract the real owner's verified login): it is kept
 * only on the identity. Concurrent first logins of one account converge on one identity thanks
 * to the unique (provider, provider_user_id) index.
 */
export async function resolveUser(db: Db, account: ExternalAccount): Promise<string> {
  const email = account.emailVerified ? (account.email ?? null) : null;
  const found = await db
    .update(userIdentities)
    .set({ last_used_at: sql`now()` })
    .where(and(eq(userIdentities.provider, account.provider), eq(userIdentities.provider_user_id, account.providerUserId)))
    .returning({ user_id: userIdentities.user_id });
  if (found[0]) {
    await fillProfile(db, found[0].user_id, account);
    return found[0].user_id;
  }

  return db.transaction(async (tx) => {
    let userId: string | undefined;
    if (email) {
      const byEmail = await tx.select({ id: users.id }).from(users).where(eq(users.email, email)).limit(1);
      userId = byEmail[0]?.id;
      if (userId) await fillProfile(tx, userId, account);
    }
    if (!userId) {
      const created = await tx
        .insert(users)
        .values({
          email,
          display_name: account.displayName ?? null,
          avatar_url: account.avatarUrl ?? null,
          last_login_at: new Date(),
        })
        .onConflictDoNothing()
        .returning({ id: users.id });
      userId = created[0]?.id;
      if (!userId && email) {
        const again = await tx.select({ id: users.id }).from(users).where(eq(users.email, email)).limit(1);
        userId = again[0]?.id;
      }
      if (!userId) throw new Error('could not create user');
    }
    const inserted = await tx
      .insert(userIdentities)
      .values({
        user_id: userId,
        provider: account.provider,
        provider_user_id: account.providerUserId,
        provider_email: account.email ?? null,
        provider_metadata: account.metadata ?? null,
        last_used_at: new Date(),
      })
      .onConflictDoNothing()
      .returning({ user_id: userIdentities.user_id });
    if (inserted[0]) return inserted[0].user_id;
    const winner = await tx
      .select({ user_id: userIdentities.user_id })
      .from(userIdentities)
      .where(and(eq(userIdentities.provider, account.provider), eq(userIdentities.provider_user_id, account.providerUserId)));
    return winner[0]!.user_id;
  });
}

/**
 * The provider's display name and picture fill a user's blanks only: what the user set (PATCH
 * /api/me) or an earlier provider gave is kept. One conditional statement; nothing when the
 * token carries neither.
 */
async function fillProfile(db: Executor, userId: string, account: ExternalAccount) {
  const name = account.displayName ?? null;
  const avatar = account.avatarUrl ?? null;
  if (!name && !avatar) return;
  await db
    .update(users)
    .set({
      display_name: sql`coalesce(${users.display_name}, ${name}::text)`,
      avatar_url: sql`coalesce(${users.avatar_url}, ${avatar}::text)`,
      updated_at: sql`now()`,
    })
    .where(
      and(
        eq(users.id, userId),
        sql`((${users.display_name} is null and ${name}::text is not null) or (${users.avatar_url} is null and ${avatar}::text is not null))`,
      ),
    );
}

/** The user's account id at `provider` (for example their fid at provider_e), or null. */
export async function providerUserIdOf(db: Db, userId: string, provider: string): Promise<string | null> {
  // user_identities.user_id is a uuid: an id that is not one (a provider-id fallback) has none.
  if (!UUID_RE.test(userId)) return null;
  const [row] = await db
    .select({ id: userIdentities.provider_user_id })
    .from(userIdentities)
    .where(and(eq(userIdentities.user_id, userId), eq(userIdentities.provider, provider)))
    .limit(1);
  return row?.id ?? null;
}

/**
 * The universal user identity model (content-service.md §2.8): an external account
 * (provider, provider_user_id) maps to one internal user.
 */
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db } from './client.ts';
import { userIdentities, users } from './schema/index.ts';
import { UUID_RE } from '../domain/ids.ts';

export interface ExternalAccount {
  provider: string;
  providerUserId: string;
  email?: string | null;
  displayName?: string | null;
  avatarUrl?: string | null;
  metadata?: Record<string, unknown>;
}

/**
 * Rules 1–3: existing identity → its user; else a user with the same email gets the new
 * identity; else a new user and identity. Concurrent first logins of one account converge on one
 * identity thanks to the unique (provider, provider_user_id) index.
 */
export async function resolveUser(db: Db, account: ExternalAccount): Promise<string> {
  const found = await db
    .update(userIdentities)
    .set({ last_used_at: sql`now()` })
    .where(and(eq(userIdentities.provider, account.provider), eq(userIdentities.provider_user_id, account.providerUserId)))
    .returning({ user_id: userIdentities.user_id });
  if (found[0]) return found[0].user_id;

  return db.transaction(async (tx) => {
    let userId: string | undefined;
    if (account.email) {
      const byEmail = await tx.select({ id: users.id }).from(users).where(eq(users.email, account.email)).limit(1);
      userId = byEmail[0]?.id;
    }
    if (!userId) {
      const created = await tx
        .insert(users)
        .values({
          email: account.email ?? null,
          display_name: account.displayName ?? null,
          avatar_url: account.avatarUrl ?? null,
          last_login_at: new Date(),
        })
        .onConflictDoNothing()
        .returning({ id: users.id });
      userId = created[0]?.id;
      if (!userId && account.email) {
        const again = await tx.select({ id: users.id }).from(users).where(eq(users.email, account.email)).limit(1);
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

/** The user's account id at `provider` (for example their fid at provider_e), or null. */
/** The provider of wallets a user proved with a signature (Sign-In with Ethereum, docs/permissions.md). */
export const WALLET_PROVIDER = 'wallet';

/**
 * The wallet a user linked most recently (a `user_identity` of the wallet provider), or null: the
 * default owner of the contracts they deploy. Anything that is not an address is ignored.
 */
export async function linkedWalletOf(db: Db, userId: string): Promise<string | null> {
  if (!UUID_RE.test(userId)) return null;
  const rows = await db
    .select({ id: userIdentities.provider_user_id })
    .from(userIdentities)
    .where(and(eq(userIdentities.user_id, userId), eq(userIdentities.provider, WALLET_PROVIDER)))
    .orderBy(desc(userIdentities.linked_at));
  return rows.map((r) => r.id).find((id) => /^0x[0-9a-fA-F]{40}$/.test(id)) ?? null;
}

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

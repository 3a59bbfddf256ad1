/** Users beyond first resolution: profile reads and the atomic merge (docs/api/content.md §2.8 rule 4). */
import { eq, sql } from 'drizzle-orm';
import { invalid, notFound } from '../domain/errors.ts';
import type { Db } from './client.ts';
import { apiKeys, collections, creditBalances, decks, flatFiles, jobs, outputs, samples, userIdentities, users } from './schema/index.ts';

export async function getUserWithIdentities(db: Db, id: string) {
  const [user] = await db.select().from(users).where(eq(users.id, id));
  if (!user) throw notFound(`user ${id}`);
  const identities = await db
    .select({
      id: userIdentities.id,
      provider: userIdentities.provider,
      provider_user_id: userIdentities.provider_user_id,
      provider_email: userIdentities.provider_email,
      linked_at: userIdentities.linked_at,
      last_used_at: userIdentities.last_used_at,
    })
    .from(userIdentities)
    .where(eq(userIdentities.user_id, id));
  return { ...user, identities };
}

/** The user's own display name and avatar (undefined: unchanged; null: cleared). 404 for no such user. */
export async function updateProfile(db: Db, id: string, patch: { displayName?: string | null; avatarUrl?: string | null }) {
  const [row] = await db
    .update(users)
    .set({
      ...(patch.displayName !== undefined ? { display_name: patch.displayName } : {}),
      ...(patch.avatarUrl !== undefined ? { avatar_url: patch.avatarUrl } : {}),
      updated_at: sql`now()`,
    })
    .where(eq(users.id, id))
    .returning({ id: users.id });
  if (!row) throw notFound(`user ${id}`);
}

/** Tables whose `user_id` column names an owner; a merge moves every row. */
const OWNED = [collections, decks, outputs, flatFiles, jobs, samples, apiKeys] as const;

/**
 * Moves every owned record and identity of `secondary` to `primary`, adds the credit balances,
 * and deletes `secondary`, in one transaction: either all of it happens or none.
 */
export async function mergeUsers(db: Db, primary: string, secondary: string) {
  if (primary === secondary) throw invalid('body.secondary_user_id: cannot merge a user into itself');
  return db.transaction(async (tx) => {
    const found = await tx.select({ id: users.id }).from(users).where(sql`${users.id} in (${primary}, ${secondary})`).for('update');
    if (!found.some((u) => u.id === primary)) throw notFound(`user ${primary}`);
    if (!found.some((u) => u.id === secondary)) throw notFound(`user ${secondary}`);
    const moved: Record<string, number> = {};
    for (const table of OWNED) {
      const rows = await tx.update(table).set({ user_id: primary }).where(eq(table.user_id, secondary)).returning({ id: sql`1` });
      moved[(table as unknown as { [k: symbol]: string })[Symbol.for('drizzle:Name')] ?? 'table'] = rows.length;
    }
    const identities = await tx
      .update(userIdentities)
      .set({ user_id: primary })
      .where(eq(userIdentities.user_id, secondary))
      .returning({ id: userIdentities.id });
    const [credit] = await tx.delete(creditBalances).where(eq(creditBalances.user_id, secondary)).returning();
    if (credit && credit.balance !== 0) {
      await tx
        .insert(creditBalances)
        .values({ user_id: primary, balance: credit.balance })
        .onConflictDoUpdate({ target: creditBalances.user_id, set: { balance: sql`${creditBalances.balance} + ${credit.balance}` } });
    }
    await tx.delete(users).where(eq(users.id, secondary));
    return { primary_user_id: primary, merged_user_id: secondary, identities_moved: identities.length, records_moved: moved };
  });
}

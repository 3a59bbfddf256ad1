/**
 * Credit balances (docs/api/content.md §7.4). Policy (docs/jobs.md): a user's balance row is
 * created with a starting grant (CREDITS_INITIAL_GRANT) the first time it is needed; each
 * generation costs CREDITS_PER_GENERATION, debited in one conditional statement; calls with the
 * service key are not charged; retries are free; a failed generation is not refunded (its retry is
 * free instead).
 */
import { and, eq, gte, sql } from 'drizzle-orm';
import { InsufficientCredits } from '../domain/credits.ts';

export { InsufficientCredits };
import type { Db } from './client.ts';
import { creditBalances } from './schema/index.ts';

/** Creates the balance row with the starting grant when the user has none. */
export async function ensureBalance(db: Db, userId: string, initialGrant: number): Promise<void> {
  await db.insert(creditBalances).values({ user_id: userId, balance: initialGrant }).onConflictDoNothing();
}

export async function getBalance(db: Db, userId: string, initialGrant: number): Promise<number> {
  await ensureBalance(db, userId, initialGrant);
  const [row] = await db.select({ balance: creditBalances.balance }).from(creditBalances).where(eq(creditBalances.user_id, userId));
  return row?.balance ?? 0;
}

/** Debits `amount` atomically or throws InsufficientCredits (402). Returns the new balance. */
export async function debitCredits(db: Db, userId: string, amount: number, initialGrant: number): Promise<number> {
  await ensureBalance(db, userId, initialGrant);
  const [row] = await db
    .update(creditBalances)
    .set({ balance: sql`${creditBalances.balance} - ${amount}`, updated_at: sql`now()` })
    .where(and(eq(creditBalances.user_id, userId), gte(creditBalances.balance, amount)))
    .returning({ balance: creditBalances.balance });
  if (row) return row.balance;
  const [current] = await db.select({ balance: creditBalances.balance }).from(creditBalances).where(eq(creditBalances.user_id, userId));
  throw new InsufficientCredits(amount, current?.balance ?? 0);
}

/** Adds credits (a refund of a generation that could not be submitted, or a grant). */
export async function addCredits(db: Db, userId: string, amount: number, initialGrant: number): Promise<number> {
  await ensureBalance(db, userId, initialGrant);
  const [row] = await db
    .update(creditBalances)
    .set({ balance: sql`${creditBalances.balance} + ${amount}`, updated_at: sql`now()` })
    .where(eq(creditBalances.user_id, userId))
    .returning({ balance: creditBalances.balance });
  return row?.balance ?? 0;
}

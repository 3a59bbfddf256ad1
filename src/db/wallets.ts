/**
 * Wallets proven by signature (docs/auth.md "Wallets"): Sign-In with Ethereum nonces and the
 * `wallet` identities they lead to. A nonce is issued to one user and consumed by one
 * conditional UPDATE, so it is accepted once even under concurrency; a wallet is a
 * `user_identities` row (provider `wallet`, provider_user_id the lowercase address), whose unique
 * (provider, provider_user_id) index keeps it on one user.
 */
import { and, asc, desc, eq, gt, isNull, sql } from 'drizzle-orm';
import { UUID_RE } from '../domain/ids.ts';
import type { Db } from './client.ts';
import { resolveUser } from './identity.ts';
import { userIdentities, walletNonces } from './schema/index.ts';

/** The identity provider of wallets proven by signature (docs/api/content.md §2.8 provider_d). */
export const WALLET_PROVIDER = 'wallet';

/** A nonce for `userId`'s wallet link, or (null) for a sign-in. */
export async function insertWalletNonce(db: Db, nonce: string, userId: string | null, ttlSeconds: number): Promise<Date> {
  const [row] = await db
    .insert(walletNonces)
    .values({ nonce, user_id: userId, expires_at: sql`now() + make_interval(secs => ${ttlSeconds})` })
    .returning({ expires_at: walletNonces.expires_at });
  return row!.expires_at;
}

/**
 * Uses a nonce once: true when it was unused, unexpired and issued to `userId` (null: a sign-in
 * nonce, issued to nobody) — and is now used. A link nonce never signs in, nor the reverse.
 */
export async function consumeWalletNonce(db: Db, nonce: string, userId: string | null): Promise<boolean> {
  const rows = await db
    .update(walletNonces)
    .set({ used_at: sql`now()` })
    .where(
      and(
        eq(walletNonces.nonce, nonce),
        userId === null ? isNull(walletNonces.user_id) : eq(walletNonces.user_id, userId),
        isNull(walletNonces.used_at),
        gt(walletNonces.expires_at, sql`now()`),
      ),
    )
    .returning({ nonce: walletNonces.nonce });
  return rows.length === 1;
}

/** Drops nonces expired for a day (housekeeping on issue; they can no longer be used anyway). */
export async function pruneWalletNonces(db: Db): Promise<void> {
  await db.delete(walletNonces).where(sql`${walletNonces.expires_at} < now() - interval '1 day'`);
}

export interface LinkedWallet {
  address: string;
  linked_at: Date;
  last_used_at: Date | null;
}

/**
 * Links `address` to `userId`: 'linked' (new), 'already' (it was this user's) or 'taken' (another
 * user holds it; nothing changes).
 */
export async function linkWallet(
  db: Db,
  userId: string,
  address: string,
  metadata: Record<string, unknown>,
): Promise<{ outcome: 'linked' | 'already' | 'taken'; wallet: LinkedWallet | null }> {
  const id = address.toLowerCase();
  const inserted = await db
    .insert(userIdentities)
    .values({ user_id: userId, provider: WALLET_PROVIDER, provider_user_id: id, provider_metadata: metadata, last_used_at: new Date() })
    .onConflictDoNothing()
    .returning();
  if (inserted[0]) return { outcome: 'linked', wallet: present(inserted[0]) };
  const [holder] = await db
    .update(userIdentities)
    .set({ last_used_at: sql`now()` })
    .where(and(eq(userIdentities.provider, WALLET_PROVIDER), eq(userIdentities.provider_user_id, id), eq(userIdentities.user_id, userId)))
    .returning();
  return holder ? { outcome: 'already', wallet: present(holder) } : { outcome: 'taken', wallet: null };
}

const present = (r: typeof userIdentities.$inferSelect): LinkedWallet => ({
  address: r.provider_user_id,
  linked_at: r.linked_at,
  last_used_at: r.last_used_at,
});

export async function listWallets(db: Db, userId: string): Promise<LinkedWallet[]> {
  const rows = await db
    .select()
    .from(userIdentities)
    .where(and(eq(userIdentities.user_id, userId), eq(userIdentities.provider, WALLET_PROVIDER)))
    .orderBy(asc(userIdentities.linked_at));
  return rows.map(present);
}

/** Whether `address` is a wallet `userId` proved (case-insensitive); a non-uuid user id has none. */
export async function isWalletOf(db: Db, userId: string, address: string): Promise<boolean> {
  if (!UUID_RE.test(userId)) return false;
  const [row] = await db
    .select({ id: userIdentities.id })
    .from(userIdentities)
    .where(
      and(
        eq(userIdentities.user_id, userId),
        eq(userIdentities.provider, WALLET_PROVIDER),
        sql`lower(${userIdentities.provider_user_id}) = ${address.toLowerCase()}`,
      ),
    )
    .limit(1);
  return row !== undefined;
}

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

/**
 * The user a proven wallet signs in as: the holder of its `wallet` identity, else a new user
 * holding it (identity rules 1 and 3; concurrent first sign-ins converge on one user through the
 * unique identity index).
 */
export function userOfWallet(db: Db, address: string, metadata: Record<string, unknown>): Promise<string> {
  return resolveUser(db, { provider: WALLET_PROVIDER, providerUserId: address.toLowerCase(), metadata });
}

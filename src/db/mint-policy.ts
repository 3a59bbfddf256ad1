/**
 * The SQL of public mints (docs/minting.md "Mint policy"): the per-wallet count, taken in one
 * conditional upsert (`minted + n <= limit`; DESIGN.md: counters that gate allowances change in
 * one statement), and mint payments, claimed once by their hash (the `payments` unique index
 * shared with samples: one transfer pays for one thing).
 */
import { and, eq, sql } from 'drizzle-orm';
import { paymentError } from '../domain/payment-errors.ts';
import type { Db } from './client.ts';
import { isUniqueViolation } from './errors.ts';
import type { PaymentRecord } from './samples.ts';
import { chainTransactions, mintWalletCounts, payments } from './schema/index.ts';

/** Counts n more mints for `wallet`: true when that stays within `limit` (else nothing changes). */
export async function takeWalletMints(db: Db, collectionId: string, wallet: string, n: number, limit: number): Promise<boolean> {
  if (n > limit) return false;
  const rows = await db
    .insert(mintWalletCounts)
    .values({ collection_id: collectionId, wallet: wallet.toLowerCase(), minted: n })
    .onConflictDoUpdate({
      target: [mintWalletCounts.collection_id, mintWalletCounts.wallet],
      set: { minted: sql`${mintWalletCounts.minted} + ${n}`, updated_at: sql`now()` },
      setWhere: sql`${mintWalletCounts.minted} + ${n} <= ${limit}`,
    })
    .returning({ minted: mintWalletCounts.minted });
  return rows.length === 1;
}

/** Gives back mints counted for a mint that did not happen. */
export async function returnWalletMints(db: Db, collectionId: string, wallet: string, n: number): Promise<void> {
  await db
    .update(mintWalletCounts)
    .set({ minted: sql`greatest(${mintWalletCounts.minted} - ${n}, 0)`, updated_at: sql`now()` })
    .where(and(eq(mintWalletCounts.collection_id, collectionId), eq(mintWalletCounts.wallet, wallet.toLowerCase())));
}

export async function walletMintCount(db: Db, collectionId: string, wallet: string): Promise<number> {
  const [row] = await db
    .select({ minted: mintWalletCounts.minted })
    .from(mintWalletCounts)
    .where(and(eq(mintWalletCounts.collection_id, collectionId), eq(mintWalletCounts.wallet, wallet.toLowerCase())));
  return row?.minted ?? 0;
}

/** Claims a verified mint payment: 409 PAYMENT_ALREADY_USED when the hash was accepted before. */
export async function claimMintPayment(db: Db, p: PaymentRecord, collectionId: string): Promise<string> {
  try {
    const [row] = await db
      .insert(payments)
      .values({
        chain_id: p.chainId,
        tx_hash: p.txHash.toLowerCase(),
        token_address: p.token,
        payer: p.payer,
        recipient: p.recipient,
        amount: p.amount.toString(),
        purpose: 'mint',
        collection_id: collectionId,
      })
      .returning({ id: payments.id });
    return row!.id;
  } catch (err) {
    if (isUniqueViolation(err, 'payments_chain_tx')) {
      throw paymentError('PAYMENT_ALREADY_USED', `body.tx_hash: transaction ${p.txHash} was already used to pay`);
    }
    throw err;
  }
}

/** Frees a claimed mint payment whose mint did not happen (the hash may pay again). */
export async function releaseMintPayment(db: Db, paymentId: string): Promise<void> {
  await db.delete(payments).where(eq(payments.id, paymentId));
}

/**
 * Whether a claimed mint payment belongs to an earlier run of the same request (same payer and
 * collection, and a mint transaction under the same sender key that is queued, sent or mined):
 * a retry after a timeout resumes it instead of being refused as a reused hash.
 */
export async function resumableMintPayment(
  db: Db,
  q: { chainId: number; txHash: string; payer: string; collectionId: string; senderKey: string },
): Promise<boolean> {
  const rows = await db
    .select({ id: payments.id })
    .from(payments)
    .innerJoin(chainTransactions, eq(chainTransactions.idempotency_key, q.senderKey))
    .where(
      and(
        eq(payments.chain_id, q.chainId),
        eq(payments.tx_hash, q.txHash.toLowerCase()),
        eq(payments.purpose, 'mint'),
        eq(payments.collection_id, q.collectionId),
        sql`lower(${payments.payer}) = ${q.payer.toLowerCase()}`,
        sql`${chainTransactions.status} in ('queued', 'signed', 'sent', 'mined')`,
      ),
    )
    .limit(1);
  return rows.length === 1;
}

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
export async function claimMintPayment(db: Db, p: PaymentRecord, collectionId: string, requestKey?: string): Promise<string> {
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
        request_key: requestKey ?? null,
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

/** How a retry meets a mint payment claimed by an earlier run of the same request. */
export type EarlierMintPayment =
  /** Its mint transaction is queued, sent or mined: the sender replays it. */
  | { kind: 'replay' }
  /** That run claimed the payment and died before recording a mint transaction: mint with it now. */
  | { kind: 'claimed'; paymentId: string; amount: bigint };

/**
 * Whether a claimed mint payment belongs to an earlier run of the same request (same payer and
 * collection, and the same sender key: on its mint transaction, or recorded with the claim), so a
 * retry resumes it instead of being refused as a reused hash; null when it does not.
 */
export async function earlierMintPayment(
  db: Db,
  q: { chainId: number; txHash: string; payer: string; collectionId: string; senderKey: string },
): Promise<EarlierMintPayment | null> {
  const rows = await db
    .select({
      id: payments.id,
      requestKey: payments.request_key,
      amount: payments.amount,
      live: sql<boolean>`exists (select 1 from ${chainTransactions} where ${chainTransactions.idempotency_key} = ${q.senderKey}
        and ${chainTransactions.status} in ('queued', 'signed', 'sent', 'mined'))`,
    })
    .from(payments)
    .where(
      and(
        eq(payments.chain_id, q.chainId),
        eq(payments.tx_hash, q.txHash.toLowerCase()),
        eq(payments.purpose, 'mint'),
        eq(payments.collection_id, q.collectionId),
        sql`lower(${payments.payer}) = ${q.payer.toLowerCase()}`,
      ),
    )
    .limit(1);
  const row = rows[0];
  if (!row) return null;
  if (row.live) return { kind: 'replay' };
  return row.requestKey === q.senderKey ? { kind: 'claimed', paymentId: row.id, amount: BigInt(row.amount) } : null;
}

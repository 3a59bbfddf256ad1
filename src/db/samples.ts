/**
 * Samples, free allowances and payments (docs/api/nft.md §2.9, §4.1.2). Allowances are counters in
 * `sample_allowances`: subject '*' per collection and one row per user subject. Taking n free
 * samples is one transaction with two conditional UPDATEs (`used + n <= limit`); nothing reads a
 * counter and writes it back. A payment hash is claimed by inserting into `payments` (unique
 * (chain_id, tx_hash)), so a hash is accepted once. Decisions: docs/minting.md.
 */
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db } from './client.ts';
import { outputs, payments, sampleAllowances, samples } from './schema/index.ts';
import { paymentError } from '../domain/payment-errors.ts';
import { isUniqueViolation } from './errors.ts';

export const COLLECTION_SUBJECT = '*';

export interface Limits {
  perCollection: number;
  perUser: number;
}

async function ensureRows(db: Db, collectionId: string, subject: string) {
  await db
    .insert(sampleAllowances)
    .values([
      { collection_id: collectionId, subject: COLLECTION_SUBJECT, used: 0 },
      { collection_id: collectionId, subject, used: 0 },
    ])
    .onConflictDoNothing();
}

/** Thrown inside the transaction to roll the first UPDATE back when the second one refuses. */
class Refused extends Error {}

/**
 * Takes n free samples from both allowances, atomically: true when taken, false when either
 * allowance would be exceeded (nothing changes then).
 */
export async function takeFreeSamples(db: Db, collectionId: string, subject: string, n: number, limits: Limits): Promise<boolean> {
  await ensureRows(db, collectionId, subject);
  try {
    await db.transaction(async (tx) => {
      const take = async (who: string, limit: number) => {
        const rows = await tx
          .update(sampleAllowances)
          .set({ used: sql`${sampleAllowances.used} + ${n}`, updated_at: sql`now()` })
          .where(
            and(
              eq(sampleAllowances.collection_id, collectionId),
              eq(sampleAllowances.subject, who),
              sql`${sampleAllowances.used} + ${n} <= ${limit}`,
            ),
          )
          .returning({ used: sampleAllowances.used });
        if (rows.length === 0) throw new Refused();
      };
      await take(COLLECTION_SUBJECT, limits.perCollection);
      await take(subject, limits.perUser);
    });
    return true;
  } catch (err) {
    if (err instanceof Refused) return false;
    throw err;
  }
}

/** Gives back free samples that were taken but not created (a generation could not start). */
export async function returnFreeSamples(db: Db, collectionId: string, subject: string, n: number) {
  await db
    .update(sampleAllowances)
    .set({ used: sql`greatest(${sampleAllowances.used} - ${n}, 0)`, updated_at: sql`now()` })
    .where(and(eq(sampleAllowances.collection_id, collectionId), sql`${sampleAllowances.subject} in (${COLLECTION_SUBJECT}, ${subject})`));
}

export async function allowanceUsage(db: Db, collectionId: string, subject: string) {
  const rows = await db
    .select({ subject: sampleAllowances.subject, used: sampleAllowances.used })
    .from(sampleAllowances)
    .where(and(eq(sampleAllowances.collection_id, collectionId), sql`${sampleAllowances.subject} in (${COLLECTION_SUBJECT}, ${subject})`));
  const used = (s: string) => rows.find((r) => r.subject === s)?.used ?? 0;
  return { collection: used(COLLECTION_SUBJECT), user: used(subject) };
}

/** A payment verified on chain, to be claimed. */
export interface PaymentRecord {
  chainId: number;
  txHash: string;
  token: string;
  payer: string;
  recipient: string;
  amount: bigint;
}

/** How long a request holds a payment while it creates the samples; a retry after it may resume. */
export const PAYMENT_LEASE_SECONDS = 120;

/** Claims a verified payment: 409 PAYMENT_ALREADY_USED when the hash was accepted before. */
export async function claimPayment(db: Db, p: PaymentRecord, collectionId: string, sampleCount: number): Promise<string> {
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
        purpose: 'samples',
        collection_id: collectionId,
        sample_count: sampleCount,
        lease_until: sql`now() + make_interval(secs => ${PAYMENT_LEASE_SECONDS})`,
      })
      .returning({ id: payments.id });
    return row!.id;
  } catch (err) {
    if (isUniqueViolation(err, 'payments_chain_tx')) throw usedError(p.txHash);
    throw err;
  }
}

const usedError = (hash: string) =>
  paymentError('PAYMENT_ALREADY_USED', `body.tx_hash: transaction ${hash} was already used to pay for samples`);

/**
 * Before reading the chain: undefined when the hash was never claimed (the unique index stays the
 * guarantee); a resumable claim when the same payer asks again for the same collection and count
 * and fewer samples exist than were paid for (a request died between claiming and creating them);
 * else 409 PAYMENT_ALREADY_USED. Resuming takes the payment's lease in one conditional UPDATE, so
 * one request at a time creates the missing samples.
 */
export async function resumablePayment(
  db: Db,
  q: { chainId: number; txHash: string; payer: string; collectionId: string; count: number },
): Promise<{ id: string; existing: Array<{ outputId: string; jobId: string | null }>; deckId: string | null } | undefined> {
  const [row] = await db
    .select()
    .from(payments)
    .where(and(eq(payments.chain_id, q.chainId), eq(payments.tx_hash, q.txHash.toLowerCase())));
  if (!row) return undefined;
  if (row.payer.toLowerCase() !== q.payer.toLowerCase() || row.collection_id !== q.collectionId || row.sample_count !== q.count) {
    throw usedError(q.txHash);
  }
  const made = await db
    .select({ output_id: samples.output_id, job_id: samples.job_id, deck_id: outputs.deck_id })
    .from(samples)
    .leftJoin(outputs, eq(outputs.id, samples.output_id))
    .where(eq(samples.payment_id, row.id));
  if (made.length >= q.count) throw usedError(q.txHash);
  const leased = await db
    .update(payments)
    .set({ lease_until: sql`now() + make_interval(secs => ${PAYMENT_LEASE_SECONDS})` })
    .where(and(eq(payments.id, row.id), sql`(${payments.lease_until} is null or ${payments.lease_until} < now())`))
    .returning({ id: payments.id });
  if (leased.length === 0) {
    throw paymentError(
      'PAYMENT_ALREADY_USED',
      `body.tx_hash: transaction ${q.txHash} is being used by a request in progress; if it failed, retry after ${PAYMENT_LEASE_SECONDS} s`,
    );
  }
  return {
    id: row.id,
    existing: made.map((m) => ({ outputId: m.output_id, jobId: m.job_id })),
    deckId: made.find((m) => m.deck_id)?.deck_id ?? null,
  };
}

/** The request holding the payment's lease is done with it. */
export async function endPaymentLease(db: Db, paymentId: string) {
  await db.update(payments).set({ lease_until: null }).where(eq(payments.id, paymentId));
}

/** Releases a claimed payment whose samples could not be started, so the hash can be used again. */
export async function releasePayment(db: Db, paymentId: string) {
  await db.delete(payments).where(eq(payments.id, paymentId));
}

export interface NewSample {
  collection_id: string;
  output_id: string;
  job_id: string;
  user_id: string | null;
  wallet_address: string;
  is_free: boolean;
  payment_id: string | null;
  traits: unknown;
}

export async function insertSamples(db: Db, rows: NewSample[]) {
  if (rows.length === 0) return [];
  return db.insert(samples).values(rows).returning();
}

export type SampleRow = typeof samples.$inferSelect;

/** A collection's samples (§2.9) with their output, newest first; optionally one wallet's. */
export async function listSamples(db: Db, collectionId: string, opts: { wallet?: string; limit?: number } = {}) {
  return db
    .select({ sample: samples, output: { status: outputs.status, url: outputs.url, input_metadata: outputs.input_metadata } })
    .from(samples)
    .leftJoin(outputs, eq(outputs.id, samples.output_id))
    .where(
      and(
        eq(samples.collection_id, collectionId),
        opts.wallet ? sql`lower(${samples.wallet_address}) = ${opts.wallet.toLowerCase()}` : undefined,
      ),
    )
    .orderBy(desc(samples.created_at), desc(samples.id))
    .limit(opts.limit ?? 100);
}

export async function paidSampleCount(db: Db, collectionId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(samples)
    .where(and(eq(samples.collection_id, collectionId), eq(samples.is_free, false)));
  return Number(row?.n ?? 0);
}

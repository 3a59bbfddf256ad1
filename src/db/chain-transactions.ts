/**
 * `chain_transactions`, the tx sender's record of every chain write (docs/chain.md). The one
 * module with SQL on this table.
 *
 * Invariants kept here:
 * - every state change is conditional on the state it leaves (`WHERE status IN …`, and for a
 *   replacement on the hash it replaces), so two processes acting on one row never both win;
 * - the unique index (chain_id, from_address, nonce) refuses a nonce recorded twice for a wallet;
 *   `markSigned` reports that as `nonce-taken` instead of throwing;
 * - addresses are stored checksummed, data in lowercase hex, value in wei (the callers' job:
 *   queries compare the stored forms).
 */
import { and, asc, eq, gte, inArray, isNotNull, max, sql } from 'drizzle-orm';
import { IN_FLIGHT, UNFINISHED, type TxRecord, type TxStatus } from '../domain/ports/tx-record.ts';
import type { Executor } from './client.ts';
import { isUniqueViolation } from './errors.ts';
import type { Assert, Same } from './port-rows.ts';
import { chainTransactions } from './schema/index.ts';

const t = chainTransactions;
const NONCE_INDEX = 'chain_transactions_wallet_nonce';

export type ChainTransaction = typeof t.$inferSelect;
/** The row is the sender's TxRecord (src/domain/ports/tx-record.ts, with TxStatus and the status sets), column for column. */
type _ChainTransactionIsTxRecord = Assert<Same<ChainTransaction, TxRecord>>;

/** One wallet on one chain: the scope of nonces. `address` checksummed. */
export interface Wallet {
  chainId: number;
  address: string;
}

/** What a `queued` row records: the intent, before any nonce or signature. */
export type TxIntent = Pick<TxRecord, 'purpose' | 'chain_id' | 'from_address' | 'to_address' | 'data' | 'value' | 'idempotency_key'>;

const ofWallet = (w: Wallet) => and(eq(t.chain_id, w.chainId), eq(t.from_address, w.address));
const inStatus = (statuses: readonly TxStatus[]) => inArray(t.status, [...statuses]);

/** Records an intent as `queued`. With an idempotency key already recorded: undefined, nothing written. */
export async function insertIntent(db: Executor, intent: TxIntent): Promise<ChainTransaction | undefined> {
  const insert = db.insert(t).values({ ...intent, status: 'queued' satisfies TxStatus });
  const [row] = intent.idempotency_key
    ? await insert.onConflictDoNothing({ target: t.idempotency_key }).returning()
    : await insert.returning();
  return row;
}

export async function findByIdempotencyKey(db: Executor, key: string): Promise<ChainTransaction | undefined> {
  const [row] = await db.select().from(t).where(eq(t.idempotency_key, key));
  return row;
}

export async function findTransaction(db: Executor, id: string): Promise<ChainTransaction | undefined> {
  const [row] = await db.select().from(t).where(eq(t.id, id));
  return row;
}

/** The wallet's rows that are not final, oldest first. */
export async function listUnfinished(db: Executor, wallet: Wallet): Promise<ChainTransaction[]> {
  return db
    .select()
    .from(t)
    .where(and(ofWallet(wallet), inStatus(UNFINISHED)))
    .orderBy(asc(t.created_at));
}

/** The highest nonce recorded for the wallet (optionally only on rows in these states), or null. */
export async function highestNonce(db: Executor, wallet: Wallet, statuses?: readonly TxStatus[]): Promise<number | null> {
  const [r] = await db
    .select({ n: max(t.nonce) })
    .from(t)
    .where(and(ofWallet(wallet), isNotNull(t.nonce), statuses ? inStatus(statuses) : undefined));
  return r?.n === null || r?.n === undefined ? null : Number(r.n);
}

/**
 * Dev chain reset: the wallet's finished rows at or above `fromNonce` belong to a chain that no
 * longer exists. They become `dropped` and give their nonce back (the unique index would refuse
 * it on the new chain); hash and receipt stay. Returns how many rows changed.
 */
export async function dropRowsOfResetChain(db: Executor, wallet: Wallet, fromNonce: number): Promise<number> {
  const dropped = await db
    .update(t)
    .set({
      status: 'dropped' satisfies TxStatus,
      nonce: null,
      error: sql`'dev chain reset: nonce ' || ${t.nonce} || ' was used on a chain that no longer exists' || coalesce('; ' || ${t.error}, '')`,
      updated_at: new Date(),
    })
    .where(and(ofWallet(wallet), gte(t.nonce, fromNonce), inStatus(['mined', 'reverted', 'failed'])))
    .returning({ id: t.id });
  return dropped.length;
}

export type SignOutcome =
  | { kind: 'signed'; row: ChainTransaction }
  /** Another caller took the row first (it is no longer `queued`). */
  | { kind: 'not-queued' }
  /** Another row of the wallet already holds this nonce. */
  | { kind: 'nonce-taken' };

/** `queued → signed` with the nonce, hash and raw transaction, before anything is broadcast. */
export async function markSigned(db: Executor, id: string, signed: { nonce: number; hash: string; raw: string }): Promise<SignOutcome> {
  try {
    const [row] = await db
      .update(t)
      .set({
        status: 'signed' satisfies TxStatus,
        nonce: signed.nonce,
        hash: signed.hash,
        raw_tx: signed.raw,
        attempts: sql`${t.attempts} + 1`,
        updated_at: new Date(),
      })
      .where(and(eq(t.id, id), eq(t.status, 'queued')))
      .returning();
    return row ? { kind: 'signed', row } : { kind: 'not-queued' };
  } catch (err) {
    if (isUniqueViolation(err, NONCE_INDEX)) return { kind: 'nonce-taken' };
    throw err;
  }
}

/** `signed → sent`: the node accepted the current raw transaction. */
export async function markSent(db: Executor, id: string): Promise<void> {
  await db
    .update(t)
    .set({ status: 'sent' satisfies TxStatus, updated_at: new Date() })
    .where(and(eq(t.id, id), eq(t.status, 'signed')));
}

/** `signed → queued`: the node refused this exact transaction; nonce, hash and raw are cleared to sign again. */
export async function returnToQueued(db: Executor, id: string): Promise<void> {
  await db
    .update(t)
    .set({ status: 'queued' satisfies TxStatus, nonce: null, hash: null, raw_tx: null, updated_at: new Date() })
    .where(and(eq(t.id, id), eq(t.status, 'signed')));
}

/** `failed` when nothing reached the chain: the nonce is released (with hash and raw). */
export async function markFailedUnsent(db: Executor, id: string, error: string, from: readonly TxStatus[]): Promise<void> {
  await db
    .update(t)
    .set({ status: 'failed' satisfies TxStatus, error, nonce: null, hash: null, raw_tx: null, updated_at: new Date() })
    .where(and(eq(t.id, id), inStatus(from)));
}

/** `failed` for an in-flight row whose nonce was spent by something else: the nonce stays recorded. */
export async function markFailedNonceSpent(db: Executor, id: string, error: string): Promise<void> {
  await db
    .update(t)
    .set({ status: 'failed' satisfies TxStatus, error, updated_at: new Date() })
    .where(and(eq(t.id, id), inStatus(IN_FLIGHT)));
}

/** In flight → `mined`/`reverted` from a receipt: `hash` the mined one, the others in `replaced_hashes`. */
export async function markFinished(
  db: Executor,
  id: string,
  done: { status: 'mined' | 'reverted'; hash: string; replacedHashes: string[]; receipt: unknown },
): Promise<void> {
  await db
    .update(t)
    .set({ status: done.status, hash: done.hash, replaced_hashes: done.replacedHashes, receipt: done.receipt, updated_at: new Date() })
    .where(and(eq(t.id, id), inStatus(IN_FLIGHT)));
}

/**
 * A replacement (same nonce, higher fees), recorded only while `oldHash` is still the row's
 * current hash, so two processes cannot both replace. Undefined when that condition failed.
 */
export async function recordReplacement(
  db: Executor,
  id: string,
  oldHash: string,
  next: { hash: string; raw: string },
): Promise<ChainTransaction | undefined> {
  const [row] = await db
    .update(t)
    .set({
      hash: next.hash,
      raw_tx: next.raw,
      replaced_hashes: sql`${t.replaced_hashes} || ${JSON.stringify([oldHash])}::jsonb`,
      attempts: sql`${t.attempts} + 1`,
      updated_at: new Date(),
    })
    .where(and(eq(t.id, id), eq(t.hash, oldHash), inStatus(IN_FLIGHT)))
    .returning();
  return row;
}

// ---------- restoring what the chain lost (tx/restore.ts) ----------

/** Rows of the wallet holding a nonce at or above `fromNonce`, by nonce: what a chain that went back lost. */
export async function rowsHoldingNonceFrom(db: Executor, wallet: Wallet, fromNonce: number): Promise<ChainTransaction[]> {
  return db
    .select()
    .from(t)
    .where(and(ofWallet(wallet), isNotNull(t.nonce), gte(t.nonce, fromNonce)))
    .orderBy(asc(t.nonce));
}

/** A finished row whose transaction the chain no longer has: back to `sent` (same raw bytes, same hash) until a new receipt settles it. */
export async function reopenLost(db: Executor, id: string): Promise<ChainTransaction | undefined> {
  const [row] = await db
    .update(t)
    .set({ status: 'sent' satisfies TxStatus, receipt: null, updated_at: new Date() })
    .where(and(eq(t.id, id), inStatus(['mined', 'reverted'])))
    .returning();
  return row;
}

/**
 * A row that holds a nonce the chain no longer has used and that must never be sent (failed: its
 * client was told so; or its raw transaction can never land): `dropped`, nonce released so a
 * filler can take it; hash and raw stay for the record.
 */
export async function dropAndReleaseNonce(db: Executor, id: string, why: string): Promise<void> {
  await db
    .update(t)
    .set({
      status: 'dropped' satisfies TxStatus,
      nonce: null,
      error: sql`${why} || coalesce('; ' || ${t.error}, '')`,
      updated_at: new Date(),
    })
    .where(and(eq(t.id, id), inStatus(['signed', 'sent', 'mined', 'reverted', 'failed'])));
}

/** Records a transaction signed by the sender itself (a nonce filler) as `signed`; undefined when the nonce is taken. */
export async function insertSigned(
  db: Executor,
  intent: Omit<TxIntent, 'idempotency_key'>,
  signed: { nonce: number; hash: string; raw: string },
): Promise<ChainTransaction | undefined> {
  try {
    const [row] = await db
      .insert(t)
      .values({ ...intent, status: 'signed' satisfies TxStatus, nonce: signed.nonce, hash: signed.hash, raw_tx: signed.raw, attempts: 1 })
      .returning();
    return row;
  } catch (err) {
    if (isUniqueViolation(err, NONCE_INDEX)) return undefined;
    throw err;
  }
}

/**
 * Queued intents older than `olderThanMs` are cancelled (`failed`, never signed): their requester
 * gave up or was answered long ago, and a transaction its client was told failed is never sent later.
 */
export async function cancelStaleQueued(db: Executor, wallet: Wallet, olderThanMs: number): Promise<ChainTransaction[]> {
  return db
    .update(t)
    .set({
      status: 'failed' satisfies TxStatus,
      error: `cancelled: not signed within ${Math.round(olderThanMs / 1000)} s of the request (its deadline); nothing was sent`,
      updated_at: new Date(),
    })
    .where(and(ofWallet(wallet), eq(t.status, 'queued'), sql`${t.created_at} < now() - make_interval(secs => ${olderThanMs / 1000})`))
    .returning();
}

/**
 * The wallet's nonce lock, held until the end of the transaction `db` runs in: every process
 * that signs for the wallet takes it around choosing a nonce and recording the signed row, so no
 * two processes pick one nonce (PostgreSQL and PGlite alike; no Redis involved).
 */
export async function lockWalletNonces(db: Executor, wallet: Wallet): Promise<void> {
  await db.execute(sql`select pg_advisory_xact_lock(hashtext(${`tx-nonce:${wallet.chainId}:${wallet.address.toLowerCase()}`}))`);
}

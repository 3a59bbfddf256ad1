/**
 * The sender's decisions, as pure functions of what is recorded and what the chain answered.
 * The modules around them (execute, receipts, reconcile) only read, write and act on the answer.
 * What is recorded is these decisions' own types (src/domain/ports/tx-record.ts: `TxRecord`, the
 * states, `IN_FLIGHT`), which src/db/chain-transactions.ts keeps.
 *
 *   queued ──sign──▶ signed ──broadcast──▶ sent ──receipt──▶ mined | reverted
 *     │                │  (raw_tx stored first)  └─stuck: re-sign same nonce, higher fees
 *     └──▶ failed ◀────┘  (only when nothing reached the chain; the nonce is released)
 */
import type { Hex } from 'viem';
import { IN_FLIGHT, type TxRecord, type TxStatus } from '../../domain/ports/tx-record.ts';
import type { TxResult } from './api.ts';
import type { BroadcastResult } from './broadcast.ts';
import type { ErrorKind } from './errors.ts';

/** What to do after the first broadcast of a freshly signed transaction; `next` is where the nonce counter continues. */
export type AfterBroadcast =
  /** The node has it: record `sent`. */
  | { do: 'mark-sent'; next: number }
  /** Outcome unknown (RPC down after retries): keep the nonce; the receipt loop rebroadcasts `raw_tx`. */
  | { do: 'keep'; next: number }
  /** The node refused this exact transaction, so it can never be mined: back to `queued`, sign again. */
  | { do: 'resign'; next: number; refreshFees: boolean }
  /** A permanent refusal: nothing reached the chain; `failed`, and the nonce is given back. */
  | { do: 'fail'; next: number; error: unknown };

export function afterBroadcast(result: BroadcastResult, nonce: number): AfterBroadcast {
  if (result === 'ok' || result === 'already-known') return { do: 'mark-sent', next: nonce + 1 };
  if (result === 'transient') return { do: 'keep', next: nonce + 1 };
  // nonce too low / underpriced: something else holds the nonce; try the next one.
  if (result === 'nonce-too-low' || result === 'underpriced') return { do: 'resign', next: nonce + 1, refreshFees: false };
  // Fees below the base fee: the same nonce with fresh fees.
  if (result === 'fee-too-low') return { do: 'resign', next: nonce, refreshFees: true };
  return { do: 'fail', next: nonce, error: result.error };
}

/**
 * After rebroadcasting a signed transaction: `sent` when the node has it (or a higher-fee one of
 * ours holds the nonce: underpriced); `retry` on the next tick (transient, or the nonce is used:
 * the next tick resolves it); `refused` otherwise (logged; later replacements may still get in).
 */
export function afterRebroadcast(kind: 'ok' | ErrorKind): 'sent' | 'retry' | 'refused' {
  if (kind === 'ok' || kind === 'already-known' || kind === 'underpriced') return 'sent';
  if (kind === 'nonce-too-low' || kind === 'transient') return 'retry';
  return 'refused';
}

/** A signed row the receipt loop watches. */
export interface WatchState {
  nonce: number;
  /** Every hash signed for this nonce, oldest first; the last one is the current raw transaction. */
  hashes: Hex[];
  /** The node has not confirmed it has the current raw transaction. */
  needsBroadcast: boolean;
  lastSignedAt: number;
  /** Since when the nonce looks used without a receipt for any of `hashes`. */
  consumedSince?: number;
}

/**
 * One tick for one watched row, given the wallet's mined nonce (the chain's `latest` count):
 * its nonce is used → resolve it from a receipt; else broadcast it if the node may lack it;
 * else replace it once it has waited `stuckAfterMs`.
 */
export function watchStep(
  w: Pick<WatchState, 'nonce' | 'needsBroadcast' | 'lastSignedAt'>,
  minedNonce: number,
  now: number,
  stuckAfterMs: number,
): 'resolve' | 'rebroadcast' | 'replace' | 'wait' {
  if (w.nonce < minedNonce) return 'resolve';
  if (w.needsBroadcast) return 'rebroadcast';
  if (now - w.lastSignedAt >= stuckAfterMs) return 'replace';
  return 'wait';
}

/** Every hash recorded on a row, oldest first. */
export function recordedHashes(row: Pick<TxRecord, 'hash' | 'replaced_hashes'>): Hex[] {
  return [...((row.replaced_hashes ?? []) as Hex[]), row.hash as Hex];
}

export const isInFlight = (status: string) => IN_FLIGHT.includes(status as TxStatus);

export type ConsumedDecision =
  /** The row was finished elsewhere (another process): answer from the row. */
  | { do: 'settle-from-row' }
  /** Another process recorded a replacement this one did not know: watch its hashes. */
  | { do: 'follow'; hashes: Hex[]; raw: Hex }
  /** Within the grace period: a receipt may still show up (lagging node). */
  | { do: 'wait'; consumedSince: number }
  /** The nonce was used by a transaction this sender never recorded. */
  | { do: 'fail'; message: string };

/**
 * The wallet's nonce is used on chain, yet none of the watched hashes has a receipt; `row` is
 * the row as recorded now. Decides whether to follow the row, wait, or fail it.
 */
export function decideConsumed(
  w: Pick<WatchState, 'nonce' | 'hashes' | 'consumedSince'>,
  row: Pick<TxRecord, 'status' | 'hash' | 'raw_tx' | 'replaced_hashes'>,
  now: number,
  graceMs: number,
): ConsumedDecision {
  if (!isInFlight(row.status)) return { do: 'settle-from-row' };
  const known = recordedHashes(row);
  if (known.some((h) => !w.hashes.includes(h))) return { do: 'follow', hashes: known, raw: row.raw_tx as Hex };
  const since = w.consumedSince ?? now;
  if (now - since < graceMs) return { do: 'wait', consumedSince: since };
  return { do: 'fail', message: `nonce ${w.nonce} was used by a transaction this sender did not record (wallet used elsewhere?)` };
}

/**
 * Reconcile on restart: `queued` rows are intents whose requester stopped before signing (sign
 * and send them); `signed`/`sent` rows are watched, and rebroadcast first, since the node may have
 * lost them (restart, eviction) and resending the same raw bytes is harmless.
 */
export function planReconcile<R extends Pick<TxRecord, 'status'>>(rows: R[]): { sign: R[]; watch: R[] } {
  return { sign: rows.filter((r) => r.status === 'queued'), watch: rows.filter((r) => isInFlight(r.status)) };
}

/** How the reconciled rows ended (a rejection is a failure: nothing mined for it). */
export function summarize(
  pending: number,
  settled: Array<PromiseSettledResult<Pick<TxResult, 'status'>>>,
): { pending: number; mined: number; reverted: number; failed: number } {
  const count = (s: TxResult['status']) => settled.filter((r) => r.status === 'fulfilled' && r.value.status === s).length;
  return { pending, mined: count('mined'), reverted: count('reverted'), failed: settled.filter((r) => r.status === 'rejected').length };
}

/** One step of a restore pass (tx/restore.ts), in nonce order. */
export type RestoreStep =
  /** Broadcast the row's stored raw transaction again (a finished row is reopened first). */
  | { do: 'resend'; row: RestoreRow }
  /** The row must never be sent (failed, or no raw bytes): drop it, release its nonce, fill the nonce. */
  | { do: 'drop'; row: RestoreRow }
  /** No row holds this nonce: a filler takes it, so later nonces can be mined. */
  | { do: 'fill'; nonce: number };

export type RestoreRow = Pick<TxRecord, 'id' | 'status' | 'nonce' | 'raw_tx'> & Partial<TxRecord>;

/**
 * What a restore pass does, given the chain's mined nonce and the rows holding a nonce at or above
 * it (by nonce). Rows in flight above the chain are normal (waiting to be mined): nothing to do
 * unless the chain went back (a finished row above it) or a nonce below a recorded one is held by
 * nobody (a gap; `fillGaps` says whether to fill it now). Then every row is resent in order, and
 * every gap filled. `tooMany`: more lost rows than `max` (a chain reset rather than a lost tail).
 */
export function planRestore(
  chainNonce: number,
  rows: RestoreRow[],
  max: number,
  fillGaps = true,
): { steps: RestoreStep[]; tooMany: boolean; gap: boolean; lost: boolean } {
  const sorted = [...rows].filter((r) => r.nonce !== null && r.nonce >= chainNonce).sort((a, b) => a.nonce! - b.nonce!);
  const lost = sorted.some((r) => !isInFlight(r.status));
  const gap = sorted.some((r, i) => r.nonce! !== chainNonce + i);
  if (!lost && !(gap && fillGaps)) return { steps: [], tooMany: false, gap, lost };
  const steps: RestoreStep[] = [];
  let expected = chainNonce;
  for (const row of sorted) {
    while (expected < row.nonce!) steps.push({ do: 'fill', nonce: expected++ });
    const sendable = row.raw_tx && (isInFlight(row.status) || row.status === 'mined' || row.status === 'reverted');
    steps.push(sendable ? { do: 'resend', row } : { do: 'drop', row });
    expected = row.nonce! + 1;
  }
  return { steps, tooMany: sorted.length > max, gap, lost };
}

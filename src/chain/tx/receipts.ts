/**
 * Waiting for receipts. One poll loop per sender, running while any signed row is watched: one
 * mined-nonce read per tick for the whole wallet; a row whose nonce is below it is resolved by
 * the receipt of any of its hashes; the others are rebroadcast while the node may lack them, and
 * replaced with higher fees once stuck. Finishing a row is conditional on it still being in
 * flight, so any process may finish it. What each tick decides: tx/decisions.ts.
 */
import type { Hex, TransactionReceipt } from 'viem';
import { markFailedNonceSpent, markFinished, markSent, type ChainTransaction } from '../../db/chain-transactions.ts';
import type { TxStatus } from '../../domain/ports/tx-record.ts';
import { TxFailedError, TxTimeoutError, type TxResult } from './api.ts';
import { broadcastOnce } from './broadcast.ts';
import type { SenderContext } from './context.ts';
import { afterRebroadcast, decideConsumed, isInFlight, recordedHashes, watchStep, type WatchState } from './decisions.ts';
import { describeError } from './errors.ts';
import { replaceStuck } from './replace.ts';
import { pollDelay, sleep } from './retry.ts';

interface Watched extends WatchState {
  id: string;
  raw: Hex;
  waiters: Array<{ resolve(r: TxResult): void; reject(e: unknown): void }>;
}

export interface ReceiptWatcher {
  /** The caller's answer for a row past `queued`: waits for an in-flight one, replays a finished one. */
  outcome(row: ChainTransaction): Promise<TxResult>;
  /** Watches a signed row; `rebroadcast` first when the node may have lost it (reconcile). */
  watch(row: ChainTransaction, opts?: { rebroadcast?: boolean }): Promise<TxResult>;
  /** Whether the loop follows this row already. */
  isWatched(id: string): boolean;
  /** Stops the loop; waiters are rejected (their rows stay recorded and are reconciled later). */
  close(): void;
}

/** A receipt as JSON for the row (bigints as decimal strings). */
export function receiptJson(receipt: TransactionReceipt): unknown {
  return JSON.parse(JSON.stringify(receipt, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
}

export function createReceiptWatcher(ctx: SenderContext): ReceiptWatcher {
  const watched = new Map<string, Watched>();
  let loopRunning = false;
  let loopFailures = 0;
  let closed = false;

  const settle = (w: Watched, result?: TxResult, error?: unknown): void => {
    watched.delete(w.id);
    for (const waiter of w.waiters) result ? waiter.resolve(result) : waiter.reject(error);
  };

  const outcome = async (row: ChainTransaction): Promise<TxResult> => {
    switch (row.status as TxStatus) {
      case 'failed':
      case 'dropped':
        throw new TxFailedError(row.id, `transaction ${row.id} (${row.purpose}) failed: ${row.error ?? 'unknown error'}`);
      case 'mined':
      case 'reverted': {
        const hash = row.hash as Hex;
        const receipt = await ctx.retry('getTransactionReceipt', () => ctx.client.getTransactionReceipt({ hash }));
        return { id: row.id, hash, nonce: row.nonce!, status: row.status as 'mined' | 'reverted', receipt };
      }
      case 'queued':
        throw new TxTimeoutError(row.id, null);
      default:
        return waitFor(row);
    }
  };

  const settleFromRow = async (w: Watched, row: ChainTransaction): Promise<void> => {
    if (row.status === 'failed') return settle(w, undefined, new TxFailedError(row.id, row.error ?? 'failed'));
    try {
      settle(w, await outcome(row));
    } catch (err) {
      settle(w, undefined, err);
    }
  };

  const follow = (w: Watched, row: ChainTransaction): void => {
    w.hashes = recordedHashes(row);
    w.raw = row.raw_tx as Hex;
  };

  const finalize = async (w: Watched, receipt: TransactionReceipt): Promise<void> => {
    const status = receipt.status === 'success' ? 'mined' : 'reverted';
    const hash = receipt.transactionHash;
    await markFinished(ctx.db, w.id, { status, hash, replacedHashes: w.hashes.filter((h) => h !== hash), receipt: receiptJson(receipt) });
    settle(w, { id: w.id, hash, nonce: w.nonce, status, receipt });
  };

  /** The nonce is used on chain: whichever of our hashes has a receipt wins (newest first). */
  const resolveConsumed = async (w: Watched): Promise<void> => {
    for (const hash of [...w.hashes].reverse()) {
      let receipt: TransactionReceipt;
      try {
        // Retried here (transient failures only): a failed read would otherwise cost the whole tick,
        // and a rate limit that refuses every other request then refuses every receipt read.
        receipt = await ctx.retry('getTransactionReceipt', () => ctx.client.getTransactionReceipt({ hash }));
      } catch (err) {
        if ((err as Error).name === 'TransactionReceiptNotFoundError') continue;
        throw err;
      }
      return finalize(w, receipt);
    }
    const row = await ctx.load(w.id);
    const decision = decideConsumed(w, row, Date.now(), ctx.o.unknownNonceGraceMs);
    switch (decision.do) {
      case 'settle-from-row':
        return settleFromRow(w, row);
      case 'follow':
        w.hashes = decision.hashes;
        w.raw = decision.raw;
        return;
      case 'wait':
        w.consumedSince = decision.consumedSince;
        return;
      case 'fail':
        // The nonce stays on the row: it is spent on chain and must not be handed out again.
        await markFailedNonceSpent(ctx.db, w.id, decision.message);
        ctx.log.error({ id: w.id, nonce: w.nonce }, `tx sender: ${decision.message}`);
        return settle(w, undefined, new TxFailedError(w.id, decision.message));
    }
  };

  /** The node never confirmed it has the current raw transaction: send it again (same hash). */
  const rebroadcast = async (w: Watched): Promise<void> => {
    const kind = await broadcastOnce(ctx, w.raw);
    const next = afterRebroadcast(kind);
    if (next === 'sent') {
      w.needsBroadcast = false;
      w.lastSignedAt = Date.now();
      await markSent(ctx.db, w.id);
    } else if (next === 'refused') {
      ctx.log.error({ id: w.id, nonce: w.nonce, reason: kind }, 'tx sender: rebroadcast refused');
      // Keep trying: the nonce is recorded and later nonces depend on it; a replacement may get in.
      w.needsBroadcast = false;
    }
  };

  const replace = async (w: Watched): Promise<void> => {
    const r = await replaceStuck(ctx, w);
    w.lastSignedAt = Date.now();
    if (r.kind === 'at-cap') {
      w.needsBroadcast = true;
      ctx.log.warn({ id: w.id, nonce: w.nonce }, 'tx sender: stuck at the fee cap; rebroadcasting');
      return;
    }
    if (r.kind === 'lost') {
      if (!isInFlight(r.row.status)) return settleFromRow(w, r.row);
      return follow(w, r.row);
    }
    w.hashes.push(r.hash);
    w.raw = r.raw;
    ctx.log.info(
      { id: w.id, nonce: w.nonce, oldHash: r.oldHash, hash: r.hash, maxFeePerGas: String(r.maxFeePerGas) },
      'tx sender: replaced a stuck transaction',
    );
    w.needsBroadcast = true;
    await rebroadcast(w);
  };

  const tick = async (): Promise<void> => {
    const mined = await ctx.client.getTransactionCount({ address: ctx.address, blockTag: 'latest' });
    const list = [...watched.values()].sort((a, b) => a.nonce - b.nonce);
    for (const w of list) {
      if (closed) return;
      const step = watchStep(w, mined, Date.now(), ctx.o.stuckAfterMs);
      if (step === 'resolve') await resolveConsumed(w);
      else if (step === 'rebroadcast') await rebroadcast(w);
      else if (step === 'replace') await replace(w);
    }
  };

  const loop = async (): Promise<void> => {
    loopRunning = true;
    try {
      while (!closed && watched.size > 0) {
        try {
          await tick();
          loopFailures = 0;
        } catch (err) {
          loopFailures++;
          ctx.log.warn({ err: describeError(err), failures: loopFailures }, 'tx sender: receipt poll failed');
        }
        await sleep(pollDelay(loopFailures, ctx.o.pollIntervalMs, ctx.o.retryMaxMs));
      }
    } finally {
      loopRunning = false;
    }
  };

  const track = (row: ChainTransaction): Watched => {
    let w = watched.get(row.id);
    if (!w) {
      w = {
        id: row.id,
        nonce: row.nonce!,
        hashes: recordedHashes(row),
        raw: row.raw_tx as Hex,
        needsBroadcast: row.status === 'signed',
        lastSignedAt: Date.now(),
        waiters: [],
      };
      watched.set(row.id, w);
    }
    if (!loopRunning) void loop();
    return w;
  };

  const waitOn = (w: Watched): Promise<TxResult> =>
    new Promise<TxResult>((resolve, reject) => {
      const timer = setTimeout(() => {
        w.waiters = w.waiters.filter((x) => x !== waiter);
        reject(new TxTimeoutError(w.id, w.hashes.at(-1) ?? null));
      }, ctx.o.receiptTimeoutMs);
      timer.unref?.();
      const waiter = {
        resolve: (r: TxResult) => (clearTimeout(timer), resolve(r)),
        reject: (e: unknown) => (clearTimeout(timer), reject(e)),
      };
      w.waiters.push(waiter);
    });

  const waitFor = (row: ChainTransaction): Promise<TxResult> => waitOn(track(row));

  return {
    outcome,
    watch(row, opts = {}) {
      const w = track(row);
      if (opts.rebroadcast) w.needsBroadcast = true;
      return waitOn(w);
    },
    isWatched: (id) => watched.has(id),
    close() {
      closed = true;
      for (const w of watched.values()) {
        settle(w, undefined, new Error('tx sender closed; the transaction stays recorded and will be reconciled'));
      }
    },
  };
}

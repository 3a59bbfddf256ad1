/**
 * Reconcile on restart: picks up this wallet's unfinished rows and finishes each recorded intent
 * exactly once. `queued` rows are signed and sent (through the same path as a send, so the
 * conditional `queued → signed` keeps it single); signed rows are rebroadcast (same bytes, same
 * hash: never a second transaction) and watched until a receipt settles them. Crash table:
 * docs/chain.md.
 */
import { cancelStaleQueued, listUnfinished, type ChainTransaction } from '../../db/chain-transactions.ts';
import type { ReconcileSummary, TxResult } from './api.ts';
import type { SenderContext } from './context.ts';
import { planReconcile, summarize } from './decisions.ts';
import type { ReceiptWatcher } from './receipts.ts';

/** A queued row younger than this is left to its own request by the periodic pass. */
const QUEUED_GRACE_MS = 5_000;

export interface ReconcileParts {
  /** Gets a queued row signed and broadcast (here, or by the wallet's queue consumer). */
  runQueued(id: string): Promise<ChainTransaction>;
  watcher: ReceiptWatcher;
}

/**
 * `periodic`: the catch-up pass of a running sender: rows the receipt loop follows already are
 * left to it, and queued rows younger than a few seconds to the request that is signing them.
 */
export async function reconcile(
  ctx: SenderContext,
  parts: ReconcileParts,
  opts: { wait?: boolean; periodic?: boolean } = {},
): Promise<ReconcileSummary> {
  // A request whose client gave up (or was answered) long ago is never sent later (18.2).
  const cancelled = await cancelStaleQueued(ctx.db, ctx.wallet, ctx.o.queuedDeadlineMs);
  if (cancelled.length) ctx.log.warn({ ids: cancelled.map((r) => r.id) }, 'tx sender: queued intents past their deadline cancelled');
  const young = Date.now() - QUEUED_GRACE_MS;
  const rows = (await listUnfinished(ctx.db, ctx.wallet)).filter(
    (r) => !opts.periodic || (r.status === 'queued' ? r.created_at.getTime() < young : !parts.watcher.isWatched(r.id)),
  );
  const plan = planReconcile(rows);
  const waits: Array<Promise<TxResult>> = [
    ...plan.sign.map((row) => parts.runQueued(row.id).then((r) => parts.watcher.outcome(r))),
    ...plan.watch.map((row) => parts.watcher.watch(row, { rebroadcast: true })),
  ];
  if (rows.length) ctx.log[opts.periodic ? 'warn' : 'info']({ pending: rows.length }, 'tx sender: reconciling unfinished transactions');
  if (!opts.wait) {
    for (const p of waits) p.catch(() => {});
    return { pending: rows.length };
  }
  return summarize(rows.length, await Promise.allSettled(waits));
}

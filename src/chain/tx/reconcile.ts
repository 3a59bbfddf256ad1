/**
 * Reconcile on restart: picks up this wallet's unfinished rows and finishes each recorded intent
 * exactly once. `queued` rows are signed and sent (through the same path as a send, so the
 * conditional `queued → signed` keeps it single); signed rows are rebroadcast (same bytes, same
 * hash: never a second transaction) and watched until a receipt settles them. Crash table:
 * docs/chain.md.
 */
import { listUnfinished, type ChainTransaction } from '../../db/chain-transactions.ts';
import type { ReconcileSummary, TxResult } from './api.ts';
import type { SenderContext } from './context.ts';
import { planReconcile, summarize } from './decisions.ts';
import type { ReceiptWatcher } from './receipts.ts';

export interface ReconcileParts {
  /** Gets a queued row signed and broadcast (here, or by the wallet's queue consumer). */
  runQueued(id: string): Promise<ChainTransaction>;
  watcher: ReceiptWatcher;
}

export async function reconcile(ctx: SenderContext, parts: ReconcileParts, opts: { wait?: boolean } = {}): Promise<ReconcileSummary> {
  const rows = await listUnfinished(ctx.db, ctx.wallet);
  const plan = planReconcile(rows);
  const waits: Array<Promise<TxResult>> = [
    ...plan.sign.map((row) => parts.runQueued(row.id).then((r) => parts.watcher.outcome(r))),
    ...plan.watch.map((row) => parts.watcher.watch(row, { rebroadcast: true })),
  ];
  if (rows.length) ctx.log.info({ pending: rows.length }, 'tx sender: reconciling unfinished transactions');
  if (!opts.wait) {
    for (const p of waits) p.catch(() => {});
    return { pending: rows.length };
  }
  return summarize(rows.length, await Promise.allSettled(waits));
}

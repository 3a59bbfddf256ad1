/**
 * The transaction sender: the only code in Atelier that signs. A send records the intent
 * (tx/record.ts), gets it signed and broadcast under the wallet's nonce lock (tx/execute.ts,
 * tx/nonce-owner.ts: a PostgreSQL advisory lock, so any process may sign), then waits for the
 * receipt (tx/receipts.ts), which also replaces stuck transactions (tx/replace.ts). At start and
 * then periodically the sender catches up: it broadcasts again what the chain lost
 * (tx/restore.ts) and settles every unfinished row of the wallet, whoever asked for it
 * (tx/reconcile.ts). States, guarantees and policies: docs/chain.md, docs/chain-operations.md.
 */
import type { ChainTransaction } from '../../db/chain-transactions.ts';
import type { ReconcileSummary, TxRequest, TxResult, TxSender, TxSenderDeps } from './api.ts';
import { createSenderContext } from './context.ts';
import { describeError } from './errors.ts';
import { createExecutor } from './execute.ts';
import { checkRequest } from './intent.ts';
import { createNonceOwner } from './nonce-owner.ts';
import { createReceiptWatcher } from './receipts.ts';
import { reconcile } from './reconcile.ts';
import { recordIntent } from './record.ts';
import { restoreLost } from './restore.ts';

/** One sender per wallet and chain in a process; any number of processes may each run one for the same wallet. */
export function createTxSender(deps: TxSenderDeps): TxSender {
  const ctx = createSenderContext(deps);
  const nonces = createNonceOwner(ctx);
  const execute = createExecutor(ctx, nonces);
  const watcher = createReceiptWatcher(ctx);
  let closed = false;

  const runQueued = (id: string, gas?: bigint): Promise<ChainTransaction> => execute(id, gas);
  const reconcileNow = (opts?: { wait?: boolean; periodic?: boolean }): Promise<ReconcileSummary> =>
    reconcile(ctx, { runQueued, watcher }, opts);

  /** Where the last pass saw a gap (chain nonce): a gap seen twice in a row is filled. */
  let gapAt: number | undefined;
  const restore = (fillGaps: boolean) =>
    nonces.serial(async () => {
      const r = await restoreLost(ctx, (row, rebroadcast) => void watcher.watch(row, { rebroadcast }).catch(() => {}), { fillGaps });
      gapAt = r.gap ? r.chainNonce : undefined;
      return r;
    });

  /** One catch-up pass: what the chain lost, then every unfinished row. */
  const catchUp = async (first: boolean): Promise<void> => {
    const chainNonce = await ctx.client.getTransactionCount({ address: ctx.address, blockTag: 'latest' });
    await restore(first || gapAt === chainNonce);
    await reconcileNow({ periodic: !first });
  };

  const ready: Promise<void> = ctx.o.autoReconcile
    ? catchUp(true).catch((err) => ctx.log.error({ err: describeError(err) }, 'tx sender: catch-up at start failed'))
    : Promise.resolve();

  let timer: NodeJS.Timeout | undefined;
  if (ctx.o.autoReconcile && ctx.o.catchUpIntervalMs > 0) {
    let running = false;
    timer = setInterval(() => {
      if (running || closed) return;
      running = true;
      ready
        .then(() => catchUp(false))
        .catch((err) => ctx.log.warn({ err: describeError(err) }, 'tx sender: catch-up failed'))
        .finally(() => (running = false));
    }, ctx.o.catchUpIntervalMs);
    timer.unref();
  }

  return {
    chainId: ctx.chainId,
    address: ctx.address,
    ready: () => ready,
    async send(req: TxRequest): Promise<TxResult> {
      if (closed) throw new Error('tx sender is closed');
      checkRequest(req);
      await ready;
      let row = await recordIntent(ctx.db, ctx.wallet, req);
      if (row.status === 'queued') row = await runQueued(row.id, req.gas);
      return watcher.outcome(row);
    },
    reconcile: reconcileNow,
    async catchUp() {
      await ready;
      await catchUp(true);
    },
    async close() {
      if (closed) return;
      closed = true;
      if (timer) clearInterval(timer);
      await nonces.idle();
      watcher.close();
    },
  };
}

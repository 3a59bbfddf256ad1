/**
 * The transaction sender: the only code in Atelier that signs. A send records the intent
 * (tx/record.ts), gets it signed and broadcast by the wallet's one nonce owner (tx/execute.ts;
 * in Redis mode through the wallet's BullMQ queue, tx/queue.ts), then waits for the receipt
 * (tx/receipts.ts), which also replaces stuck transactions (tx/replace.ts). A restart finishes
 * whatever was pending (tx/reconcile.ts). States, guarantees and policies: docs/chain.md.
 */
import type { ChainTransaction, TxStatus } from '../../db/chain-transactions.ts';
import { TxTimeoutError, type ReconcileSummary, type TxRequest, type TxResult, type TxSender, type TxSenderDeps } from './api.ts';
import { createSenderContext } from './context.ts';
import { describeError } from './errors.ts';
import { createExecutor } from './execute.ts';
import { checkRequest } from './intent.ts';
import { createNonceOwner } from './nonce-owner.ts';
import { createTxQueue, type TxQueue } from './queue.ts';
import { createReceiptWatcher } from './receipts.ts';
import { reconcile } from './reconcile.ts';
import { recordIntent } from './record.ts';

/**
 * One sender per wallet and chain in a process. In Redis mode, any number of processes may each
 * create one for the same wallet: nonces are assigned by a single queue consumer at a time.
 */
export function createTxSender(deps: TxSenderDeps): TxSender {
  const ctx = createSenderContext(deps);
  const nonces = createNonceOwner(ctx);
  const execute = createExecutor(ctx, nonces);
  const watcher = createReceiptWatcher(ctx);
  const queue: TxQueue | undefined = deps.redisUrl
    ? createTxQueue({
        redisUrl: deps.redisUrl,
        prefix: ctx.o.queuePrefix,
        name: `tx-${ctx.chainId}-${ctx.address.toLowerCase()}`,
        execute: async (rowId, gas) => (await execute(rowId, gas)).status as TxStatus,
      })
    : undefined;
  let closed = false;

  /** Gets a queued row signed and broadcast: here, or by the wallet's queue consumer in Redis mode. */
  const runQueued = async (id: string, gas?: bigint): Promise<ChainTransaction> => {
    if (!queue) return execute(id, gas);
    await queue.run(id, gas, ctx.o.receiptTimeoutMs);
    const row = await ctx.load(id);
    if (row.status === 'queued') throw new TxTimeoutError(id, null);
    return row;
  };

  const reconcileNow = (opts?: { wait?: boolean }): Promise<ReconcileSummary> => reconcile(ctx, { runQueued, watcher }, opts);

  const ready: Promise<void> = ctx.o.autoReconcile
    ? reconcileNow().then(
        () => undefined,
        (err) => ctx.log.error({ err: describeError(err) }, 'tx sender: reconcile at start failed'),
      )
    : Promise.resolve();

  return {
    chainId: ctx.chainId,
    address: ctx.address,
    async send(req: TxRequest): Promise<TxResult> {
      if (closed) throw new Error('tx sender is closed');
      checkRequest(req);
      await ready;
      let row = await recordIntent(ctx.db, ctx.wallet, req);
      if (row.status === 'queued') row = await runQueued(row.id, req.gas);
      return watcher.outcome(row);
    },
    reconcile: reconcileNow,
    async close() {
      if (closed) return;
      closed = true;
      await queue?.close();
      await nonces.idle();
      watcher.close();
    },
  };
}

/**
 * Bringing the chain back to what the database recorded, when the chain went back under us: the
 * embedded anvil killed and restarted from a state file a few seconds old, a remote node that
 * restarted, or a reorg that removed our transactions. Every row holding a nonce the chain has not
 * used yet is lost from the chain; its stored raw transaction is broadcast again, in nonce order
 * (same bytes, same hash: the answer its client got stays true). A nonce no row can fill (a row
 * that failed, was dropped, or can never land) gets a filler (0-value transfer to ourselves), so
 * nothing waits forever behind a gap. Runs inside the nonce owner's serial section.
 * Decisions: docs/chain-operations.md "Crash recovery".
 */
import type { Hex } from 'viem';
import { dropAndReleaseNonce, insertSigned, reopenLost, rowsHoldingNonceFrom, type ChainTransaction } from '../../db/chain-transactions.ts';
import { broadcastOnce } from './broadcast.ts';
import type { SenderContext } from './context.ts';
import { planRestore } from './decisions.ts';
import { signCall } from './sign.ts';

export interface RestoreSummary {
  /** The chain's mined nonce when the pass started. */
  chainNonce: number;
  /** Raw transactions broadcast again. */
  rebroadcast: number;
  /** Rows that were finished (mined/reverted) on a chain that no longer has them. */
  reopened: number;
  /** Filler transactions for nonces nothing else may use. */
  filled: number;
  /** Rows that can never land (dropped; their decks are released by the crash repair). */
  dropped: number;
}

async function hasReceipt(ctx: SenderContext, hash: Hex): Promise<boolean> {
  try {
    await ctx.client.getTransactionReceipt({ hash });
    return true;
  } catch (err) {
    if ((err as Error).name === 'TransactionReceiptNotFoundError') return false;
    throw err;
  }
}

/** Gas of a plain transfer. */
const TRANSFER_GAS = 21_000n;

/**
 * One restore pass. `watch` hands a row (now in flight) to the receipt loop. Returns undefined
 * when the chain is at or ahead of every recorded nonce (nothing to do).
 */
export async function restoreLost(
  ctx: SenderContext,
  watch: (row: ChainTransaction, rebroadcast: boolean) => void,
  opts: { fillGaps?: boolean } = {},
): Promise<(RestoreSummary & { gap: boolean }) | { gap: boolean; chainNonce: number }> {
  const minedNonce = () =>
    ctx.retry('getTransactionCount', () => ctx.client.getTransactionCount({ address: ctx.address, blockTag: 'latest' }));
  const before = await minedNonce();
  const lost = await rowsHoldingNonceFrom(ctx.db, ctx.wallet, before);
  // The chain is read again after the rows: a row another process marked mined between the two
  // reads is below this nonce, so it is not taken for a transaction the chain lost.
  const chainNonce = await minedNonce();
  const plan = planRestore(chainNonce, lost, ctx.o.restoreMaxTxs, opts.fillGaps ?? true);
  if (plan.steps.length === 0) return { gap: plan.gap, chainNonce };
  if (plan.tooMany) {
    ctx.log.warn(
      { chainNonce, lost: lost.length, max: ctx.o.restoreMaxTxs },
      'tx sender: the chain lost more recorded transactions than restoreMaxTxs; treating it as a reset chain',
    );
    return { gap: plan.gap, chainNonce };
  }
  ctx.log.warn({ chainNonce, lost: lost.length }, 'tx sender: the chain lost recorded transactions; broadcasting them again');
  const summary: RestoreSummary = { chainNonce, rebroadcast: 0, reopened: 0, filled: 0, dropped: 0 };

  const fill = async (nonce: number): Promise<void> => {
    const fees = await ctx.currentFees();
    const signed = await signCall(ctx, { nonce, to: ctx.address, value: 0n, gas: TRANSFER_GAS, ...fees });
    const row = await insertSigned(
      ctx.db,
      { purpose: 'nonce-filler', chain_id: ctx.chainId, from_address: ctx.address, to_address: ctx.address, data: null, value: '0' },
      { nonce, ...signed },
    );
    if (!row) return; // another process filled it
    await broadcastOnce(ctx, signed.raw);
    summary.filled++;
    watch(row, false);
  };

  for (const step of plan.steps) {
    if (step.do === 'fill') {
      await fill(step.nonce);
      continue;
    }
    let row = step.row as ChainTransaction;
    if (step.do === 'drop') {
      await dropAndReleaseNonce(
        ctx.db,
        row.id,
        `nonce ${row.nonce} lost from the chain; this ${row.status} transaction is never sent again`,
      );
      summary.dropped++;
      await fill(step.row.nonce!);
      continue;
    }
    if (row.status === 'mined' || row.status === 'reverted') {
      // A lagging node behind a load balancer may report an older nonce: reopen only what the
      // chain really lost (no receipt for the recorded hash). The dev chain has one node.
      if (!ctx.dev && (await hasReceipt(ctx, row.hash as Hex))) continue;
      const reopened = await reopenLost(ctx.db, row.id);
      if (!reopened) continue; // changed meanwhile (another process)
      row = reopened;
      summary.reopened++;
    }
    const kind = await broadcastOnce(ctx, row.raw_tx as Hex);
    if (kind === 'permanent' && (await hasReceipt(ctx, row.hash as Hex))) {
      // Refused as already used because it is mined after all: the receipt loop settles it.
      watch(row, false);
      continue;
    }
    if (kind === 'permanent') {
      // The node will never take these bytes (e.g. funds): the row can never land.
      await dropAndReleaseNonce(ctx.db, row.id, `the node refused the stored transaction after the chain lost it`);
      summary.dropped++;
      await fill(row.nonce!);
      continue;
    }
    summary.rebroadcast++;
    // ok / already known; fee too low or transient: the receipt loop broadcasts or replaces it.
    watch(row, kind !== 'ok' && kind !== 'already-known');
  }
  ctx.log.warn({ ...summary }, 'tx sender: restore pass done');
  return { ...summary, gap: plan.gap };
}

/**
 * Taking one recorded row from `queued` to `sent` (or `failed`): gas and fees first, in
 * parallel with other sends, then in the wallet's serial section: nonce → sign → record
 * `signed` (raw bytes stored) → broadcast → record `sent`. Safe to run twice for one row, from
 * two processes: only the caller whose conditional `queued → signed` update wins broadcasts.
 * What each broadcast answer leads to: tx/decisions.ts.
 */
import type { Address, Hex } from 'viem';
import { markFailedUnsent, markSent, returnToQueued, type ChainTransaction } from '../../db/chain-transactions.ts';
import type { TxStatus } from '../../domain/ports/tx-record.ts';
import { broadcast } from './broadcast.ts';
import type { SenderContext } from './context.ts';
import { afterBroadcast } from './decisions.ts';
import { describeError } from './errors.ts';
import { withGasMargin, type Fees } from './fees.ts';
import type { NonceOwner } from './nonce-owner.ts';
import { signCall, storeSigned, type Signed } from './sign.ts';
import type { SignOutcome } from '../../db/chain-transactions.ts';

/** A row that keeps meeting used nonces gives up after this many signatures. */
const MAX_SIGN_ATTEMPTS = 8;

export type Execute = (id: string, gasLimit?: bigint) => Promise<ChainTransaction>;

export function createExecutor(ctx: SenderContext, nonces: NonceOwner): Execute {
  const fail = async (id: string, err: unknown, from: readonly TxStatus[] = ['queued']): Promise<ChainTransaction> => {
    const message = describeError(err);
    ctx.log.warn({ id, err: message }, 'tx sender: transaction failed before reaching the chain');
    await markFailedUnsent(ctx.db, id, message, from);
    return ctx.load(id);
  };

  /** The serial section for one row; `fees` may be refreshed on the way. */
  const signAndBroadcast = async (id: string, call: { to?: Address; data?: Hex; value: bigint; gas: bigint }, fees: Fees) => {
    const row = await ctx.load(id);
    if (row.status !== 'queued') return row;
    for (let attempt = 0; attempt < MAX_SIGN_ATTEMPTS; attempt++) {
      let nonce: number;
      let signed: Signed | undefined;
      let stored: SignOutcome;
      try {
        // Nonce chosen and the signed row recorded under the wallet's lock (tx/nonce-owner.ts).
        ({ nonce, result: stored } = await nonces.assign(async (n, t) => {
          signed = await signCall(ctx, { ...call, ...fees, nonce: n });
          return storeSigned(t, id, n, signed);
        }));
      } catch (err) {
        return fail(id, err);
      }
      if (!signed) return fail(id, new Error('nothing was signed'));
      if (stored.kind === 'nonce-taken') {
        // Another row (another process) holds the nonce: it moved on; realign.
        nonces.continueAt(nonce + 1);
        continue;
      }
      if (stored.kind === 'not-queued') return ctx.load(id);
      const info = { id, nonce, hash: signed.hash };
      await ctx.o.hooks?.afterSigned?.(info);

      const answer = await broadcast(ctx, signed.raw);
      const next = afterBroadcast(answer, nonce);
      nonces.continueAt(next.next);
      switch (next.do) {
        case 'mark-sent':
          await markSent(ctx.db, id);
          await ctx.o.hooks?.afterSent?.(info);
          return ctx.load(id);
        case 'keep':
          ctx.log.warn(info, 'tx sender: broadcast outcome unknown; will rebroadcast');
          return ctx.load(id);
        case 'resign':
          if (next.refreshFees) fees = await ctx.currentFees().catch(() => fees);
          ctx.log.warn({ id, nonce, reason: answer }, 'tx sender: node refused the nonce or fee; signing again');
          await returnToQueued(ctx.db, id);
          continue;
        case 'fail':
          return fail(id, next.error, ['signed']);
      }
    }
    return fail(id, new Error(`could not find a usable nonce after ${MAX_SIGN_ATTEMPTS} attempts`));
  };

  return async (id, gasLimit) => {
    const row = await ctx.load(id);
    if (row.status !== 'queued') return row;
    const to = (row.to_address ?? undefined) as Address | undefined;
    const data = (row.data ?? undefined) as Hex | undefined;
    const value = BigInt(row.value);
    // Gas and fees outside the serial section: slow calls there would stall every other send.
    let gas: bigint;
    let fees: Fees;
    try {
      gas =
        gasLimit ??
        withGasMargin(
          await ctx.retry('estimateGas', () => ctx.client.estimateGas({ account: ctx.address, to, data, value })),
          ctx.o.gasMarginPercent,
        );
      fees = await ctx.currentFees();
    } catch (err) {
      return fail(id, err);
    }
    return nonces.serial(() => signAndBroadcast(id, { to, data, value, gas }, fees));
  };
}

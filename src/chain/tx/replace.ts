/**
 * Fee-bump replacement of a stuck transaction: same nonce, call and gas limit, fees raised
 * (tx/fees.ts), signed and recorded before it is broadcast. The record is conditional on the old
 * hash still being the row's current one, so two processes cannot both replace; whichever hash
 * gets mined wins (tx/receipts.ts).
 */
import { parseTransaction, type Hex } from 'viem';
import { recordReplacement, type ChainTransaction } from '../../db/chain-transactions.ts';
import type { SenderContext } from './context.ts';
import { replacementCap, replacementFees } from './fees.ts';
import { signCall } from './sign.ts';

export type ReplaceResult =
  /** At the bound (current estimate × maxFeeMultiplier, maxFeePerGasCap) a replacement would be refused: keep the current transaction. */
  | { kind: 'at-cap' }
  /** Recorded; the caller broadcasts `raw`. */
  | { kind: 'replaced'; hash: Hex; raw: Hex; oldHash: Hex; maxFeePerGas: bigint }
  /** Another process replaced or finished the row first: the row as it is now. */
  | { kind: 'lost'; row: ChainTransaction };

export async function replaceStuck(ctx: SenderContext, w: { id: string; nonce: number; raw: Hex; hashes: Hex[] }): Promise<ReplaceResult> {
  const old = parseTransaction(w.raw);
  const current = await ctx.currentFees().catch(() => ({ maxFeePerGas: 0n, maxPriorityFeePerGas: 0n }));
  const fees = replacementFees(
    { maxFeePerGas: old.maxFeePerGas ?? 0n, maxPriorityFeePerGas: old.maxPriorityFeePerGas ?? 0n },
    current,
    BigInt(ctx.o.feeBumpPermille),
    replacementCap(current.maxFeePerGas, ctx.o.maxFeeMultiplier, ctx.o.maxFeePerGasCap),
  );
  if (!fees) return { kind: 'at-cap' };
  const signed = await signCall(ctx, {
    nonce: w.nonce,
    to: old.to ?? null,
    data: old.data,
    value: old.value ?? 0n,
    gas: old.gas ?? 0n,
    ...fees,
  });
  const oldHash = w.hashes.at(-1)!;
  const updated = await recordReplacement(ctx.db, w.id, oldHash, signed);
  if (!updated) return { kind: 'lost', row: await ctx.load(w.id) };
  return { kind: 'replaced', ...signed, oldHash, maxFeePerGas: fees.maxFeePerGas };
}

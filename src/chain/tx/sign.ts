/**
 * Signing, and storing what was signed. The rule that makes a crash harmless: a transaction is
 * broadcast only after its raw bytes and hash are committed to the row (`queued → signed`), so a
 * restart can always resend exactly those bytes (same hash; the nonce can be used once).
 */
import { keccak256, type Address, type Hex } from 'viem';
import { markSigned, type SignOutcome } from '../../db/chain-transactions.ts';
import type { Executor } from '../../db/client.ts';
import type { SenderContext } from './context.ts';
import type { Fees } from './fees.ts';

/** An EIP-1559 transaction before signing. */
export interface UnsignedCall extends Fees {
  nonce: number;
  /** Absent: contract creation. */
  to?: Address | null;
  data?: Hex;
  value: bigint;
  gas: bigint;
}

export interface Signed {
  raw: Hex;
  hash: Hex;
}

export async function signCall(ctx: SenderContext, call: UnsignedCall): Promise<Signed> {
  if (!ctx.account.signTransaction) throw new Error('the sender needs a local account that signs transactions');
  const raw = await ctx.account.signTransaction({
    chainId: ctx.chainId,
    type: 'eip1559',
    nonce: call.nonce,
    to: call.to ?? null,
    data: call.data,
    value: call.value,
    gas: call.gas,
    maxFeePerGas: call.maxFeePerGas,
    maxPriorityFeePerGas: call.maxPriorityFeePerGas,
  });
  return { raw, hash: keccak256(raw) };
}

/** Records a signed transaction on its queued row; only a `signed` outcome may be broadcast. */
export function storeSigned(db: Executor, id: string, nonce: number, signed: Signed): Promise<SignOutcome> {
  return markSigned(db, id, { nonce, hash: signed.hash, raw: signed.raw });
}

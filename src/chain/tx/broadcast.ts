/** Handing a signed transaction to the node, and what its answer means (tx/errors.ts). */
import type { Hex } from 'viem';
import type { SenderContext } from './context.ts';
import { classifyError, type ErrorKind } from './errors.ts';

/** The node's answer to a broadcast: accepted, a classified refusal, or a permanent error. */
export type BroadcastResult = 'ok' | Exclude<ErrorKind, 'permanent'> | { error: unknown };

/** Broadcasts with transient retries (a fresh transaction). */
export async function broadcast(ctx: SenderContext, raw: Hex): Promise<BroadcastResult> {
  try {
    await ctx.retry('sendRawTransaction', () => ctx.client.sendRawTransaction({ serializedTransaction: raw }));
    return 'ok';
  } catch (err) {
    const kind = classifyError(err);
    return kind === 'permanent' ? { error: err } : kind;
  }
}

/** One try, no retries: the receipt loop calls it again on its next tick anyway. */
export async function broadcastOnce(ctx: SenderContext, raw: Hex): Promise<'ok' | ErrorKind> {
  try {
    await ctx.client.sendRawTransaction({ serializedTransaction: raw });
    return 'ok';
  } catch (err) {
    return classifyError(err);
  }
}

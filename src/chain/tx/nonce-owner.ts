/**
 * The one nonce owner of a wallet in this process: a serial section (nonce → sign → record
 * `signed` → broadcast → record `sent` run one at a time) and the counter of the next nonce.
 * Across processes the same holds through the BullMQ consumer (tx/queue.ts) and, as the last
 * guard, the unique index on (chain, wallet, nonce). The choice itself: tx/nonce.ts.
 */
import { IN_FLIGHT, dropRowsOfResetChain, highestNonce } from '../../db/chain-transactions.ts';
import type { SenderContext } from './context.ts';
import { chooseNonce, nextAfter, suspectsReset, type NonceInputs } from './nonce.ts';

export interface NonceOwner {
  /** Runs fn after every earlier one finished (failed ones included). */
  serial<T>(fn: () => Promise<T>): Promise<T>;
  /** The nonce to sign with now, read fresh from chain and database. Call inside `serial`. */
  take(): Promise<number>;
  /** Where the counter continues: `nonce + 1` once a nonce is used, `nonce` to give it back. */
  continueAt(next: number): void;
  /** Resolves once the serial section is empty. */
  idle(): Promise<void>;
}

export function createNonceOwner(ctx: SenderContext): NonceOwner {
  let tail: Promise<unknown> = Promise.resolve();
  let localNext = 0;

  return {
    serial(fn) {
      const run = tail.then(fn, fn);
      tail = run.catch(() => {});
      return run;
    },
    async take() {
      const pending = await ctx.retry('getTransactionCount', () =>
        ctx.client.getTransactionCount({ address: ctx.address, blockTag: 'pending' }),
      );
      const inputs: NonceInputs = { pending, recordedNext: nextAfter(await highestNonce(ctx.db, ctx.wallet)), localNext, dev: ctx.dev };
      if (suspectsReset(inputs)) inputs.inFlightNext = nextAfter(await highestNonce(ctx.db, ctx.wallet, IN_FLIGHT));
      const choice = chooseNonce(inputs);
      if (choice.dropFrom !== undefined) {
        ctx.log.warn(
          { chainId: ctx.chainId, pending, recorded: inputs.recordedNext },
          'tx sender: dev chain was reset; nonces start again from the chain',
        );
        await dropRowsOfResetChain(ctx.db, ctx.wallet, choice.dropFrom);
      }
      localNext = choice.nonce;
      return choice.nonce;
    },
    continueAt(next) {
      localNext = next;
    },
    async idle() {
      await tail.catch(() => {});
    },
  };
}

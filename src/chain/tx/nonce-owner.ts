/**
 * The nonce owner of a wallet: a serial section in this process (nonce → sign → record `signed`
 * → broadcast → record `sent` run one at a time, so broadcasts leave in nonce order), and across
 * processes a PostgreSQL advisory lock per wallet held while a nonce is chosen and its signed row
 * recorded, so any number of processes may sign for one wallet without Redis (docs/chain.md "Several processes, one wallet"). The
 * unique index on (chain, wallet, nonce) stays the last guard. The choice itself: tx/nonce.ts.
 */
import { dropRowsOfResetChain, highestNonce, lockWalletNonces } from '../../db/chain-transactions.ts';
import { IN_FLIGHT } from '../../domain/ports/tx-record.ts';
import { tx, type Tx } from '../../db/client.ts';
import type { SenderContext } from './context.ts';
import { chooseNonce, nextAfter, suspectsReset, type NonceInputs } from './nonce.ts';

export interface NonceOwner {
  /** Runs fn after every earlier one finished (failed ones included). */
  serial<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Under the wallet's lock: chooses the nonce (fresh from chain and database) and runs `use`
   * with it and the locked transaction, in which `use` records the signed row. Call inside `serial`.
   */
  assign<T>(use: (nonce: number, t: Tx) => Promise<T>): Promise<{ nonce: number; result: T }>;
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
    async assign(use) {
      return tx(ctx.db, async (t) => {
        await lockWalletNonces(t, ctx.wallet);
        // The recorded rows first, then the chain, both under the lock: a row another process
        // records as mined is on chain before it is recorded, so a chain count read after the rows
        // covers it. Read the other way round (the chain before the lock, as this did), a burst from
        // two replicas looked like a dev chain reset: mined mints were marked dropped and their
        // decks released (topology test).
        const recordedNext = nextAfter(await highestNonce(t, ctx.wallet));
        const inFlightNext = nextAfter(await highestNonce(t, ctx.wallet, IN_FLIGHT));
        const pending = await ctx.retry('getTransactionCount', () =>
          ctx.client.getTransactionCount({ address: ctx.address, blockTag: 'pending' }),
        );
        const inputs: NonceInputs = { pending, recordedNext, localNext, dev: ctx.dev };
        if (suspectsReset(inputs)) inputs.inFlightNext = inFlightNext;
        const choice = chooseNonce(inputs);
        if (choice.dropFrom !== undefined) {
          ctx.log.warn(
            { chainId: ctx.chainId, pending, recorded: inputs.recordedNext },
            'tx sender: dev chain was reset; nonces start again from the chain',
          );
          await dropRowsOfResetChain(t, ctx.wallet, choice.dropFrom);
        }
        localNext = choice.nonce;
        return { nonce: choice.nonce, result: await use(choice.nonce, t) };
      });
    },
    continueAt(next) {
      localNext = next;
    },
    async idle() {
      await tail.catch(() => {});
    },
  };
}

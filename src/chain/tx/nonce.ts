/**
 * Which nonce to sign with next (pure). The highest of the chain's pending count, the highest
 * recorded nonce + 1 (signed-but-unbroadcast rows, lagging RPC replicas) and this process's
 * counter, so another process or a restart never produces a duplicate.
 *
 * One exception, on the dev chain only: when the recorded nonces are above the chain's and no
 * in-flight row holds a nonce there, the chain was reset (anvil restarted without its state).
 * The finished rows at or above the chain's nonce then belong to a chain that no longer exists:
 * they are dropped and numbering starts again from the chain's count; continuing from the
 * recorded nonce would leave a gap nothing ever fills. On real chains a lower chain count means
 * a lagging node, and the recorded nonce wins.
 */

export interface NonceInputs {
  /** The chain's pending transaction count for the wallet. */
  pending: number;
  /** Highest recorded nonce + 1, or 0 when none is recorded. */
  recordedNext: number;
  /** This process's next nonce. */
  localNext: number;
  dev: boolean;
  /** Highest nonce + 1 of the rows in flight (signed, sent), 0 when none; needed when `suspectsReset`. */
  inFlightNext?: number;
}

export interface NonceChoice {
  nonce: number;
  /** Dev chain reset: drop the finished rows whose nonce is at least this. */
  dropFrom?: number;
}

/** Whether the choice depends on the in-flight rows (read them only then). */
export function suspectsReset(i: NonceInputs): boolean {
  return i.dev && Math.max(i.recordedNext, i.localNext) > i.pending;
}

export function chooseNonce(i: NonceInputs): NonceChoice {
  if (suspectsReset(i)) {
    if (i.inFlightNext === undefined) throw new Error('chooseNonce: inFlightNext is needed when the dev chain may have been reset');
    if (i.inFlightNext <= i.pending) {
      return i.recordedNext > i.pending ? { nonce: i.pending, dropFrom: i.pending } : { nonce: i.pending };
    }
  }
  return { nonce: Math.max(i.pending, i.recordedNext, i.localNext) };
}

/** `highestNonce`'s answer as the next free nonce. */
export const nextAfter = (highest: number | null): number => (highest === null ? 0 : highest + 1);

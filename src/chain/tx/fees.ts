/**
 * Gas and fee arithmetic of the sender (pure, bigint wei). A replacement must raise both
 * `maxFeePerGas` and `maxPriorityFeePerGas` by at least 12.5 % (what nodes require to accept a
 * transaction with a used nonce), so every bump is at least that; `maxFeePerGasCap` bounds it.
 */

export interface Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** The smallest replacement bump nodes accept, in per mille (+12.5 %). */
export const MIN_BUMP_PERMILLE = 125n;

/** `x · (1 + permille/1000) + 1`: the +1 keeps a bump of a tiny fee strictly above the old one. */
export function bumpFee(x: bigint, permille: bigint): bigint {
  return (x * (1000n + permille)) / 1000n + 1n;
}

/** The gas limit from an estimate: `estimate · percent / 100` (integer division). */
export function withGasMargin(estimate: bigint, percent: number): bigint {
  return (estimate * BigInt(percent)) / 100n;
}

const maxBig = (...xs: bigint[]) => xs.reduce((a, b) => (b > a ? b : a));

/**
 * Fees for replacing a stuck transaction: each of tip and fee is `max(old bumped by permille,
 * the current estimate)`, and the fee is at least the tip. With a cap the fee is clamped to it
 * (and the tip to the fee); when that leaves less than the minimum bump the node would refuse
 * the replacement, so the answer is null: keep the current transaction instead.
 */
export function replacementFees(old: Fees, current: Fees, permille: bigint, cap?: bigint): Fees | null {
  let tip = maxBig(bumpFee(old.maxPriorityFeePerGas, permille), current.maxPriorityFeePerGas);
  let fee = maxBig(bumpFee(old.maxFeePerGas, permille), current.maxFeePerGas, tip);
  if (cap !== undefined && fee > cap) {
    fee = cap;
    if (tip > fee) tip = fee;
    if (fee < bumpFee(old.maxFeePerGas, MIN_BUMP_PERMILLE) || tip < bumpFee(old.maxPriorityFeePerGas, MIN_BUMP_PERMILLE)) return null;
  }
  return { maxFeePerGas: fee, maxPriorityFeePerGas: tip };
}

/**
 * The highest maxFeePerGas a replacement may use: the node's current estimate × `multiplier`
 * (so repeated bumps stop growing once far above what the chain asks), and at most the absolute
 * `cap` when set. An unknown estimate (0) leaves only the absolute cap.
 */
export function replacementCap(currentMaxFee: bigint, multiplier: number, cap?: bigint): bigint | undefined {
  const relative = currentMaxFee > 0n ? (currentMaxFee * BigInt(Math.round(multiplier * 1000))) / 1000n : undefined;
  if (relative === undefined) return cap;
  return cap !== undefined && cap < relative ? cap : relative;
}

/**
 * When the platform wallet is low (docs/operations.md "Wallet health"). Pure.
 *
 * The default threshold is what `mints` mints would cost at the chain's current gas price, with
 * GAS_PER_MINT gas each: above `mintTo(1)` and `purchase(1)` as `npm run bench:gas` measures them,
 * so the estimate errs on the side of warning early. An operator may set a fixed threshold per
 * chain instead (WALLET_LOW_BALANCE_WEI).
 */
export const GAS_PER_MINT = 200_000n;

export function lowBalanceThreshold(o: { fixedWei?: bigint; mints: number; gasPriceWei: bigint }): bigint {
  return o.fixedWei ?? BigInt(o.mints) * GAS_PER_MINT * o.gasPriceWei;
}

/**
 * WALLET_LOW_BALANCE_WEI: one amount for every chain ("500000000000000000"), or amounts per chain
 * ("8453:200000000000000000,31337:1000000000000000000"). Throws a message naming the bad part.
 */
export function parseThresholds(value: string | undefined): { all?: bigint; byChain: Map<number, bigint> } {
  const byChain = new Map<number, bigint>();
  if (!value || value.trim() === '') return { byChain };
  const wei = (s: string) => {
    if (!/^\d{1,78}$/.test(s)) throw new Error(`"${s}" is not an amount in wei (digits only)`);
    return BigInt(s);
  };
  const parts = value.split(',').map((p) => p.trim());
  if (parts.length === 1 && !parts[0]!.includes(':')) return { all: wei(parts[0]!), byChain };
  for (const p of parts) {
    const [chain, amount, extra] = p.split(':');
    if (extra !== undefined || !chain || !amount || !/^\d{1,10}$/.test(chain)) {
      throw new Error(`"${p}" is not <chainId>:<wei>`);
    }
    byChain.set(Number(chain), wei(amount));
  }
  return { byChain };
}

export function thresholdFor(t: { all?: bigint; byChain: Map<number, bigint> }, chainId: number): bigint | undefined {
  return t.byChain.get(chainId) ?? t.all;
}

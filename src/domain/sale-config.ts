/**
 * The on-chain sale's configuration as the API speaks it and as SaleFacet stores it
 * (docs/contracts.md "Sale"). Pure: the HTTP schema validates the fields; this converts.
 */

export const MAX_PAYOUTS = 8;
export const MAX_PRICE = (1n << 128n) - 1n;
/** SaleFacet stores start/end in 40 bits (unix seconds). */
export const MAX_TIME = (1n << 40n) - 1n;
export const MAX_PER_WALLET = 2 ** 32 - 1;
export const NATIVE = 'native';
const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
const ZERO_ROOT = `0x${'0'.repeat(64)}`;

/** The body of PUT /nft/collections/:id/sale (after validation). */
export interface SaleSettings {
  currency: string; // "native" or an ERC-20 address
  price: string; // decimal, smallest unit
  start: string | null; // ISO 8601
  end: string | null;
  max_per_wallet: number | null;
  merkle_root: string | null;
  payouts: { address: string; bps: number }[];
}

/** SaleFacet.SaleConfig as viem encodes it. */
export interface SaleTuple {
  currency: `0x${string}`;
  price: bigint;
  start: bigint;
  end: bigint;
  maxPerWallet: number;
  merkleRoot: `0x${string}`;
  payouts: { recipient: `0x${string}`; bps: number }[];
}

const seconds = (iso: string | null) => (iso === null ? 0n : BigInt(Math.floor(Date.parse(iso) / 1000)));
const iso = (s: bigint) => (s === 0n ? null : new Date(Number(s) * 1000).toISOString());

export function toSaleTuple(s: SaleSettings): SaleTuple {
  return {
    currency: (s.currency === NATIVE ? ZERO_ADDRESS : s.currency.toLowerCase()) as `0x${string}`,
    price: BigInt(s.price),
    start: seconds(s.start),
    end: seconds(s.end),
    maxPerWallet: s.max_per_wallet ?? 0,
    merkleRoot: (s.merkle_root ?? ZERO_ROOT).toLowerCase() as `0x${string}`,
    payouts: s.payouts.map((p) => ({ recipient: p.address.toLowerCase() as `0x${string}`, bps: p.bps })),
  };
}

/** What GET answers: the settings read back from the chain, plus the contract's own flags. */
export function fromSaleTuple(t: SaleTuple, paused: boolean, configured: boolean) {
  return {
    configured,
    paused,
    currency: /^0x0{40}$/i.test(t.currency) ? NATIVE : t.currency,
    price: t.price.toString(),
    start: iso(t.start),
    end: iso(t.end),
    max_per_wallet: t.maxPerWallet === 0 ? null : t.maxPerWallet,
    merkle_root: /^0x0{64}$/i.test(t.merkleRoot) ? null : t.merkleRoot,
    payouts: t.payouts.map((p) => ({ address: p.recipient, bps: p.bps })),
  };
}

/**
 * How SaleFacet splits a purchase's amount over its payouts (docs/contracts.md "Sale"): each
 * recipient gets amount × bps / 10000 rounded down, the last one the remainder, so the shares
 * always sum to the amount. The same rule as the contract's, for the activity feed's payouts.
 */
export function splitPayouts(amount: bigint, payouts: readonly { address: string; bps: number }[]): { address: string; amount: string }[] {
  let left = amount;
  return payouts.map((p, i) => {
    const share = i + 1 === payouts.length ? left : (amount * BigInt(p.bps)) / 10_000n;
    left -= share;
    return { address: p.address, amount: share.toString() };
  });
}

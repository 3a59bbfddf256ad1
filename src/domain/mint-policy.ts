/**
 * A collection's mint policy (docs/minting.md "Mint policy"): who besides the owner and the
 * operator may mint, when, how many, and for what price. Pure: the minting service loads the
 * collection and asks `publicMintRefusal`, then handles payment and the per-wallet count.
 *
 * Allowlists are an address list, or a Merkle root with a proof per mint:
 * leaf = keccak256(20-byte address) (Solidity `keccak256(abi.encodePacked(addr))`), each parent =
 * keccak256 of its two children sorted ascending as bytes (OpenZeppelin MerkleProof's
 * sorted-pair hashing), an odd node is carried up unchanged.
 */
import { concat, getAddress, keccak256, type Hex } from 'viem';

export type MintAccess = 'owner' | 'public';
export const MINT_ACCESS: readonly MintAccess[] = ['owner', 'public'];

/** Decimals of the payment stablecoin: `price` (whole stablecoins) × 10^6 is the default mint price. */
export const STABLECOIN_DECIMALS = 6;

export interface MintPolicyFields {
  price: number;
  mint_access: string;
  mint_price: string | null;
  payout_address: string | null;
  max_per_wallet: number | null;
  mint_allowlist: string[] | null;
  mint_merkle_root: string | null;
  mint_start: Date | null;
  mint_end: Date | null;
}

/**
 * The largest `price` a request may set (whole stablecoins; docs/minting.md "Mint policy"): a
 * billion, so price × 10^6 (at most 10^15 units) is an exact integer in a double and far inside
 * uint256 for any mint quantity. Larger amounts are set in units with `mint_price`.
 */
export const MAX_PRICE = 1_000_000_000;

/** Stablecoin units per token: `mint_price`, else `price` in whole stablecoins. */
export function mintPriceOf(c: Pick<MintPolicyFields, 'price' | 'mint_price'>): bigint {
  if (c.mint_price !== null) return BigInt(c.mint_price);
  return unitsOfPrice(c.price);
}

/**
 * `price` (whole stablecoins, a double) in units, rounded half up at the 6th decimal, exactly from
 * its shortest decimal form: no product that overflows to Infinity, so any finite stored price
 * (one written before MAX_PRICE, up to ~1.8e308) still reads.
 */
const UNPAYABLE = (1n << 256n) - 1n;

export function unitsOfPrice(price: number): bigint {
  // No route stores a non-finite price; were one in the table, it must never mint for free.
  if (!Number.isFinite(price)) return UNPAYABLE;
  if (price <= 0) return 0n;
  const [mantissa, exponent] = price.toExponential().split('e') as [string, string];
  const [whole, fraction = ''] = mantissa.split('.') as [string, string?];
  const digits = BigInt(whole + fraction);
  const shift = Number(exponent) - fraction.length + STABLECOIN_DECIMALS;
  if (shift >= 0) return digits * 10n ** BigInt(shift);
  const divisor = 10n ** BigInt(-shift);
  return (digits + divisor / 2n) / divisor;
}

export interface Refusal {
  kind: 'forbidden' | 'conflict';
  code: string;
  message: string;
}

/**
 * Why a public mint by `wallet` at `now` is refused, or null when the policy admits it (payment
 * and the per-wallet count are checked after, by the service).
 */
export function publicMintRefusal(
  c: MintPolicyFields & { id: string },
  req: { wallet: string; now: Date; proof?: readonly string[] },
): Refusal | null {
  if (c.mint_access !== 'public') {
    return { kind: 'forbidden', code: 'MINT_OWNER_ONLY', message: `collection ${c.id} is minted by its owner only (mint_access is owner)` };
  }
  if (c.mint_start && req.now < c.mint_start) {
    return { kind: 'conflict', code: 'MINT_NOT_STARTED', message: `the mint of collection ${c.id} opens at ${c.mint_start.toISOString()}` };
  }
  if (c.mint_end && req.now >= c.mint_end) {
    return { kind: 'conflict', code: 'MINT_ENDED', message: `the mint of collection ${c.id} closed at ${c.mint_end.toISOString()}` };
  }
  const wallet = req.wallet.toLowerCase();
  const listed = c.mint_allowlist ? c.mint_allowlist.some((a) => a.toLowerCase() === wallet) : null;
  const proven = c.mint_merkle_root ? verifyMerkleProof(c.mint_merkle_root as Hex, merkleLeaf(req.wallet), req.proof ?? []) : null;
  // With both an address list and a root, either admits the wallet.
  if ((listed !== null || proven !== null) && !listed && !proven) {
    const how = c.mint_merkle_root ? (req.proof ? 'the merkle_proof does not prove it' : 'send merkle_proof for it') : 'it is not listed';
    return { kind: 'forbidden', code: 'NOT_ALLOWLISTED', message: `wallet ${getAddress(req.wallet)} is not on the allowlist: ${how}` };
  }
  return null;
}

// ---------- Merkle allowlists ----------

export const merkleLeaf = (address: string): Hex => keccak256(getAddress(address));

function hashPair(a: Hex, b: Hex): Hex {
  return a.toLowerCase() < b.toLowerCase() ? keccak256(concat([a, b])) : keccak256(concat([b, a]));
}

export function verifyMerkleProof(root: Hex, leaf: Hex, proof: readonly string[]): boolean {
  let node = leaf;
  for (const sibling of proof) node = hashPair(node, sibling as Hex);
  return node.toLowerCase() === root.toLowerCase();
}

/** Tree levels from the leaves up (leaves sorted, so the root does not depend on the list's order). */
function levels(addresses: readonly string[]): Hex[][] {
  if (addresses.length === 0) throw new Error('an allowlist needs at least one address');
  const out: Hex[][] = [[...new Set(addresses.map(merkleLeaf))].sort()];
  while (out.at(-1)!.length > 1) {
    const level = out.at(-1)!;
    const next: Hex[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(i + 1 < level.length ? hashPair(level[i]!, level[i + 1]!) : level[i]!);
    out.push(next);
  }
  return out;
}

/** The root of an address list (for owners and tests; the platform stores only the root). */
export const merkleRoot = (addresses: readonly string[]): Hex => levels(addresses).at(-1)![0]!;

/** The proof of `address` in the tree of `addresses`; throws when it is not in the list. */
export function merkleProof(addresses: readonly string[], address: string): Hex[] {
  const tree = levels(addresses);
  let index = tree[0]!.indexOf(merkleLeaf(address));
  if (index < 0) throw new Error(`${address} is not in the list`);
  const proof: Hex[] = [];
  for (const level of tree.slice(0, -1)) {
    const sibling = index % 2 === 0 ? index + 1 : index - 1;
    if (sibling < level.length) proof.push(level[sibling]!);
    index = Math.floor(index / 2);
  }
  return proof;
}

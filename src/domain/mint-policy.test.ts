import assert from 'node:assert/strict';
import { test } from 'node:test';
import { concat, encodePacked, keccak256, type Hex } from 'viem';
import {
  merkleLeaf,
  merkleProof,
  merkleRoot,
  MAX_PRICE,
  mintPriceOf,
  publicMintRefusal,
  unitsOfPrice,
  verifyMerkleProof,
  type MintPolicyFields,
} from './mint-policy.ts';

const A = '0x00000000000000000000000000000000000000a1';
const B = '0x00000000000000000000000000000000000000b2';
const C = '0x00000000000000000000000000000000000000c3';
const D = '0x00000000000000000000000000000000000000d4';
const E = '0x00000000000000000000000000000000000000e5';

const policy = (over: Partial<MintPolicyFields> = {}): MintPolicyFields & { id: string } => ({
  id: 'c1',
  price: 0,
  mint_access: 'public',
  mint_price: null,
  payout_address: null,
  max_per_wallet: null,
  mint_allowlist: null,
  mint_merkle_root: null,
  mint_start: null,
  mint_end: null,
  ...over,
});
const now = new Date('2026-06-01T12:00:00Z');

test('mint price: mint_price in stablecoin units, else price in whole stablecoins (6 decimals)', () => {
  assert.equal(mintPriceOf({ price: 2.5, mint_price: null }), 2_500_000n);
  assert.equal(mintPriceOf({ price: 2.5, mint_price: '7' }), 7n);
  assert.equal(mintPriceOf({ price: 0, mint_price: null }), 0n);
});

test('owner-only, the window, and the address list decide a public mint', () => {
  assert.equal(publicMintRefusal(policy({ mint_access: 'owner' }), { wallet: A, now })?.code, 'MINT_OWNER_ONLY');
  assert.equal(publicMintRefusal(policy(), { wallet: A, now }), null);
  assert.equal(publicMintRefusal(policy({ mint_start: new Date('2026-06-02T00:00:00Z') }), { wallet: A, now })?.code, 'MINT_NOT_STARTED');
  assert.equal(publicMintRefusal(policy({ mint_end: now }), { wallet: A, now })?.code, 'MINT_ENDED');
  assert.equal(publicMintRefusal(policy({ mint_start: new Date(0), mint_end: new Date('2027-01-01') }), { wallet: A, now }), null);
  const listed = policy({ mint_allowlist: [A.toUpperCase().replace('0X', '0x')] });
  assert.equal(publicMintRefusal(listed, { wallet: A, now }), null, 'case-insensitive');
  assert.equal(publicMintRefusal(listed, { wallet: B, now })?.code, 'NOT_ALLOWLISTED');
});

test('merkle: sorted-pair keccak256 over keccak256(address) leaves; every member proves, others do not', () => {
  const list = [A, B, C, D, E];
  const root = merkleRoot(list);
  assert.equal(merkleRoot([...list].reverse()), root, 'the order of the list does not matter');
  for (const who of list) assert.ok(verifyMerkleProof(root, merkleLeaf(who), merkleProof(list, who)), who);
  assert.equal(verifyMerkleProof(root, merkleLeaf(B), merkleProof(list, A)), false);
  // The leaf is Solidity's keccak256(abi.encodePacked(address)); a pair hashes the smaller first.
  assert.equal(merkleLeaf(A), keccak256(encodePacked(['address'], [A])));
  const [l1, l2] = [merkleLeaf(A), merkleLeaf(B)].sort() as [Hex, Hex];
  assert.equal(merkleRoot([A, B]), keccak256(concat([l1, l2])));
  assert.equal(merkleRoot([A]), merkleLeaf(A));

  const gated = policy({ mint_merkle_root: root });
  assert.equal(publicMintRefusal(gated, { wallet: C, now, proof: merkleProof(list, C) }), null);
  assert.equal(publicMintRefusal(gated, { wallet: C, now })?.code, 'NOT_ALLOWLISTED');
  const outsider = '0x00000000000000000000000000000000000000f6';
  assert.equal(publicMintRefusal(gated, { wallet: outsider, now, proof: merkleProof(list, C) })?.code, 'NOT_ALLOWLISTED');
});

test('unitsOfPrice: exact decimal units, half up at the 6th decimal, any finite price reads', () => {
  assert.equal(unitsOfPrice(0), 0n);
  assert.equal(unitsOfPrice(0.5), 500_000n);
  assert.equal(unitsOfPrice(1.25), 1_250_000n);
  assert.equal(unitsOfPrice(0.1 + 0.2), 300_000n);
  assert.equal(unitsOfPrice(0.0000005), 1n);
  assert.equal(unitsOfPrice(0.0000004), 0n);
  assert.equal(unitsOfPrice(MAX_PRICE), 10n ** 15n);
  // Stored before MAX_PRICE: price × 10^6 is Infinity in a double, yet the units are exact.
  assert.equal(unitsOfPrice(1e303), 10n ** 309n);
  assert.equal(unitsOfPrice(Number.MAX_VALUE), BigInt('17976931348623157') * 10n ** 298n);
  assert.equal(mintPriceOf({ price: 1e303, mint_price: null }), 10n ** 309n);
  // Never free: a non-finite price (no route stores one) is unpayable.
  assert.equal(unitsOfPrice(Number.POSITIVE_INFINITY), (1n << 256n) - 1n);
});

/**
 * Seeds nobody can target (docs/fairness.md): a per-collection 32-byte secret, committed on chain as
 * keccak256(secret) before any public mint and revealed later; each token's seed mixes the secret
 * with the hash of the block that mined the token. Pure formulas shared by the platform and by
 * `atelier verify`, so both compute exactly the same thing.
 */
import { encodePacked, getAddress, keccak256, type Address, type Hex } from 'viem';

export interface SeedInputs {
  secret: Hex;
  chainId: number;
  collection: Address | string;
  tokenId: number | bigint;
  /** Hash of the block that mined the token's mint transaction. */
  blockHash: Hex;
}

/** keccak256(abi.encodePacked(bytes32 secret)): what commitSeed stores and reveal checks. */
export function commitmentOf(secret: Hex): Hex {
  return keccak256(encodePacked(['bytes32'], [secret]));
}

/**
 * seed = keccak256(abi.encodePacked(bytes32 secret, uint256 chainId, address collection,
 * uint256 tokenId, bytes32 blockHash)) — 32 + 32 + 20 + 32 + 32 bytes.
 */
export function tokenSeed(i: SeedInputs): Hex {
  return keccak256(
    encodePacked(
      ['bytes32', 'uint256', 'address', 'uint256', 'bytes32'],
      [i.secret, BigInt(i.chainId), getAddress(i.collection), BigInt(i.tokenId), i.blockHash],
    ),
  );
}

/**
 * The 32-bit word the variable picks and the renderer use (domain/variables.ts takes unsigned
 * 32-bit seeds): the first 4 bytes of the seed, big-endian.
 */
export function seedWord(seed: Hex): number {
  return Number.parseInt(seed.slice(2, 10), 16) >>> 0;
}

/** A token's fair seed and everything it came from (recorded in the job data and the receipt). */
export interface FairSeed {
  seed: Hex;
  /** seedWord(seed): the seed the picks and the renderer used. */
  seed_word: number;
  commitment: Hex;
  chain_id: number;
  collection: Address;
  token_id: number;
  block_hash: Hex;
  block_number: number;
}

export function fairSeedOf(i: SeedInputs & { blockNumber: number }): FairSeed {
  const seed = tokenSeed(i);
  return {
    seed,
    seed_word: seedWord(seed),
    commitment: commitmentOf(i.secret),
    chain_id: i.chainId,
    collection: getAddress(i.collection),
    token_id: Number(i.tokenId),
    block_hash: i.blockHash,
    block_number: i.blockNumber,
  };
}

export const isBytes32 = (s: unknown): s is Hex => typeof s === 'string' && /^0x[0-9a-fA-F]{64}$/.test(s);

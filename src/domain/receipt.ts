/**
 * A token's generation receipt (docs/fairness.md "Receipts"): how its artwork was made, in one
 * document anyone can check, and the Merkle root of a collection's receipts. Pure.
 */
import { concat, keccak256, toBytes, type Hex } from 'viem';
import type { FairSeed } from './fair-seed.ts';
import type { Chooser } from './minter-choices.ts';

/** Bump when the built-in procedural renderer draws differently (its pixels are re-rendered by `atelier verify`). */
export const PROCEDURAL_RENDERER_VERSION = 'atelier-procedural/1';

export interface ReceiptVariable {
  name: string;
  value: string;
  chosen_by: Chooser;
  /** The presets and weights the platform picked from (platform picks only): the pick is re-computable. */
  options?: Array<{ value: string; weight: number }>;
}

export interface ReceiptStep {
  id: number;
  node_name: string;
  /** The step's intent with every variable substituted: the prompt the generator got. */
  prompt: string;
  seed: number;
  width?: number;
  height?: number;
  reference_images: Array<{ name: string; url: string }>;
}

/** Exact counts: where a token's dealt values come from, as its job data and receipt record it (docs/fairness.md "Exact counts"). */
export interface DealtPosition {
  position: number;
  offset: number;
  offset_block: number;
  provenance_hash: Hex;
}

export interface TokenReceipt {
  version: 1;
  collection: { id: string; chain_id: number | null; address: string | null };
  token_id: number;
  seed: {
    /** keccak256(abi.encodePacked(secret, chainId, collection, tokenId, blockHash)); null for a token minted without a commitment. */
    value: Hex | null;
    /** The 32-bit word the picks and the renderer use: the first 4 bytes of `value` (or the owner's override). */
    word: number;
    chosen_by: 'platform' | 'owner';
    inputs: Omit<FairSeed, 'seed' | 'seed_word'> | null;
  };
  variables: ReceiptVariable[];
  /** Exact counts only: the deck position the `deck` variables were dealt from (docs/fairness.md "Exact counts"). */
  deck?: DealtPosition;
  prompt: string;
  steps: ReceiptStep[];
  workflow: { id: string; name: string; type: string; definition_sha256: string | null };
  connector: { name: string; models: string[]; version: string | null };
  renderer_version: string | null;
  output: { url: string; mime_type: string | null; sha256: string; pixels_sha256: string | null };
}

/** JSON with object keys sorted at every level: one byte string per receipt. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Leaf of a receipt: keccak256 of its canonical JSON as UTF-8. */
export const receiptLeaf = (receipt: unknown): Hex => keccak256(toBytes(canonicalJson(receipt)));

/**
 * Merkle root of leaves in token-id order: a parent is keccak256 of its two children ordered
 * ascending as bytes (sorted pairs, as OpenZeppelin MerkleProof verifies); an odd node moves up.
 */
export function merkleRootOf(leaves: readonly Hex[]): Hex | null {
  if (leaves.length === 0) return null;
  let level = leaves.map((l) => l.toLowerCase() as Hex);
  while (level.length > 1) {
    const next: Hex[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const a = level[i]!;
      const b = level[i + 1];
      if (!b) next.push(a);
      else next.push(keccak256(a < b ? concat([a, b]) : concat([b, a])));
    }
    level = next;
  }
  return level[0]!;
}

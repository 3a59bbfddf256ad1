/**
 * What `atelier verify` checks in one token's receipt against public chain facts (docs/fairness.md
 * "Verify"): the receipt names this token of this contract, its seed inputs are the contract's
 * commitment and the block that mined the token, the seed recomputes from the revealed secret, and
 * every platform pick recomputes from the seed with the platform's own function. Pure: the chain
 * reads, downloads and re-rendering are src/verify.
 */
import { getAddress, type Hex } from 'viem';
import {
  ExactCountsError,
  dealDeck,
  deckPositionOf,
  provenanceHashOf,
  revealOffsetOf,
  type DeckEntry,
  type ExactSpec,
} from './exact-deck.ts';
import { commitmentOf, seedWord, tokenSeed } from './fair-seed.ts';
import { SOCIAL_PFP } from './generation-data.ts';
import type { TokenReceipt } from './receipt.ts';
import { deriveSeed, pickPreset } from './variables.ts';

/** What the chain says about the collection and one token, read by src/verify/chain.ts. */
export interface ChainFacts {
  chainId: number;
  collection: string;
  /** seedCommitment() (zero before the commit). */
  commitment: Hex;
  /** revealedSeed()'s secret once revealed; null before. */
  secret: Hex | null;
  /** The block of the token's Transfer-from-zero log; null when the chain has no such log. */
  mint: { blockNumber: number; blockHash: Hex } | null;
  /** The canonical chain's hash of the receipt's block number (getBlock); null when there is no such block. */
  canonicalBlockHash: Hex | null;
}

export interface ReceiptCheck {
  /** What differs: the token fails when any. */
  differences: string[];
  /** What was not checked, or was chosen by someone other than the platform: printed, not failures. */
  notes: string[];
}

const same = (a: unknown, b: unknown) => typeof a === 'string' && typeof b === 'string' && a.toLowerCase() === b.toLowerCase();

/** The collection-level check of the reveal: keccak256(secret) must be the commitment. */
export function checkReveal(commitment: Hex, secret: Hex | null): string | null {
  if (/^0x0+$/.test(commitment)) return 'the contract has no seed commitment';
  if (secret === null) return null;
  return same(commitmentOf(secret), commitment)
    ? null
    : `keccak256(revealed secret) ${commitmentOf(secret)} is not the commitment ${commitment}`;
}

export function checkReceipt(tokenId: number, receipt: TokenReceipt, chain: ChainFacts): ReceiptCheck {
  const differences: string[] = [];
  const notes: string[] = [];
  const differ = (what: string, got: unknown, want: unknown) => differences.push(`${what} is ${String(got)}, expected ${String(want)}`);

  if (receipt.token_id !== tokenId) differ('receipt token_id', receipt.token_id, tokenId);
  if (receipt.collection.chain_id !== chain.chainId) differ('receipt chain_id', receipt.collection.chain_id, chain.chainId);
  if (!same(receipt.collection.address, chain.collection))
    differ('receipt collection address', receipt.collection.address, chain.collection);

  const seed = receipt.seed;
  const inputs = seed.inputs;
  if (!inputs) {
    differences.push('the receipt has no seed inputs (minted without a seed commitment)');
  } else {
    if (!same(inputs.commitment, chain.commitment)) differ('seed commitment', inputs.commitment, chain.commitment);
    if (inputs.chain_id !== chain.chainId) differ('seed chain_id', inputs.chain_id, chain.chainId);
    if (!same(inputs.collection, chain.collection)) differ('seed collection', inputs.collection, chain.collection);
    if (inputs.token_id !== tokenId) differ('seed token_id', inputs.token_id, tokenId);
    if (!chain.mint) {
      differences.push('the chain has no mint (Transfer from the zero address) of this token');
    } else {
      if (inputs.block_number !== chain.mint.blockNumber)
        differ('seed block_number', inputs.block_number, `${chain.mint.blockNumber} (the mint's block)`);
      if (!same(inputs.block_hash, chain.mint.blockHash))
        differ('seed block_hash', inputs.block_hash, `${chain.mint.blockHash} (the mint's block)`);
    }
    if (chain.canonicalBlockHash === null) differences.push(`block ${inputs.block_number} is not on the chain`);
    else if (!same(inputs.block_hash, chain.canonicalBlockHash))
      differ(`seed block_hash`, inputs.block_hash, `${chain.canonicalBlockHash} (block ${inputs.block_number} on the chain)`);
  }

  if (seed.chosen_by === 'owner' || seed.value === null) {
    notes.push('seed chosen by the owner (not recomputable)');
  } else {
    if (seedWord(seed.value) !== seed.word) differ('seed word', seed.word, `${seedWord(seed.value)} (first 4 bytes of the seed)`);
    if (inputs && chain.secret !== null) {
      const want = tokenSeed({
        secret: chain.secret,
        chainId: inputs.chain_id,
        collection: getAddress(inputs.collection),
        tokenId: inputs.token_id,
        blockHash: inputs.block_hash,
      });
      if (!same(seed.value, want)) differ('seed', seed.value, `${want} (recomputed)`);
    } else if (chain.secret === null) {
      notes.push('seed not recomputed: the secret is not revealed yet');
    }
  }

  for (const v of receipt.variables) {
    if (v.chosen_by === 'deck') continue; // checked against the deck (checkDealt)
    if (v.chosen_by !== 'platform') {
      notes.push(`${v.name} chosen by ${v.chosen_by}`);
      continue;
    }
    if (v.name === SOCIAL_PFP || !v.options || v.options.length === 0) continue;
    const want = pickPreset(seed.word, v.name, v.options);
    if (want !== v.value) differ(`variable ${v.name}`, JSON.stringify(v.value), `${JSON.stringify(want)} (recomputed from the seed)`);
  }

  for (const s of receipt.steps) {
    if (s.seed !== deriveSeed(seed.word, `step:${s.id}`)) notes.push(`step ${s.id} has its own seed ${s.seed} (set by the collection)`);
  }
  return { differences, notes };
}

/** contractURI `fairness.exact` (docs/fairness.md "Exact counts"). */
export interface PublishedExact {
  provenance_hash: string;
  offset: number | null;
  offset_block: number | null;
  spec: ExactSpec;
}

/**
 * The collection-level checks of an exact collection: the published provenance is the contract's;
 * with the secret revealed, the deck dealt from it hashes to that provenance; the offset is
 * uint256(hash of the offset block on the chain) mod editions, and the offset block comes right
 * after the last mint. Answers the deck when it could be recomputed.
 */
export function checkExactDeck(
  published: PublishedExact,
  onChainProvenance: Hex | null,
  secret: Hex | null,
  offsetFacts?: { blockHash: Hex | null; lastMintBlock: number | null },
): { differences: string[]; notes: string[]; deck: DeckEntry[] | null } {
  const differences: string[] = [];
  const notes: string[] = [];
  if (!onChainProvenance || /^0x0+$/.test(onChainProvenance)) differences.push('the contract holds no provenance hash');
  else if (!same(published.provenance_hash, onChainProvenance)) {
    differences.push(`the published provenance_hash ${published.provenance_hash} is not the contract's ${onChainProvenance}`);
  }
  let deck: DeckEntry[] | null = null;
  if (secret === null) notes.push('deck not recomputed: the secret is not revealed yet');
  else {
    try {
      deck = dealDeck(published.spec, secret);
      const hash = provenanceHashOf(deck);
      if (onChainProvenance && !same(hash, onChainProvenance)) differ(differences, 'the recomputed deck hash', hash, onChainProvenance);
    } catch (err) {
      if (!(err instanceof ExactCountsError)) throw err;
      differences.push(`the published spec deals no deck: ${err.message}`);
    }
  }
  if (published.offset === null || published.offset_block === null) notes.push('offset not taken yet');
  else if (offsetFacts) {
    if (offsetFacts.blockHash === null) differences.push(`offset block ${published.offset_block} is not on the chain`);
    else {
      const want = revealOffsetOf(offsetFacts.blockHash, published.spec.editions);
      if (want !== published.offset)
        differ(differences, 'offset', published.offset, `${want} (hash of block ${published.offset_block} mod ${published.spec.editions})`);
    }
    if (offsetFacts.lastMintBlock !== null && published.offset_block !== offsetFacts.lastMintBlock + 1) {
      differ(differences, 'offset_block', published.offset_block, `${offsetFacts.lastMintBlock + 1} (the block after the last mint)`);
    }
  }
  return { differences, notes, deck };
}

/** One token of an exact collection: its receipt's deck position and every counted variable are its deck entry's. */
export function checkDealt(tokenId: number, receipt: TokenReceipt, published: PublishedExact, deck: readonly DeckEntry[]): string[] {
  const differences: string[] = [];
  const position = deckPositionOf(tokenId, published.offset!, published.spec.editions);
  if (!receipt.deck) return ['the receipt has no deck position'];
  if (receipt.deck.position !== position)
    differ(differences, 'deck position', receipt.deck.position, `${position} ((token - 1 + offset) mod editions)`);
  if (receipt.deck.offset !== published.offset) differ(differences, 'receipt offset', receipt.deck.offset, published.offset);
  if (!same(receipt.deck.provenance_hash, published.provenance_hash))
    differ(differences, 'receipt provenance_hash', receipt.deck.provenance_hash, published.provenance_hash);
  const entry = deck[position];
  for (const v of published.spec.variables) {
    const got = receipt.variables.find((x) => x.name === v.name);
    if (!got || got.chosen_by !== 'deck') differences.push(`variable ${v.name} was not dealt from the deck`);
    else if (entry && got.value !== entry[v.name])
      differ(differences, `variable ${v.name}`, JSON.stringify(got.value), `${JSON.stringify(entry[v.name])} (deck position ${position})`);
  }
  return differences;
}

function differ(into: string[], what: string, got: unknown, want: unknown) {
  into.push(`${what} is ${String(got)}, expected ${String(want)}`);
}

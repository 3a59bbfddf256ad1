/**
 * Exact trait counts (docs/fairness.md "Exact counts"): the deck of an exact collection is dealt
 * from its committed secret and its provenance hash set on chain before the first mint; a minted
 * token gets no artwork until the reveal. At sell-out (or after `mint_end`) the reveal takes the
 * offset from the hash of the first block after the last mint (once it has the configured
 * confirmations), deals each token its deck position, starts every artwork with the values there,
 * and once every artwork is done sends one BatchMetadataUpdate(1, last token id).
 *
 * Invariants: the deck and the offset are written once (insert-if-absent, update-where-null), so a
 * second pass or replica finds the first one's; the chain writes go through the tx sender under one
 * key per contract; a token whose artwork already started is never started again.
 */
import type { Hex } from 'viem';
import { zeroHash } from 'viem';
import type { CollectionRow } from '../db/collections.ts';
import type { ExactDeckRow, SeedSecretRow } from '../db/fairness.ts';
import { conflict } from '../domain/errors.ts';
import {
  ExactCountsError,
  dealDeck,
  deckPositionOf,
  exactSpecOf,
  isExact,
  provenanceHashOf,
  revealOffsetOf,
  type DealtPosition,
  type DeckEntry,
  type ExactSpec,
} from '../domain/exact-deck.ts';
import type { GenerationData } from '../domain/generation-data.ts';

export interface MintedToken {
  token_id: number;
  mint_tx_hash: string | null;
  mint_recipient: string | null;
  cover_output_id: string | null;
  /** The cover is the artwork the reveal dealt (its job data carries `dealt`). */
  dealt: boolean;
  output_status: string | null;
}

export interface ExactStore {
  getCollection(id: string): Promise<CollectionRow>;
  seedSecretOf(chainId: number, address: string): Promise<SeedSecretRow | undefined>;
  exactDeckOf(chainId: number, address: string): Promise<ExactDeckRow | undefined>;
  storeExactDeck(row: {
    collectionId: string;
    chainId: number;
    address: string;
    spec: unknown;
    deck: unknown;
    provenanceHash: string;
  }): Promise<ExactDeckRow>;
  markProvenanceSet(chainId: number, address: string, txHash: string): Promise<void>;
  recordRevealOffset(chainId: number, address: string, o: { block: number; blockHash: string; offset: number }): Promise<void>;
  markDeckAssigned(chainId: number, address: string): Promise<void>;
  markBatchUpdateSent(chainId: number, address: string, txHash: string): Promise<void>;
  mintedTokensOf(collectionId: string): Promise<MintedToken[]>;
}

export interface ExactChain {
  /** provenanceHash(); null when the contract has no such function. */
  readProvenance(chainId: number, address: string): Promise<Hex | null>;
  setProvenance(chainId: number, address: string, provenance: Hex): Promise<Hex>;
  minedBlockOf(chainId: number, txHash: Hex): Promise<{ blockNumber: number; blockHash: Hex } | null>;
  /** Block `number`'s hash once it has the configured confirmations; null before. */
  confirmedBlock(chainId: number, number: number): Promise<Hex | null>;
  emitRevealBatchUpdate(chainId: number, address: string, to: number): Promise<Hex>;
}

export interface ExactRevealPorts {
  store: ExactStore;
  chain?: ExactChain;
  /** services/minting.ts startDealtArtwork. */
  startDealtArtwork(
    c: CollectionRow,
    t: { tokenId: number; txHash: string; recipient: string },
    values: DeckEntry,
    dealt: DealtPosition,
    mined: { blockNumber: number; blockHash: Hex },
  ): Promise<unknown>;
  /** The collection's documents changed (contractURI's `fairness`, every token's document). */
  onChanged?: (collectionId: string) => void;
}

export type ExactReveal = ReturnType<typeof createExactReveal>;

const deployedOn = (c: CollectionRow) => ({ chainId: c.chain_id!, address: c.contract_address!.toLowerCase() });

export function createExactReveal({ store, chain, startDealtArtwork, onChanged }: ExactRevealPorts) {
  /**
   * An exact collection's deck, dealt and its provenance set on chain (after the secret's commit,
   * before the first mint). Null for a weighted collection. 409 EXACT_COUNTS when the stored data
   * no longer deals (it was checked at create/update), PROVENANCE_MISMATCH when the contract holds
   * another hash.
   */
  async function ensureProvenance(c: CollectionRow): Promise<ExactDeckRow | null> {
    if (!isExact(c.data as GenerationData) || !c.contract_address || c.chain_id === null || !chain) return null;
    const { chainId, address } = deployedOn(c);
    let row = await store.exactDeckOf(chainId, address);
    if (row?.provenance_tx_hash) return row;
    const secret = await store.seedSecretOf(chainId, address);
    if (!secret?.commit_tx_hash) throw conflict(`collection ${c.id} has no committed seed secret`, { code: 'NO_SEED_COMMITMENT' });
    if (!row) {
      let spec: ExactSpec;
      let deck: DeckEntry[];
      try {
        spec = exactSpecOf(c.data as GenerationData, c.editions)!;
        deck = dealDeck(spec, secret.secret as Hex);
      } catch (err) {
        if (err instanceof ExactCountsError) throw conflict(`collection ${c.id}: ${err.message}`, { code: 'EXACT_COUNTS' });
        throw err;
      }
      row = await store.storeExactDeck({ collectionId: c.id, chainId, address, spec, deck, provenanceHash: provenanceHashOf(deck) });
    }
    const onChain = await chain.readProvenance(chainId, address);
    if (onChain === null) {
      throw conflict(`collection ${c.id}'s contract cannot hold a provenance hash (deployed before setProvenance): redeploy it`, {
        code: 'NO_PROVENANCE',
      });
    }
    let tx: Hex = zeroHash;
    if (onChain === zeroHash) tx = await chain.setProvenance(chainId, address, row.provenance_hash as Hex);
    else if (onChain.toLowerCase() !== row.provenance_hash.toLowerCase()) {
      throw conflict(`collection ${c.id}'s contract holds a provenance hash the platform did not set`, { code: 'PROVENANCE_MISMATCH' });
    }
    await store.markProvenanceSet(chainId, address, tx);
    onChanged?.(c.id);
    return (await store.exactDeckOf(chainId, address))!;
  }

  /**
   * The reveal of a sale that is over (the exact-counts duty): the offset once its block is
   * confirmed and every minted token 1..tokens_minted has its deck, then the artwork of every token
   * whose cover is not the dealt one, from its deck position (again on later passes, so a deck made
   * late still gets its artwork). Answers false while waiting for a block or a deck, true once the
   * deck is assigned.
   */
  async function reveal(collectionId: string): Promise<boolean> {
    const c = await store.getCollection(collectionId);
    if (!chain || !c.contract_address || c.chain_id === null) return false;
    const { chainId, address } = deployedOn(c);
    let row = await store.exactDeckOf(chainId, address);
    if (!row?.provenance_tx_hash) return false;
    const tokens = await store.mintedTokensOf(c.id);
    if (tokens.length === 0) return false;
    // Every minted token has its deck (ids are sequential on chain): a deck still missing (a mint
    // cut off, a purchase not yet followed) waits for the next pass rather than being left out.
    const complete = tokens.length === c.tokens_minted && tokens.every((t, i) => t.token_id === i + 1);
    const spec = row.spec as ExactSpec;
    const mined = new Map<string, { blockNumber: number; blockHash: Hex }>();
    const minedOf = async (txHash: string) => {
      let m = mined.get(txHash);
      if (!m) {
        const got = await chain.minedBlockOf(chainId, txHash as Hex);
        if (!got) throw conflict(`mint transaction ${txHash} of collection ${c.id} is not on the chain`, { code: 'MINT_NOT_MINED' });
        mined.set(txHash, (m = got));
      }
      return m;
    };
    if (row.reveal_offset === null) {
      if (!complete) return false;
      // The last mint has the highest token id (ids are sequential on chain).
      const last = tokens.at(-1)!;
      const lastBlock = (await minedOf(last.mint_tx_hash!)).blockNumber;
      const offsetBlock = lastBlock + 1;
      const hash = await chain.confirmedBlock(chainId, offsetBlock);
      if (!hash) return false;
      await store.recordRevealOffset(chainId, address, {
        block: offsetBlock,
        blockHash: hash,
        offset: revealOffsetOf(hash, spec.editions),
      });
      row = (await store.exactDeckOf(chainId, address))!;
      onChanged?.(c.id);
    }
    const deck = row.deck as DeckEntry[];
    for (const t of tokens) {
      // Only a dealt cover counts: any other (set before covers were refused) is replaced.
      if (t.dealt || !t.mint_tx_hash) continue;
      const position = deckPositionOf(t.token_id, row.reveal_offset!, spec.editions);
      await startDealtArtwork(
        c,
        { tokenId: t.token_id, txHash: t.mint_tx_hash, recipient: t.mint_recipient ?? '' },
        deck[position]!,
        { position, offset: row.reveal_offset!, offset_block: row.offset_block!, provenance_hash: row.provenance_hash as Hex },
        await minedOf(t.mint_tx_hash),
      );
    }
    if (!complete) return false;
    if (!row.assigned_at) await store.markDeckAssigned(chainId, address);
    onChanged?.(c.id);
    return true;
  }

  /** One BatchMetadataUpdate(1, last token id) once every dealt token's artwork is done (completed or failed). */
  async function sendBatchUpdate(collectionId: string): Promise<boolean> {
    const c = await store.getCollection(collectionId);
    if (!chain || !c.contract_address || c.chain_id === null) return false;
    const { chainId, address } = deployedOn(c);
    const row = await store.exactDeckOf(chainId, address);
    if (!row?.assigned_at || row.batch_update_tx_hash) return false;
    const tokens = await store.mintedTokensOf(c.id);
    if (tokens.length === 0 || tokens.some((t) => t.output_status !== 'completed' && t.output_status !== 'failed')) return false;
    const tx = await chain.emitRevealBatchUpdate(chainId, address, tokens.at(-1)!.token_id);
    await store.markBatchUpdateSent(chainId, address, tx);
    return true;
  }

  return {
    ensureProvenance,
    reveal,
    sendBatchUpdate,

    /** contractURI `fairness.exact`: the spec, the provenance and, after the reveal, the offset and its block. */
    async publicState(c: { chain_id: number | null; contract_address: string | null }) {
      if (!c.contract_address || c.chain_id === null) return null;
      const row = await store.exactDeckOf(c.chain_id, c.contract_address);
      if (!row?.provenance_tx_hash) return null;
      return {
        provenance_hash: row.provenance_hash,
        offset: row.reveal_offset,
        offset_block: row.offset_block,
        offset_block_hash: row.offset_block_hash,
        spec: row.spec as ExactSpec,
        deck_formula:
          'deckSeed = keccak256(abi.encodePacked("atelier.exact-deck", bytes32 secret, uint256 attempt)); provenance_hash = keccak256(canonical JSON of the deck); offset = uint256(blockhash(offset_block)) mod editions; token t -> deck[(t - 1 + offset) mod editions]',
      };
    },
  };
}

/**
 * Crash repair (docs/minting.md "Crash repair", docs/chain-operations.md): finishes database
 * records whose chain write is final in `chain_transactions` but whose request died before
 * writing them.
 *
 * - Mints: a mined mint whose stored receipt names more tokens than there are decks carrying its
 *   hash gets one deck per missing token, with the mint state from the receipt and no artwork
 *   (the variables the request asked for are not on chain; POST …/generate starts it).
 * - Mints that can never land (the chain lost them and they were dropped, or they failed): their
 *   decks are released (token id and mint state cleared), never left "minted".
 * - Mints a reorg took off the chain (docs/minting.md "Reorgs"): the tx sender re-sends them
 *   (same bytes, same hash); meanwhile their decks are `pending` with no token id (never left
 *   "minted", their old id free for the chain to give to another mint); once the re-sent mint is
 *   mined its decks get the tokens of the new receipt; if it can never land, they are released.
 * - Deploys: every record left `deploying` is settled by the deploy service's `recover`.
 *
 * Only stored receipts are read. Everything is conditional and keyed by unique indexes, so every
 * replica may run it at once.
 */
import type { Address } from 'viem';
import type { MintTransaction } from '../db/minting.ts';
import { tokenUrl } from '../domain/metadata.ts';

export interface RepairStore {
  mintsMissingDecks(graceS: number, lookbackS: number): Promise<MintTransaction[]>;
  findTokenDeck(collectionId: string, tokenId: number): Promise<unknown>;
  createMintedDeck(m: {
    collectionId: string;
    title: string;
    tokenId: number;
    txHash: string;
    recipient: string;
    metadataUri: string;
    userId: string | null;
  }): Promise<unknown>;
  recordMinted(collectionId: string, highestTokenId: number): Promise<void>;
  /** Clears the mint state of decks whose mint transaction was dropped or failed; their ids. */
  releaseDecksOfUnlandedMints(): Promise<string[]>;
  /** Decks of mints a reorg reopened: token id cleared, `pending`; their ids. */
  unmintDecksOfReorgedMints(): Promise<string[]>;
  /** Mined mints with decks a reorg left `pending`. */
  remintedDecks(): Promise<Array<MintTransaction & { deck_ids: string[] }>>;
  setMintState(deckId: string, m: { tokenId: number; txHash: string; recipient: string; metadataUri: string }): Promise<boolean>;
}

export interface RepairPorts {
  store: RepairStore;
  /** Tokens a stored mint receipt created on a collection (chain/receipts.ts). */
  mintedTokensOf(receipt: unknown, collection: string): Array<{ tokenId: number; recipient: Address }>;
  /** The deploy service's pass over records left `deploying`. */
  recoverDeploys(): Promise<{ finished: number; released: number }>;
  metadataBaseUrl: string;
}

export interface RepairOptions {
  /**
   * Leave rows younger than this alone: their request may still be writing them. Default 10 s: a
   * live request writes its deck within a second or two of the receipt, and a replica killed
   * mid-burst must leave every on-chain token with its deck within 30 s (docs/minting.md "Crash repair").
   */
  graceMs?: number;
  /** Look back this far for mint transactions. Default 7 days. */
  lookbackMs?: number;
}

/** Creates the missing decks of mined mints; returns how many decks it created. */
export async function repairMints(ports: RepairPorts, opts: RepairOptions = {}): Promise<number> {
  const graceS = (opts.graceMs ?? 10_000) / 1000;
  const lookbackS = (opts.lookbackMs ?? 7 * 24 * 3600_000) / 1000;
  let created = 0;
  for (const tx of await ports.store.mintsMissingDecks(graceS, lookbackS)) {
    const minted = ports.mintedTokensOf(tx.receipt, tx.to_address);
    for (const m of minted) {
      if (await ports.store.findTokenDeck(tx.collection_id, m.tokenId)) continue;
      const deck = await ports.store.createMintedDeck({
        collectionId: tx.collection_id,
        title: tx.title,
        tokenId: m.tokenId,
        txHash: tx.hash,
        recipient: m.recipient,
        metadataUri: tokenUrl(ports.metadataBaseUrl, tx.collection_id, m.tokenId),
        userId: null,
      });
      if (deck) created++;
    }
    if (minted.length > 0) await ports.store.recordMinted(tx.collection_id, Math.max(...minted.map((m) => m.tokenId)));
  }
  return created;
}

/**
 * Decks of reorged mints: un-minted while their transaction is re-sent, given the new receipt's
 * tokens once it is mined again. Returns how many decks changed each way.
 */
export async function repairReorgedMints(ports: RepairPorts): Promise<{ unminted: number; reminted: number }> {
  const unminted = (await ports.store.unmintDecksOfReorgedMints()).length;
  let reminted = 0;
  for (const tx of await ports.store.remintedDecks()) {
    const free: Array<{ tokenId: number; recipient: Address }> = [];
    for (const m of ports.mintedTokensOf(tx.receipt, tx.to_address))
      if (!(await ports.store.findTokenDeck(tx.collection_id, m.tokenId))) free.push(m);
    for (const [i, deckId] of tx.deck_ids.entries()) {
      const m = free[i];
      if (!m) break;
      const ok = await ports.store.setMintState(deckId, {
        tokenId: m.tokenId,
        txHash: tx.hash,
        recipient: m.recipient,
        metadataUri: tokenUrl(ports.metadataBaseUrl, tx.collection_id, m.tokenId),
      });
      if (ok) reminted++;
    }
    if (free.length > 0) await ports.store.recordMinted(tx.collection_id, Math.max(...free.map((m) => m.tokenId)));
  }
  return { unminted, reminted };
}

/** One repair pass (src/duties/crash-repair.ts runs it every few seconds in the `crash-repair` lease holder; safe if run twice). */
export async function repairPass(ports: RepairPorts): Promise<Record<string, number> | undefined> {
  const reorged = await repairReorgedMints(ports);
  const decks = await repairMints(ports);
  const releasedDecks = (await ports.store.releaseDecksOfUnlandedMints()).length;
  const deploys = await ports.recoverDeploys();
  if (decks + releasedDecks + deploys.finished + deploys.released + reorged.unminted + reorged.reminted > 0)
    return { decks, releasedDecks, ...deploys, ...reorged };
  return undefined;
}

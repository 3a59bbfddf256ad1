/**
 * Follows the chain's purchases (docs/minting.md "On-chain sale"): a collector's `purchase` mints
 * tokens whose Transfer logs the indexer stores like any other; this duty finds the mints of our
 * collections that nobody made a deck for and the platform did not send, reads the transaction's
 * `Purchase` event (buyer, recipient, first token id, quantity, `data`), records one row per token
 * (unique on chain, tx hash, log index, token: the inserter alone starts it, so replicas and
 * restarts never start a token twice), and starts each token's artwork through the mint path's own
 * deck/job/document code with the buyer's choices. No credits: nobody signed in. A purchase the
 * indexer rolled back (reorg) has its job cancelled and its deck freed.
 */
import { getAddress, parseEventLogs, type Hex, type PublicClient } from 'viem';
import { collectionAbi } from '../../contracts/abi/index.ts';
import type { Db } from '../db/client.ts';
import { getCollection } from '../db/collections.ts';
import {
  cancelPurchase,
  claimPurchases,
  insertPurchases,
  markChoicesInvalid,
  markStarted,
  reorgedPurchases,
  unclaimedMintTxs,
  type NewPurchase,
} from '../db/sale-purchases.ts';
import { AppError } from '../domain/errors.ts';
import type { GenerationData } from '../domain/generation-data.ts';
import { parseChoices } from '../domain/purchase-choices.ts';
import type { MintingService } from './minting.ts';

export interface PurchaseFollowerDeps {
  db: Db;
  chainId: number;
  client: () => PublicClient;
  minting: Pick<MintingService, 'startPurchasedArtwork'>;
  /** How long a started artwork is held by one process before another may retry it. */
  leaseMs?: number;
  log?: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
}

export function createPurchaseFollower(deps: PurchaseFollowerDeps) {
  const { db, chainId } = deps;
  const leaseMs = deps.leaseMs ?? 30_000;
  /** Mint transactions without a Purchase (an owner's own mintTo): read once per process. */
  const notPurchases = new Set<string>();

  /** New purchase rows from the indexed mints nobody claimed; returns how many were added. */
  async function discover(): Promise<number> {
    let added = 0;
    const seen = new Set<string>();
    for (const m of await unclaimedMintTxs(db, chainId)) {
      if (seen.has(m.tx_hash) || notPurchases.has(m.tx_hash)) continue;
      seen.add(m.tx_hash);
      const receipt = await deps.client().getTransactionReceipt({ hash: m.tx_hash as Hex });
      const c = await getCollection(db, m.collection_id);
      const variables = (c.data as GenerationData | undefined)?.variables ?? [];
      const rowsToAdd: NewPurchase[] = [];
      const purchases = parseEventLogs({ abi: collectionAbi, logs: receipt.logs, eventName: 'Purchase' }).filter(
        (l) => getAddress(l.address) === getAddress(m.collection_address),
      );
      if (purchases.length === 0) notPurchases.add(m.tx_hash);
      for (const p of purchases) {
        const parsed = parseChoices(p.args.data, variables);
        const first = Number(p.args.firstTokenId);
        for (let i = 0; i < Number(p.args.quantity); i++) {
          rowsToAdd.push({
            chain_id: chainId,
            tx_hash: m.tx_hash.toLowerCase(),
            log_index: p.logIndex,
            token_id: first + i,
            block_number: Number(receipt.blockNumber),
            block_hash: receipt.blockHash,
            collection_id: m.collection_id,
            buyer: getAddress(p.args.buyer),
            recipient: getAddress(p.args.to),
            choices_status: parsed.status,
            choices: parsed.reason ? { reason: parsed.reason } : parsed.choices,
          });
        }
      }
      added += (await insertPurchases(db, rowsToAdd)).length;
    }
    return added;
  }

  /** Starts the artwork of claimed rows; returns how many started. */
  async function start(): Promise<number> {
    let started = 0;
    for (const p of await claimPurchases(db, chainId, leaseMs)) {
      const variables = p.choices_status === 'buyer' ? (p.choices as Record<string, unknown>) : {};
      try {
        const s = await deps.minting.startPurchasedArtwork(
          p.collection_id,
          { tokenId: p.token_id, txHash: p.tx_hash, recipient: p.recipient, blockNumber: p.block_number, blockHash: p.block_hash as Hex },
          variables,
        );
        await markStarted(db, p.id, s.deckId, s.jobId || null);
        started++;
      } catch (err) {
        // Only the buyer's own values failing to resolve (a preset that is not one of the
        // variable's: 400) makes the platform draw instead, and the record says so; anything else
        // (an unconfirmed block, an outage) is retried with the buyer's choices after the lease.
        if (p.choices_status !== 'buyer' || !(err instanceof AppError && err.kind === 'invalid')) throw err;
        await markChoicesInvalid(db, p.id, err.message);
        const s = await deps.minting.startPurchasedArtwork(
          p.collection_id,
          { tokenId: p.token_id, txHash: p.tx_hash, recipient: p.recipient, blockNumber: p.block_number, blockHash: p.block_hash as Hex },
          {},
        );
        await markStarted(db, p.id, s.deckId, s.jobId || null);
        started++;
      }
    }
    return started;
  }

  async function undoReorged(): Promise<number> {
    const gone = await reorgedPurchases(db, chainId);
    for (const p of gone) await cancelPurchase(db, p);
    return gone.length;
  }

  return {
    async pass() {
      const cancelled = await undoReorged();
      const added = await discover();
      const started = await start();
      return { cancelled, added, started };
    },
  };
}

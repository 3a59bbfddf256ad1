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
import type { getCollection } from '../db/collections.ts';
import type {
  cancelPurchase,
  claimPurchases,
  tryInsertPurchases,
  markScanned,
  backOffPurchase,
  markChoicesInvalid,
  markStarted,
  reorgedPurchases,
  unclaimedMintTxs,
  NewPurchase,
  PurchaseRow,
  UnclaimedMint,
} from '../db/sale-purchases.ts';
import { AppError } from '../domain/errors.ts';
import type { GenerationData } from '../domain/generation-data.ts';
import { parseChoices } from '../domain/purchase-choices.ts';
import { fromSaleTuple, splitPayouts } from '../domain/sale-config.ts';
import { storableText } from '../domain/text.ts';
import { readSale } from '../chain/sale.ts';
import type { MintingService } from './minting.ts';
import type { BoundToDb } from './ports.ts';

/** The purchase rows and collections this duty reads and writes (bound in services/wire-nft.ts). */
export type PurchaseStore = BoundToDb<{
  cancelPurchase: typeof cancelPurchase;
  claimPurchases: typeof claimPurchases;
  tryInsertPurchases: typeof tryInsertPurchases;
  markScanned: typeof markScanned;
  backOffPurchase: typeof backOffPurchase;
  markChoicesInvalid: typeof markChoicesInvalid;
  markStarted: typeof markStarted;
  reorgedPurchases: typeof reorgedPurchases;
  unclaimedMintTxs: typeof unclaimedMintTxs;
  getCollection: typeof getCollection;
}>;

export interface PurchaseFollowerDeps {
  store: PurchaseStore;
  chainId: number;
  client: () => PublicClient;
  minting: Pick<MintingService, 'startPurchasedArtwork'>;
  /** How long a started artwork is held by one process before another may retry it. */
  leaseMs?: number;
  log?: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
}

/** How long a purchased token whose start failed, or a transaction whose recording failed, waits before it is tried again. */
const RETRY_AFTER_MS = 60_000;

/** The reason recorded for a purchase whose choices the database refused (the platform draws its variables). */
export const UNSTORED = 'data could not be stored';

export function createPurchaseFollower(deps: PurchaseFollowerDeps) {
  const { store, chainId } = deps;
  const leaseMs = deps.leaseMs ?? 30_000;

  /**
   * Transactions whose recording failed, by lowercase hash: when each may be read again. They are
   * left out of the window until then, so one transaction the follower cannot record (an RPC
   * error for its receipt, a row the database refuses twice) never holds back the ones after it.
   */
  const heldTxs = new Map<string, number>();

  /**
   * New purchase rows from the indexed mints nobody claimed; returns how many were added. Each
   * transaction is recorded on its own: one that fails is logged and held back for RETRY_AFTER_MS,
   * and the others go on.
   */
  async function discover(): Promise<number> {
    const now = Date.now();
    for (const [hash, until] of heldTxs) if (until <= now) heldTxs.delete(hash);
    let added = 0;
    const seen = new Set<string>();
    for (const m of await store.unclaimedMintTxs(chainId, [...heldTxs.keys()])) {
      if (seen.has(m.tx_hash)) continue;
      seen.add(m.tx_hash);
      try {
        added += await discoverTx(m);
      } catch (err) {
        deps.log?.warn(
          { err, tx_hash: m.tx_hash, collection_id: m.collection_id },
          'sale purchase not recorded; its transaction is read again later',
        );
        heldTxs.set(m.tx_hash.toLowerCase(), Date.now() + RETRY_AFTER_MS);
      }
    }
    return added;
  }

  /** Records one mint transaction's purchases (or that it has none); returns how many rows were added. */
  async function discoverTx(m: UnclaimedMint): Promise<number> {
    const receipt = await deps.client().getTransactionReceipt({ hash: m.tx_hash as Hex });
    const c = await store.getCollection(m.collection_id);
    const variables = (c.data as GenerationData | undefined)?.variables ?? [];
    const ofCollection = (l: { address: string }) => getAddress(l.address) === getAddress(m.collection_address);
    // A Purchase counts only for the tokens this transaction really minted (Transfer from zero of
    // this contract): a facet added by diamondCut cannot invent tokens by emitting Purchase.
    const mintedHere = new Set(
      parseEventLogs({ abi: collectionAbi, logs: receipt.logs, eventName: 'Transfer' })
        .filter((l) => ofCollection(l) && /^0x0{40}$/i.test(l.args.from))
        .map((l) => Number(l.args.tokenId)),
    );
    const purchases = parseEventLogs({ abi: collectionAbi, logs: receipt.logs, eventName: 'Purchase' })
      .filter(ofCollection)
      .filter((p) => {
        const first = Number(p.args.firstTokenId);
        const q = Number(p.args.quantity);
        const real = q > 0 && q <= mintedHere.size && Array.from({ length: q }, (_, i) => first + i).every((t) => mintedHere.has(t));
        if (!real)
          deps.log?.warn({ tx_hash: m.tx_hash, first, quantity: p.args.quantity.toString() }, 'Purchase event without its mints: ignored');
        return real;
      });
    if (purchases.length === 0) {
      await store.markScanned(chainId, m.tx_hash);
      return 0;
    }
    // The payouts as the contract split them: the sale's recipients at that block, the same rule.
    const sale = await readSale(deps.client(), getAddress(m.collection_address), receipt.blockNumber).catch(() => undefined);
    let added = 0;
    // One Purchase event at a time: a row the database refuses costs only its own purchase its choices.
    for (const p of purchases) {
      const parsed = parseChoices(p.args.data, variables);
      const first = Number(p.args.firstTokenId);
      const payment = {
        currency: p.args.currency.toLowerCase(),
        amount: p.args.amount.toString(),
        quantity: Number(p.args.quantity),
        payouts: sale ? splitPayouts(p.args.amount, fromSaleTuple(sale.tuple, sale.paused, sale.configured).payouts) : null,
      };
      const rowsOf = (choices: Pick<NewPurchase, 'choices_status' | 'choices'>): NewPurchase[] =>
        Array.from({ length: Number(p.args.quantity) }, (_, i) => ({
          chain_id: chainId,
          tx_hash: m.tx_hash.toLowerCase(),
          log_index: p.logIndex,
          token_id: first + i,
          block_number: Number(receipt.blockNumber),
          block_hash: receipt.blockHash,
          collection_id: m.collection_id,
          buyer: getAddress(p.args.buyer),
          recipient: getAddress(p.args.to),
          ...choices,
          ...payment,
        }));
      const stored = await store.tryInsertPurchases(
        rowsOf({
          choices_status: parsed.status,
          choices: parsed.reason ? { reason: storableText(parsed.reason) } : parsed.choices,
        }),
      );
      if ('inserted' in stored) {
        added += stored.inserted.length;
        continue;
      }
      // The database refused the buyer's data (parseChoices should have caught it): the tokens are
      // paid for, so they are recorded without it, and the platform draws their variables.
      deps.log?.warn(
        { tx_hash: m.tx_hash, log_index: p.logIndex, refused: stored.refused },
        "purchase's choices could not be stored; recorded without them",
      );
      const again = await store.tryInsertPurchases(rowsOf({ choices_status: 'invalid', choices: { reason: UNSTORED } }));
      if ('refused' in again) throw new Error(`purchase at log ${p.logIndex} not recorded: ${again.refused}`);
      added += again.inserted.length;
    }
    return added;
  }

  /**
   * Starts the artwork of claimed rows; returns how many started. A row that fails (its collection
   * has no seed commitment, an outage) is backed off and logged; the rows after it go on.
   */
  async function start(): Promise<number> {
    let started = 0;
    for (const p of await store.claimPurchases(chainId, leaseMs)) {
      try {
        if (await startOne(p)) started++;
      } catch (err) {
        deps.log?.warn(
          { err, purchase: p.id, tx_hash: p.tx_hash, token_id: p.token_id },
          'purchased token artwork not started; retried later',
        );
        await store.backOffPurchase(p.id, RETRY_AFTER_MS);
      }
    }
    return started;
  }

  /** Starts one row's artwork with the buyer's choices, or the platform's draw when those do not resolve. */
  async function startOne(p: PurchaseRow): Promise<boolean> {
    const startWith = async (variables: Record<string, unknown>) => {
      const s = await deps.minting.startPurchasedArtwork(
        p.collection_id,
        { tokenId: p.token_id, txHash: p.tx_hash, recipient: p.recipient, blockNumber: p.block_number, blockHash: p.block_hash as Hex },
        variables,
      );
      await store.markStarted(p.id, s.deckId, s.jobId || null);
      return true;
    };
    try {
      return await startWith(p.choices_status === 'buyer' ? (p.choices as Record<string, unknown>) : {});
    } catch (err) {
      // Only the buyer's own values failing to resolve (a preset that is not one of the
      // variable's: 400) makes the platform draw instead, and the record says so; anything else
      // (an unconfirmed block, an outage) is retried with the buyer's choices after the back-off.
      if (p.choices_status !== 'buyer' || !(err instanceof AppError && err.kind === 'invalid')) throw err;
      await store.markChoicesInvalid(p.id, storableText(err.message));
      return startWith({});
    }
  }

  async function undoReorged(): Promise<number> {
    const gone = await store.reorgedPurchases(chainId);
    for (const p of gone) await store.cancelPurchase(p);
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

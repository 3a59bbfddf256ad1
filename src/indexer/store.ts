/**
 * Store stage: the only writer of the indexer's rows, over the database (src/db/indexer-store.ts,
 * src/db/ownership.ts). Each range, rollback and reindex is one transaction, so a crash leaves
 * either all of it or none of it, and a restart resumes at `last_indexed_block + 1`.
 */
import { type Db, tx } from '../db/client.ts';
import { recordTransferEvents } from '../db/webhooks.ts';
import {
  createIndexerState,
  deleteAbove,
  deleteChain,
  followedAddresses,
  insertApps,
  insertMints,
  insertOwnerTransfers,
  insertTransfers,
  insertUpgrades,
  markIndexerStarted,
  pruneBlocks,
  readIndexerState,
  recordIndexerError,
  resetIndexerState,
  rewindIndexerState,
  setIndexerProgress,
  settleIndexerState,
  storedBlocks,
  tokensTransferredAbove,
  upsertBlocks,
} from '../db/indexer-store.ts';
import {
  clearDeckOwners,
  decksOfTokens,
  latestTransfersOf,
  linkTransfersToDecks,
  ownersFromLinkedTransfers,
  setDeckOwners,
} from '../db/ownership.ts';
import { ZERO_ADDRESS } from './decode.ts';
import { deckLinks, ownersAfterRange, ownersAfterRollback, tokenKey } from './projections.ts';
import type { IndexerStore } from './store-port.ts';

export function createDbStore(db: Db, chainId: number): IndexerStore {
  const c = chainId;
  return {
    chainId,
    state: () => readIndexerState(db, c),
    async ensureState(startBlock) {
      const existing = await readIndexerState(db, c);
      if (existing) return existing;
      await createIndexerState(db, c, startBlock);
      const created = await readIndexerState(db, c);
      if (!created) throw new Error(`indexer state of chain ${c} could not be created`);
      return created;
    },
    markStarted: () => markIndexerStarted(db, c),
    recordError: (message) => recordIndexerError(db, c, message),
    settle: (status, head) => settleIndexerState(db, c, status, head),
    followedAddresses: () => followedAddresses(db, c),

    commitRange: (w) =>
      tx(db, async (t) => {
        const apps = await insertApps(t, c, w.apps);
        // Ownership projection: the decks of the range's tokens (when our records have them).
        const decks = await decksOfTokens(t, c, w.latest);
        const links = deckLinks(decks);
        const linked = w.transfers.map((x) => ({ ...x, deck_id: links.get(tokenKey(x)) ?? null }));
        // Mints are announced per mint call (app_token_mints): their rows need not come back.
        await insertTransfers(
          t,
          c,
          linked.filter((x) => x.from_address === ZERO_ADDRESS),
          false,
        );
        const transfers = await insertTransfers(
          t,
          c,
          linked.filter((x) => x.from_address !== ZERO_ADDRESS),
        );
        // Outbound `token.transferred` webhooks commit with the range (docs/webhooks.md).
        if (transfers.length > 0) await recordTransferEvents(t, c, w.from, w.to);
        const mints = await insertMints(t, c, w.mints);
        const owners = await insertOwnerTransfers(t, c, w.owners);
        const upgrades = await insertUpgrades(t, c, w.upgrades);
        await setDeckOwners(t, ownersAfterRange(w.latest, decks));
        await upsertBlocks(t, c, w.blocks);
        await setIndexerProgress(t, c, { last: w.to, hash: w.lastHash, status: w.status, head: w.head });
        return { apps, transfers, mints, owners, upgrades };
      }),

    storedBlocks: (below, limit) => storedBlocks(db, c, below, limit),
    pruneBlocks: (below) => pruneBlocks(db, c, below),

    rollbackTo: (ancestor) =>
      tx(db, async (t) => {
        const affected = await tokensTransferredAbove(t, c, ancestor.number);
        const removed = (await deleteAbove(t, c, ancestor.number)).sort(
          (a, b) => a.block_number - b.block_number || a.log_index - b.log_index,
        );
        if (affected.length) {
          const remaining = await latestTransfersOf(t, c, affected);
          await setDeckOwners(t, ownersAfterRollback(remaining, await decksOfTokens(t, c, affected)));
        }
        await rewindIndexerState(t, c, ancestor.number, ancestor.hash);
        return removed;
      }),

    reset: (startBlock) =>
      tx(db, async (t) => {
        await createIndexerState(t, c, startBlock);
        await deleteChain(t, c);
        await clearDeckOwners(t, c);
        await resetIndexerState(t, c, startBlock);
      }),

    linkDecks: () =>
      tx(db, async (t) => {
        const linked = await linkTransfersToDecks(t, c);
        await setDeckOwners(t, await ownersFromLinkedTransfers(t, linked));
        return linked.length;
      }),
  };
}

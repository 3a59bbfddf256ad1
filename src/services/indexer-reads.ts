/**
 * Reads of the ownership routes (docs/api/nft.md §4.2) and the indexer package API's lists (§4.4):
 * indexed rows from the database and the live state of an indexer in this process
 * (docs/indexer.md "Routes"). Contract reads are in contract-reads.ts.
 *
 * Reads only; every caller is authenticated by the HTTP layer (§5.1) and no policy action
 * applies. Unknown records → 404.
 */
import { getAddress } from 'viem';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import * as q from '../db/indexer-queries.ts';
import { readIndexerState } from '../db/indexer-store.ts';
import { DUTY } from '../domain/duty-names.ts';
import { liveLeaseHolder } from '../db/leases.ts';
import { notFound } from '../domain/errors.ts';
import type { IndexerHost } from '../indexer/host.ts';

export interface IndexerReadsDeps {
  db: Db;
  config: Config;
  /** The indexer of this process, if any: its chain, RPC, contracts and live status. */
  host?: IndexerHost;
}

export type IndexerReads = ReturnType<typeof createIndexerReads>;

export function createIndexerReads(deps: IndexerReadsDeps) {
  const { db, config, host } = deps;
  const defaultChain = host?.chainId ?? config.NFT_CHAIN_ID;

  /** The §4.4 lists of one app (404 when the app is unknown). */
  const ofKnownApp = async <T>(chainId: number, appId: string, list: (app: string) => Promise<T>): Promise<T> => {
    const app = getAddress(appId);
    if (!(await q.appKnown(db, chainId, app))) throw notFound(`app ${app}`);
    return list(app);
  };

  return {
    defaultChain,

    // ---------- §4.2 ownership ----------

    async collectionOwnership(collectionId: string) {
      if (!(await q.collectionExists(db, collectionId))) throw notFound(`collection ${collectionId}`);
      return q.collectionTokens(db, collectionId);
    },

    async deckTransfers(deckId: string) {
      const deck = await q.deckToken(db, deckId);
      if (!deck) throw notFound(`deck ${deckId}`);
      return { deck, transfers: await q.deckTransfers(db, deck) };
    },

    /** The persisted state of the default chain and, when the indexer runs in this process, its live flags. */
    async status() {
      const state = await readIndexerState(db, defaultChain);
      const live = host?.liveStatus?.();
      // An indexer in another process holds the chain's lease while it lives (src/duties/runner.ts):
      // without one here or there, the indexer is down, whatever its last persisted state says.
      const holder = live?.running ? undefined : await liveLeaseHolder(db, DUTY.indexer(defaultChain));
      const head = live?.head_block ?? state?.head_block ?? null;
      const last = state?.last_indexed_block ?? null;
      return {
        chainId: defaultChain,
        state,
        live,
        head,
        lag: head !== null && last !== null ? Math.max(0, head - (live?.confirmations ?? 0) - last) : null,
        process: live?.running ? ('this' as const) : holder ? ('other' as const) : ('none' as const),
        holder: holder ?? null,
      };
    },

    // ---------- §4.4 ----------

    ownerTokens: (chainId: number, page: q.Page) => q.ownerTokens(db, chainId, page),

    async ownerToken(chainId: number, id: string) {
      const app = getAddress(id);
      const [token] = await q.ownerTokens(db, chainId, { limit: 1, offset: 0 }, app);
      if (!token) throw notFound(`owner token ${app}`);
      return { token, transfers: await q.ownerTokenHistory(db, chainId, app) };
    },

    apps: (chainId: number, page: q.Page) => q.listApps(db, chainId, page),

    async app(chainId: number, id: string) {
      const address = getAddress(id);
      const [app] = await q.listApps(db, chainId, { limit: 1, offset: 0 }, address);
      if (!app) throw notFound(`app ${address}`);
      return app;
    },

    appTokens: (chainId: number, page: q.Page, app?: string) => q.appTokens(db, chainId, page, app ? getAddress(app) : undefined),
    appTokensOf: (chainId: number, appId: string, page: q.Page) => ofKnownApp(chainId, appId, (app) => q.appTokens(db, chainId, page, app)),
    mints: (chainId: number, page: q.Page, app?: string) => q.appTokenMintList(db, chainId, page, app ? getAddress(app) : undefined),
    mintsOf: (chainId: number, appId: string, page: q.Page) =>
      ofKnownApp(chainId, appId, (app) => q.appTokenMintList(db, chainId, page, app)),
  };
}

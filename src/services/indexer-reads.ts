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
import type * as q from '../db/indexer-queries.ts';
import type { readIndexerState } from '../db/indexer-store.ts';
import { DUTY } from '../domain/duty-names.ts';
import type { liveLeaseHolder } from '../db/leases.ts';
import { notFound } from '../domain/errors.ts';
import type { IndexerHost } from '../indexer/host.ts';
import { createHeadReader, holderKnownGone, statusRpcUrl, type StatusRpcOptions } from './indexer-health.ts';
import type { BoundToDb } from './ports.ts';

/** The indexed rows this service reads (bound to the database in services/wire-indexer.ts). */
export type IndexerReadStore = BoundToDb<
  Pick<
    typeof q,
    | 'appKnown'
    | 'collectionExists'
    | 'collectionTokens'
    | 'deckToken'
    | 'deckTransfers'
    | 'ownerTokens'
    | 'ownerTokenHistory'
    | 'listApps'
    | 'appTokens'
    | 'appTokenMintList'
  > & { readIndexerState: typeof readIndexerState; liveLeaseHolder: typeof liveLeaseHolder }
>;

/** What the indexer reads read from the configuration: the default chain and where its head is read. */
export type IndexerReadsSettings = StatusRpcOptions & Pick<Config, 'NFT_CHAIN_ID'>;

export interface IndexerReadsDeps {
  store: IndexerReadStore;
  config: IndexerReadsSettings;
  /** The indexer of this process, if any: its chain, RPC, contracts and live status. */
  host?: IndexerHost;
}

export type IndexerReads = ReturnType<typeof createIndexerReads>;

export function createIndexerReads(deps: IndexerReadsDeps) {
  const { store, config, host } = deps;
  const defaultChain = host?.chainId ?? config.NFT_CHAIN_ID;
  // The head as the chain says it now, not as the indexer last wrote it (services/indexer-health.ts).
  const chainHead = createHeadReader(defaultChain, statusRpcUrl(defaultChain, config, host?.rpcUrl));

  /** The §4.4 lists of one app (404 when the app is unknown). */
  const ofKnownApp = async <T>(chainId: number, appId: string, list: (app: string) => Promise<T>): Promise<T> => {
    const app = getAddress(appId);
    if (!(await store.appKnown(chainId, app))) throw notFound(`app ${app}`);
    return list(app);
  };

  return {
    defaultChain,

    // ---------- §4.2 ownership ----------

    async collectionOwnership(collectionId: string) {
      if (!(await store.collectionExists(collectionId))) throw notFound(`collection ${collectionId}`);
      return store.collectionTokens(collectionId);
    },

    async deckTransfers(deckId: string) {
      const deck = await store.deckToken(deckId);
      if (!deck) throw notFound(`deck ${deckId}`);
      return { deck, transfers: await store.deckTransfers(deck) };
    },

    /** The persisted state of the default chain and, when the indexer runs in this process, its live flags. */
    async status() {
      const state = await store.readIndexerState(defaultChain);
      const live = host?.liveStatus?.();
      // An indexer in another process holds the chain's lease while it lives (src/duties/runner.ts):
      // without one here or there, the indexer is down, whatever its last persisted state says.
      const leased = live?.running ? undefined : await store.liveLeaseHolder(DUTY.indexer(defaultChain));
      // A holder of this host whose process is gone (kill -9) lost the lease now, not at its expiry.
      const holder = leased && !holderKnownGone(leased) ? leased : undefined;
      // Running here, its live head is this process's own fresh view; else the chain's head now.
      const head = (live?.running ? live.head_block : await chainHead()) ?? live?.head_block ?? state?.head_block ?? null;
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

    ownerTokens: (chainId: number, page: q.Page) => store.ownerTokens(chainId, page),

    async ownerToken(chainId: number, id: string) {
      const app = getAddress(id);
      const [token] = await store.ownerTokens(chainId, { limit: 1, offset: 0 }, app);
      if (!token) throw notFound(`owner token ${app}`);
      return { token, transfers: await store.ownerTokenHistory(chainId, app) };
    },

    apps: (chainId: number, page: q.Page) => store.listApps(chainId, page),

    async app(chainId: number, id: string) {
      const address = getAddress(id);
      const [app] = await store.listApps(chainId, { limit: 1, offset: 0 }, address);
      if (!app) throw notFound(`app ${address}`);
      return app;
    },

    appTokens: (chainId: number, page: q.Page, app?: string) => store.appTokens(chainId, page, app ? getAddress(app) : undefined),
    appTokensOf: (chainId: number, appId: string, page: q.Page) => ofKnownApp(chainId, appId, (app) => store.appTokens(chainId, page, app)),
    mints: (chainId: number, page: q.Page, app?: string) => store.appTokenMintList(chainId, page, app ? getAddress(app) : undefined),
    mintsOf: (chainId: number, appId: string, page: q.Page) =>
      ofKnownApp(chainId, appId, (app) => store.appTokenMintList(chainId, page, app)),
  };
}

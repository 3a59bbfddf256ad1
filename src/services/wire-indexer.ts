/**
 * The wiring of the indexer's read service (services/indexer-reads.ts, docs/indexer.md "Routes"):
 * its store bound to src/db.
 */
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import {
  appKnown,
  appTokenMintList,
  appTokens,
  collectionExists,
  collectionTokens,
  deckToken,
  deckTransfers,
  listApps,
  ownerTokenHistory,
  ownerTokens,
} from '../db/indexer-queries.ts';
import { readIndexerState } from '../db/indexer-store.ts';
import { liveLeaseHolder } from '../db/leases.ts';
import type { IndexerHost } from '../indexer/host.ts';
import { createIndexerReads, type IndexerReads } from './indexer-reads.ts';
import { bindDb } from './ports.ts';

export function indexerReadsOn(db: Db, config: Config, host?: IndexerHost): IndexerReads {
  return createIndexerReads({
    store: bindDb(db, {
      appKnown,
      appTokenMintList,
      appTokens,
      collectionExists,
      collectionTokens,
      deckToken,
      deckTransfers,
      listApps,
      ownerTokenHistory,
      ownerTokens,
      readIndexerState,
      liveLeaseHolder,
    }),
    config,
    ...(host ? { host } : {}),
  });
}

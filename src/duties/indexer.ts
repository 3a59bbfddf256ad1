/**
 * The ownership indexer's follow loop as a duty (docs/indexer.md): one follower per chain across
 * every indexer process, the holder of the chain's lease; a standby process takes over within the
 * lease's time-to-live of the holder's death.
 */
import type { Db } from '../db/client.ts';
import { DUTY, type LeasedDuty, startLeasedDuty } from './runner.ts';

export function startIndexerDuty(opts: {
  db: Db;
  chainId: number;
  indexer: { start(): void; stop(): Promise<void> };
  leaseTtlMs: number;
  logger: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}): LeasedDuty {
  const { indexer, logger, chainId } = opts;
  return startLeasedDuty({
    db: opts.db,
    name: DUTY.indexer(chainId),
    ttlMs: opts.leaseTtlMs,
    start: () => {
      indexer.start();
      return { stop: () => indexer.stop() };
    },
    onError: (err) => logger.warn({ err: String(err) }, 'indexer lease failed'),
    onChange: (leader) => logger.info({ chainId, leader }, leader ? 'indexer lease taken' : 'indexer lease given up'),
  });
}

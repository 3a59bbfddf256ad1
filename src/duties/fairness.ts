/**
 * The fairness duty (docs/fairness.md): commits the seed secret of every deployed collection that
 * has none yet (a deployment made by any path is committed within seconds) and reveals the secret
 * of every sold-out collection. One holder across replicas (the `fairness` lease).
 */
import type { Db } from '../db/client.ts';
import { getCollection } from '../db/collections.ts';
import { collectionsToCommit, soldOutUnrevealed } from '../db/fairness.ts';
import type { FairSeeds } from '../services/fair-seeds.ts';
import { type BackgroundDuty, every } from './runner.ts';

export function startFairnessDuty(
  db: Db,
  fair: FairSeeds,
  opts: { intervalMs?: number; onError?: (err: unknown) => void } = {},
): BackgroundDuty {
  return every(
    opts.intervalMs ?? 5_000,
    async () => {
      for (const { id } of await collectionsToCommit(db)) {
        const c = await getCollection(db, id);
        await fair.ensureCommitted(c).catch((err: unknown) => opts.onError?.(err));
      }
      for (const { id } of await soldOutUnrevealed(db)) {
        await fair.revealSoldOut(id).catch((err: unknown) => opts.onError?.(err));
      }
    },
    opts.onError,
  );
}

/**
 * The exact-counts duty (docs/fairness.md "Exact counts"), in a process that starts artwork (the
 * backend with a job queue, like the purchase follower): sets the provenance of every exact
 * collection whose secret is committed (a deployment made by any path gets it before a sale),
 * reveals every exact collection whose sale is over (offset, artworks, then the secret; the secret
 * again on a later pass when that failed), and sends
 * the one BatchMetadataUpdate once the artworks are done. One holder across replicas (the
 * `exact-reveal` lease).
 */
import type { Db } from '../db/client.ts';
import { getCollection } from '../db/collections.ts';
import {
  exactAssignedUnrevealed,
  exactCollectionsAwaitingBatchUpdate,
  exactCollectionsToReveal,
  exactCollectionsWithoutProvenance,
} from '../db/fairness.ts';
import type { ExactReveal } from '../services/exact-reveal.ts';
import type { FairSeeds } from '../services/fair-seeds.ts';
import { type BackgroundDuty, every, startLeasedDuty } from './runner.ts';

export function startExactRevealDuty(
  db: Db,
  exact: ExactReveal,
  fair: FairSeeds,
  opts: { intervalMs?: number; onError?: (err: unknown) => void } = {},
): BackgroundDuty {
  const safely = (p: Promise<unknown>) => p.catch((err: unknown) => opts.onError?.(err));
  return every(
    opts.intervalMs ?? 2_000,
    async () => {
      for (const { id } of await exactCollectionsWithoutProvenance(db)) await safely(exact.ensureProvenance(await getCollection(db, id)));
      for (const { id } of await exactCollectionsToReveal(db)) {
        // The secret is published after the offset is taken: verify recomputes the deck from it.
        await safely(exact.reveal(id).then((dealt) => (dealt ? fair.revealSoldOut(id) : undefined)));
      }
      // The same reveal again when it failed after the assignment (idempotent): else never retried.
      for (const { id } of await exactAssignedUnrevealed(db)) await safely(fair.revealSoldOut(id));
      for (const { id } of await exactCollectionsAwaitingBatchUpdate(db)) await safely(exact.sendBatchUpdate(id));
    },
    opts.onError,
  );
}

export function startLeasedExactReveal(deps: {
  db: Db;
  exact: ExactReveal;
  fair: FairSeeds;
  ttlMs?: number;
  intervalMs?: number;
  log?: { warn(obj: object, msg: string): void };
}): BackgroundDuty {
  return startLeasedDuty({
    db: deps.db,
    name: 'exact-reveal',
    ...(deps.ttlMs ? { ttlMs: deps.ttlMs } : {}),
    start: () =>
      startExactRevealDuty(deps.db, deps.exact, deps.fair, {
        ...(deps.intervalMs ? { intervalMs: deps.intervalMs } : {}),
        onError: (err) => deps.log?.warn({ err }, 'exact counts: provenance/reveal failed'),
      }),
    onError: (err) => deps.log?.warn({ err, duty: 'exact-reveal' }, 'duty lease failed'),
  });
}

/**
 * The purchase follower as a duty (docs/minting.md "On-chain sale"): every second, one process at
 * a time (the lease `sale-purchases:<chainId>`) turns the chain's `Purchase` events into decks and
 * artwork (services/sale-purchases.ts). The lease keeps two replicas from racing to the same row;
 * the row's unique key keeps a token from starting twice even if they did.
 */
import type { Db } from '../db/client.ts';
import { createPurchaseFollower, type PurchaseFollowerDeps } from '../services/sale-purchases.ts';
import { type BackgroundDuty, every, startLeasedDuty } from './runner.ts';

/** Runs the follower every `intervalMs` (default 1 s) until stopped. */
export function startPurchaseFollower(deps: PurchaseFollowerDeps & { intervalMs?: number }): BackgroundDuty {
  const follower = createPurchaseFollower(deps);
  return every(
    deps.intervalMs ?? 1000,
    async () => {
      const r = await follower.pass();
      if (r.added || r.started || r.cancelled) deps.log?.info({ ...r, chain_id: deps.chainId }, 'sale purchases');
    },
    (err) => deps.log?.warn({ err }, 'sale purchase follower failed'),
  );
}

/** The follower under the lease `sale-purchases:<chainId>`: one process at a time runs it. */
export function startLeasedPurchaseFollower(deps: PurchaseFollowerDeps & { db: Db; ttlMs?: number }): BackgroundDuty {
  const name = `sale-purchases:${deps.chainId}`;
  return startLeasedDuty({
    db: deps.db,
    name,
    ...(deps.ttlMs ? { ttlMs: deps.ttlMs } : {}),
    start: () => startPurchaseFollower(deps),
    onError: (err) => deps.log?.warn({ err, duty: name }, 'duty lease failed'),
  });
}

/**
 * Stale-step reconciliation as a duty (docs/jobs.md): generation/worker.ts's reconcileStaleSteps
 * at once (a queue store that lost its data while everything was down is noticed at start-up),
 * then every `intervalMs`, in the one process across every worker and backend that holds the
 * `jobs-reconciler` lease.
 */
import { type QueueContext, RECONCILE_INTERVAL_MS, reconcileStaleSteps } from '../generation/worker.ts';
import { type LeasedDuty, DUTY, startLeasedDuty } from './runner.ts';

export interface ReconcilerOptions {
  intervalMs?: number;
  staleMs?: number;
  onError?: (err: unknown) => void;
}

/** The timed passes alone (no lease); returns a stop function. */
export function startReconciler(ctx: QueueContext, opts: ReconcilerOptions = {}): () => void {
  let running = false;
  let stopped = false;
  const pass = () => {
    if (running || stopped) return;
    running = true;
    reconcileStaleSteps(ctx, opts)
      .catch((err) => opts.onError?.(err))
      .finally(() => {
        running = false;
      });
  };
  const first = setTimeout(pass, 0);
  const timer = setInterval(pass, opts.intervalMs ?? RECONCILE_INTERVAL_MS);
  timer.unref();
  first.unref();
  return () => {
    stopped = true;
    clearTimeout(first);
    clearInterval(timer);
  };
}

/** The reconciler in the holder of its lease. */
export function startJobsReconcilerDuty(
  ctx: QueueContext,
  opts: ReconcilerOptions & { leaseTtlMs: number; onLeaseError?: (err: unknown) => void },
): LeasedDuty {
  return startLeasedDuty({
    db: ctx.db,
    name: DUTY.jobsReconciler,
    ttlMs: opts.leaseTtlMs,
    start: () => {
      const stop = startReconciler(ctx, opts);
      return { stop: async () => stop() };
    },
    onError: opts.onLeaseError,
  });
}

/**
 * Watchdog (docs/indexer.md): `behind` when the safe head is more than `maxLagBlocks` above the
 * last indexed block; `stalled` when a running loop completed no pass for `maxStallMs` (an
 * unreachable RPC or database shows up here). `assess` is the decision (pure); the engine runs it
 * every `intervalMs` after refreshing the head, logs the warnings and shows them in the status.
 */

export interface WatchdogLimits {
  intervalMs: number;
  maxLagBlocks: number;
  maxStallMs: number;
}

export const DEFAULT_WATCHDOG: WatchdogLimits = { intervalMs: 10_000, maxLagBlocks: 100, maxStallMs: 60_000 };

/** What the engine knows about its progress. */
export interface Progress {
  running: boolean;
  headBlock: number | null;
  lastIndexed: number | null;
  /** When the last pass completed (ms since the epoch). */
  lastProgressAt: number | null;
  confirmations: number;
}

/** The live status shown by the status routes (besides the persisted state). */
export interface LiveStatus {
  running: boolean;
  head_block: number | null;
  lag_blocks: number | null;
  last_progress_at: string | null;
  behind: boolean;
  stalled: boolean;
  warnings: string[];
  confirmations: number;
}

export interface Assessment {
  lag_blocks: number | null;
  behind: boolean;
  stalled: boolean;
  warnings: string[];
}

/** The watchdog's decision at `now`. */
export function assess(p: Progress, limits: Pick<WatchdogLimits, 'maxLagBlocks' | 'maxStallMs'>, now: number): Assessment {
  const lag = p.headBlock !== null && p.lastIndexed !== null ? Math.max(0, p.headBlock - p.confirmations - p.lastIndexed) : null;
  const behind = lag !== null && lag > limits.maxLagBlocks;
  const stalled = p.running && p.lastProgressAt !== null && now - p.lastProgressAt > limits.maxStallMs;
  const warnings: string[] = [];
  if (behind) warnings.push(`indexer is ${lag} blocks behind the head (${p.headBlock})`);
  if (stalled) warnings.push(`indexer made no progress since ${new Date(p.lastProgressAt!).toISOString()}`);
  return { lag_blocks: lag, behind, stalled, warnings };
}

/** The live status: flags as of `now`, warnings as of the last watchdog check. */
export function liveStatusOf(p: Progress, a: Assessment, lastWarnings: readonly string[]): LiveStatus {
  return {
    running: p.running,
    head_block: p.headBlock,
    lag_blocks: a.lag_blocks,
    last_progress_at: p.lastProgressAt === null ? null : new Date(p.lastProgressAt).toISOString(),
    behind: a.behind,
    stalled: a.stalled,
    warnings: [...lastWarnings],
    confirmations: p.confirmations,
  };
}

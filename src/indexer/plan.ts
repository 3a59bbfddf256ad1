/**
 * Range planning (pure): which blocks the next range covers, which headers it checks, how the
 * eth_getLogs range size adapts, the status a pass leaves behind, and the retry delay.
 * docs/indexer.md "Algorithm" and "Status transitions".
 */
import type { IndexerStatus } from '../domain/ports/indexer-rows.ts';

/** The next range after `last`, at most `size` blocks and never above `safe`; none when caught up. */
export function nextRange(last: number, safe: number, size: number): { from: number; to: number } | undefined {
  if (last >= safe) return undefined;
  const from = last + 1;
  return { from, to: Math.min(safe, from + Math.max(1, size) - 1) };
}

/** A range ending within `window` blocks of the head is "recent": every header is checked and kept. */
export const isRecent = (to: number, head: number, window: number) => to > head - window;

/** Headers to fetch: near the head every block of the range, deeper only its first and last. */
export function headerNumbers(from: number, to: number, recent: boolean): number[] {
  if (!recent) return from === to ? [from] : [from, to];
  const out: number[] = [];
  for (let n = from; n <= to; n++) out.push(n);
  return out;
}

/**
 * The eth_getLogs range size: starts at `max`, halves on an error that looks like a provider's
 * size limit, doubles back (up to `max`) after ranges with few logs.
 */
export class RangeSize {
  private size: number;
  constructor(
    readonly max: number,
    private readonly smallRange = 2000,
  ) {
    this.size = max;
  }

  get current(): number {
    return this.size;
  }

  /** After a failed eth_getLogs: true when the range was shrunk and the range should be retried. */
  shrink(err: unknown): boolean {
    if (this.size <= 1 || !isRangeError(err)) return false;
    this.size = Math.max(1, Math.floor(this.size / 2));
    return true;
  }

  /** After a committed range with `logs` logs. */
  grow(logs: number): void {
    if (logs < this.smallRange && this.size < this.max) this.size = Math.min(this.max, this.size * 2);
  }
}

/** Provider messages that mean "ask for fewer blocks" (sizes, limits, timeouts). */
export function isRangeError(err: unknown): boolean {
  const m = err instanceof Error ? err.message.toLowerCase() : '';
  return /range|too many|limit|exceed|timeout|timed out|response size|query returned more/.test(m);
}

/**
 * The status once everything up to `reached` is indexed: `idle` at the safe head; below it a
 * full reindex stays `reindexing`, anything else is `indexing`.
 */
export function statusAt(current: IndexerStatus, reached: number, safe: number): IndexerStatus {
  if (reached >= safe) return 'idle';
  return current === 'reindexing' ? 'reindexing' : 'indexing';
}

/** The wait before the next pass: the poll interval, or after failures 0.5 s doubling up to 30 s. */
export function retryDelay(failures: number, pollMs: number): number {
  return failures ? Math.min(30_000, 500 * 2 ** (failures - 1)) : pollMs;
}

/** Default confirmations: none on the dev chain (31337), 12 elsewhere. */
export const defaultConfirmations = (chainId: number) => (chainId === 31337 ? 0 : 12);

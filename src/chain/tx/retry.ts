/**
 * The sender's retry schedule. Transient RPC failures (tx/errors.ts) are retried with exponential
 * backoff and ±25 % jitter, capped at `maxMs`; anything else is rethrown at once. viem's own
 * retries are off in the sender's client, so every retry happens here and is logged.
 */
import { classifyError } from './errors.ts';

export interface RetryOptions {
  /** Tries after the first one. */
  retries: number;
  baseMs: number;
  maxMs: number;
  onRetry?: (err: unknown, attempt: number, delayMs: number) => void;
  /** Waits between tries (tests pass a recorder). Default: a timer. */
  sleep?: (ms: number) => Promise<void>;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * The wait before retry number `attempt` (0 for the first retry): `baseMs · 2^attempt`, at most
 * `maxMs`, times a jitter factor in [0.75, 1.25) drawn from `random` (in [0, 1)).
 */
export function retryDelay(attempt: number, o: { baseMs: number; maxMs: number }, random: number = Math.random()): number {
  return Math.min(o.maxMs, o.baseMs * 2 ** attempt) * (0.75 + random * 0.5);
}

/**
 * The receipt loop's wait after a tick: the poll interval while the RPC answers; after
 * `failures` failed ticks in a row, `pollMs · 2^failures` (exponent at most 10), at most `maxMs`.
 */
export function pollDelay(failures: number, pollMs: number, maxMs: number): number {
  return failures ? Math.min(maxMs, pollMs * 2 ** Math.min(failures, 10)) : pollMs;
}

/** Runs fn; retries transient failures on the schedule above; rethrows the rest. */
export async function withRetry<T>(fn: () => Promise<T>, opts: RetryOptions): Promise<T> {
  const wait = opts.sleep ?? sleep;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= opts.retries || classifyError(err) !== 'transient') throw err;
      const delay = retryDelay(attempt, opts);
      opts.onRetry?.(err, attempt + 1, Math.round(delay));
      await wait(delay);
    }
  }
}

/**
 * The duty runner: timed passes (`every`) and singleton duties (docs/operations.md "Singleton
 * duties"). A singleton duty must run once across any number of processes (the MetadataUpdate emitter, crash repair, stale-step reconciliation, the
 * indexer of a chain) runs only in the process holding its lease in the database (db/leases.ts).
 *
 * Every candidate tries to take or renew the lease every `renewMs` (ttl / 3). The holder renews
 * it before it expires; when the holder dies (kill -9), its lease expires after at most `ttlMs`
 * and the next candidate's attempt takes it over. A holder that cannot renew (database down,
 * process paused) stops its duty before the lease can expire under it (its own deadline is
 * measured from before the renewing query was sent, so it ends no later than the database's), so
 * two processes never run the duty at once. The duties are idempotent besides (keyed writes), so a
 * pause longer than that guard would cost repeated work, not duplicates.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Db } from '../db/client.ts';
import { acquireLease, releaseLease } from '../db/leases.ts';
import { DUTY } from '../domain/duty-names.ts';

export { DUTY };

/** Anything started that stops (a timed duty below, the indexer loop). */
export interface BackgroundDuty {
  stop(): Promise<void>;
}

/** Runs `pass` now and `intervalMs` after each pass ends, until stopped (waits for a running pass). */
export function every(intervalMs: number, pass: () => Promise<unknown>, onError?: (err: unknown) => void): BackgroundDuty {
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    if (stopped) return;
    running = pass()
      .catch((err) => onError?.(err))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
  };
  timer = setTimeout(tick, 0);
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}

export const DEFAULT_LEASE_TTL_MS = 10_000;

/** This process as a lease holder: host, pid and a random part (a restarted pid is a new holder). */
export const PROCESS_HOLDER = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

export interface LeasedDuty {
  readonly name: string;
  readonly holder: string;
  /** Whether this process holds the lease and runs the duty now. */
  isLeader(): boolean;
  /**
   * Stops the duty and gives the lease up so another candidate takes it at once. With
   * `release: false` the lease is left to expire, as a killed process would (tests).
   */
  stop(opts?: { release?: boolean }): Promise<void>;
}

export interface LeasedDutyOptions {
  db: Db;
  name: string;
  /** Starts the duty when the lease is taken; its stop() is called when the lease is lost. */
  start: () => BackgroundDuty | Promise<BackgroundDuty>;
  holder?: string;
  ttlMs?: number;
  renewMs?: number;
  onError?: (err: unknown) => void;
  onChange?: (leader: boolean) => void;
}

/** Leases started in this process, for the leader gauges (/metrics) and status. */
const running = new Set<LeasedDuty>();

/** Each duty this process is a candidate for: true when it holds the lease. */
export function dutyLeaders(): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const d of running) out[d.name] = (out[d.name] ?? false) || d.isLeader();
  return out;
}

/** Runs `start()`'s duty while this process holds the lease `name` (see the module comment). */
export function startLeasedDuty(o: LeasedDutyOptions): LeasedDuty {
  const ttlMs = o.ttlMs ?? DEFAULT_LEASE_TTL_MS;
  const renewMs = o.renewMs ?? Math.max(200, Math.floor(ttlMs / 3));
  // Stop the duty this long before the lease could expire (timer and query jitter).
  const marginMs = Math.min(1000, Math.floor(ttlMs / 5));
  const holder = o.holder ?? PROCESS_HOLDER;
  let duty: BackgroundDuty | undefined;
  let starting: Promise<void> | undefined;
  let validUntil = 0;
  let stopped = false;
  let wake: (() => void) | undefined;

  const setLeader = (leader: boolean) => o.onChange?.(leader);

  const stopDuty = async () => {
    await starting;
    const d = duty;
    if (!d) return;
    duty = undefined;
    setLeader(false);
    await d.stop();
  };

  const startDuty = async () => {
    if (duty || starting || stopped) return;
    starting = (async () => {
      try {
        duty = await o.start();
        setLeader(true);
      } catch (err) {
        o.onError?.(err);
      }
    })();
    await starting;
    starting = undefined;
  };

  const attempt = async () => {
    const askedAt = Date.now();
    let held: boolean;
    try {
      held = await acquireLease(o.db, o.name, holder, ttlMs);
    } catch (err) {
      // Unknown: keep the duty until the guard sees the deadline pass.
      o.onError?.(err);
      return;
    }
    if (stopped) return;
    if (held) {
      validUntil = askedAt + ttlMs;
      await startDuty();
    } else {
      validUntil = 0;
      await stopDuty();
    }
  };

  // The guard: a duty whose lease was not renewed in time stops before the lease can expire.
  const guard = setInterval(
    () => {
      if (duty && Date.now() >= validUntil - marginMs) void stopDuty().catch((err) => o.onError?.(err));
    },
    Math.min(500, Math.max(50, Math.floor(marginMs / 2))),
  );
  guard.unref();

  const loop = (async () => {
    while (!stopped) {
      await attempt();
      if (stopped) break;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, renewMs);
        wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      wake = undefined;
    }
  })();

  const lease: LeasedDuty = {
    name: o.name,
    holder,
    isLeader: () => duty !== undefined && Date.now() < validUntil,
    async stop(opts = {}) {
      if (stopped) return;
      stopped = true;
      wake?.();
      clearInterval(guard);
      await loop;
      await stopDuty();
      running.delete(lease);
      if (opts.release ?? true) await releaseLease(o.db, o.name, holder).catch((err) => o.onError?.(err));
    },
  };
  running.add(lease);
  return lease;
}

/** Several leased duties as one BackgroundDuty (a process's stop stops them all). */
export function allDuties(duties: Array<BackgroundDuty | LeasedDuty>): BackgroundDuty {
  return { stop: async () => void (await Promise.all(duties.map((d) => d.stop()))) };
}

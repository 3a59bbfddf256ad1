/**
 * The Idempotency-Key protocol over a key store (docs/minting.md "Idempotency"). The first
 * request with a (scope, key) owns it; a concurrent duplicate waits for it (polling, up to
 * `waitMs`, then 409 IDEMPOTENCY_IN_PROGRESS); a later duplicate gets the stored response; the same
 * key with a different request (hash) is 409 IDEMPOTENCY_KEY_REUSED. Only successes are stored:
 * a failure releases the key so the client may retry (the chain write stays single through the
 * tx sender's own key, which the caller derives from the same scope and key).
 *
 * Leases: the holder renews its key (`renew`, every third of the lease) while it runs. A key in
 * progress whose holder stopped renewing (a killed process) is taken over once the lease is over
 * (`takeOver`, conditional on the lease having run out, so one waiter wins); the new holder runs
 * the request again under the same sender key, so its outcome comes from the recorded chain
 * transaction (waited for, or replayed), never from a second write.
 */
import { conflict } from '../domain/errors.ts';

/** The statements the protocol needs (db/idempotency.ts). */
export interface IdempotencyStore {
  /** Inserts the key in progress; false when it exists. */
  insert(scope: string, key: string, hash: string): Promise<boolean>;
  read(
    scope: string,
    key: string,
  ): Promise<{ status: string; statusCode: number | null; requestHash: string | null; body: unknown } | undefined>;
  finish(scope: string, key: string, hash: string, statusCode: number, body: unknown): Promise<void>;
  release(scope: string, key: string): Promise<void>;
  /** Takes an `in_progress` key whose lease (last renewal + leaseMs) is over; false otherwise. */
  takeOver(scope: string, key: string, leaseMs: number): Promise<boolean>;
  /** The holder's heartbeat: extends the lease of an `in_progress` key. */
  renew(scope: string, key: string): Promise<void>;
}

export interface StoredResponse {
  statusCode: number;
  body: unknown;
}

export interface Idempotency {
  /** Null when this caller owns the key now, else the stored response to replay. */
  begin(scope: string, key: string, hash: string): Promise<StoredResponse | null>;
  finish(scope: string, key: string, hash: string, res: StoredResponse): Promise<void>;
  release(scope: string, key: string): Promise<void>;
  renew(scope: string, key: string): Promise<void>;
  /** How long a key stays held without a renewal. */
  readonly leaseMs: number;
}

export function createIdempotency(
  store: IdempotencyStore,
  opts: { waitMs?: number; pollMs?: number; leaseMs?: number; sleep?: (ms: number) => Promise<void>; now?: () => number } = {},
): Idempotency {
  const leaseMs = opts.leaseMs ?? 30_000;
  // A waiter outlasts the lease, so a dead holder's key is taken over rather than refused.
  const waitMs = opts.waitMs ?? Math.max(60_000, 2 * leaseMs);
  const pollMs = opts.pollMs ?? 100;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const now = opts.now ?? Date.now;
  return {
    async begin(scope, key, hash) {
      const deadline = now() + waitMs;
      for (;;) {
        if (await store.insert(scope, key, hash)) return null;
        const row = await store.read(scope, key);
        if (!row) continue; // released between the insert and the read: try again
        if (row.requestHash && row.requestHash !== hash) {
          throw conflict('Idempotency-Key was already used with a different request body', { code: 'IDEMPOTENCY_KEY_REUSED' });
        }
        if (row.status === 'completed') return { statusCode: row.statusCode ?? 200, body: row.body };
        if (await store.takeOver(scope, key, leaseMs)) return null;
        if (now() > deadline) {
          throw conflict('a request with this Idempotency-Key is still in progress; retry later', { code: 'IDEMPOTENCY_IN_PROGRESS' });
        }
        await sleep(pollMs);
      }
    },
    finish: (scope, key, hash, res) => store.finish(scope, key, hash, res.statusCode, res.body),
    release: (scope, key) => store.release(scope, key),
    renew: (scope, key) => store.renew(scope, key),
    leaseMs,
  };
}

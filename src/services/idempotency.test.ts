import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../domain/errors.ts';
import { createIdempotency, type IdempotencyStore } from './idempotency.ts';

/** The idempotency_keys table in memory: one row per (scope, key); `renewedAt` on the clock `now`. */
function memoryStore(now: () => number = Date.now) {
  const rows = new Map<
    string,
    { status: string; statusCode: number | null; requestHash: string | null; body: unknown; renewedAt?: number }
  >();
  const id = (scope: string, key: string) => `${scope}\u0000${key}`;
  const store: IdempotencyStore = {
    async insert(scope, key, hash) {
      if (rows.has(id(scope, key))) return false;
      rows.set(id(scope, key), { status: 'in_progress', statusCode: null, requestHash: hash, body: null, renewedAt: now() });
      return true;
    },
    async takeOver(scope, key, leaseMs) {
      const row = rows.get(id(scope, key));
      if (!row || row.status !== 'in_progress' || now() - row.renewedAt! <= leaseMs) return false;
      row.renewedAt = now();
      return true;
    },
    async renew(scope, key) {
      const row = rows.get(id(scope, key));
      if (row?.status === 'in_progress') row.renewedAt = now();
    },
    async read(scope, key) {
      return rows.get(id(scope, key));
    },
    async finish(scope, key, hash, statusCode, body) {
      rows.set(id(scope, key), { status: 'completed', statusCode, requestHash: hash, body });
    },
    async release(scope, key) {
      rows.delete(id(scope, key));
    },
  };
  return { store, rows };
}

const code = (err: unknown) => (err instanceof AppError ? err.extra?.code : undefined);

test('the first request owns the key; a later one gets the stored response', async () => {
  const { store } = memoryStore();
  const idem = createIdempotency(store, { sleep: async () => {} });
  assert.equal(await idem.begin('mint:api_key:u1', 'k', 'h1'), null);
  await idem.finish('mint:api_key:u1', 'k', 'h1', { statusCode: 201, body: { data: { tokenId: 1 } } });
  assert.deepEqual(await idem.begin('mint:api_key:u1', 'k', 'h1'), { statusCode: 201, body: { data: { tokenId: 1 } } });
  // Another scope (another caller) does not share the key.
  assert.equal(await idem.begin('mint:api_key:u2', 'k', 'h1'), null);
});

test('the same key with another request is 409 IDEMPOTENCY_KEY_REUSED', async () => {
  const { store } = memoryStore();
  const idem = createIdempotency(store, { sleep: async () => {} });
  await idem.begin('s', 'k', 'h1');
  await assert.rejects(idem.begin('s', 'k', 'h2'), (err) => code(err) === 'IDEMPOTENCY_KEY_REUSED');
});

test('a concurrent duplicate waits for the first and replays its answer', async () => {
  const { store } = memoryStore();
  let polls = 0;
  const idem = createIdempotency(store, {
    sleep: async () => {
      polls++;
      if (polls === 3) await store.finish('s', 'k', 'h', 200, { ok: true });
    },
  });
  assert.equal(await idem.begin('s', 'k', 'h'), null);
  assert.deepEqual(await idem.begin('s', 'k', 'h'), { statusCode: 200, body: { ok: true } });
  assert.equal(polls, 3);
});

test('a duplicate that waits past the deadline while the holder renews is 409 IDEMPOTENCY_IN_PROGRESS', async () => {
  let clock = 0;
  const { store } = memoryStore(() => clock);
  const idem = createIdempotency(store, {
    waitMs: 1000,
    pollMs: 100,
    leaseMs: 300,
    now: () => clock,
    // The holder is alive: it renews on every tick.
    sleep: async (ms) => {
      clock += ms;
      await idem.renew('s', 'k');
    },
  });
  await idem.begin('s', 'k', 'h');
  await assert.rejects(idem.begin('s', 'k', 'h'), (err) => code(err) === 'IDEMPOTENCY_IN_PROGRESS');
  assert.ok(clock > 1000);
});

test('a key whose holder died (no renewal) is taken over once the lease is over, by one waiter', async () => {
  let clock = 0;
  const { store } = memoryStore(() => clock);
  const idem = createIdempotency(store, { pollMs: 100, leaseMs: 30_000, now: () => clock, sleep: async (ms) => void (clock += ms) });
  assert.equal(await idem.begin('s', 'k', 'h'), null); // the holder, then it dies
  assert.equal(await idem.begin('s', 'k', 'h'), null, 'the retry owns the key now');
  assert.ok(clock > 30_000 && clock < 31_000, `taken over right after the lease (${clock} ms)`);
  // The new holder is fresh: a third caller waits for it instead of taking over at once.
  const before = clock;
  const third = idem.begin('s', 'k', 'h');
  await idem.finish('s', 'k', 'h', { statusCode: 201, body: { tokenId: 7 } });
  assert.deepEqual(await third, { statusCode: 201, body: { tokenId: 7 } });
  assert.ok(clock - before < 30_000);
});

test('the lease is configurable and the wait outlasts it', async () => {
  let clock = 0;
  const { store } = memoryStore(() => clock);
  const idem = createIdempotency(store, { leaseMs: 90_000, now: () => clock, sleep: async (ms) => void (clock += ms) });
  assert.equal(idem.leaseMs, 90_000);
  await idem.begin('s', 'k', 'h');
  assert.equal(await idem.begin('s', 'k', 'h'), null);
  assert.ok(clock > 90_000);
});

test('a released key (a failure) lets the retry run again', async () => {
  const { store, rows } = memoryStore();
  const idem = createIdempotency(store, { sleep: async () => {} });
  await idem.begin('s', 'k', 'h');
  await idem.release('s', 'k');
  assert.equal(rows.size, 0);
  assert.equal(await idem.begin('s', 'k', 'h'), null);
});

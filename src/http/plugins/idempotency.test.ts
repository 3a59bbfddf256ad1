import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../domain/errors.ts';
import { idempotencyScope, parseIdempotencyKey, requestHash } from './idempotency.ts';

test('the key is 1 to 200 visible ASCII characters; absent is undefined', () => {
  assert.equal(parseIdempotencyKey(undefined), undefined);
  assert.equal(parseIdempotencyKey('order-42'), 'order-42');
  assert.equal(parseIdempotencyKey(['first', 'second']), 'first');
  for (const bad of ['', 'has space', 'é', 'x'.repeat(201)]) {
    assert.throws(
      () => parseIdempotencyKey(bad),
      (err) => err instanceof AppError && err.kind === 'invalid' && /header\.idempotency-key/.test(err.message),
    );
  }
});

test('the scope separates routes, auth methods and users', () => {
  assert.equal(idempotencyScope('mint', { method: 'service_key', userId: null }), 'mint:service_key:-');
  assert.notEqual(
    idempotencyScope('mint', { method: 'api_key', userId: 'a' }),
    idempotencyScope('mint', { method: 'api_key', userId: 'b' }),
  );
  assert.notEqual(idempotencyScope('mint', { method: 'jwt', userId: 'a' }), idempotencyScope('token-mint', { method: 'jwt', userId: 'a' }));
});

test('the request hash binds path parameters and body', () => {
  const a = requestHash({ params: { collectionId: 'c1' }, body: { recipient: '0x1' } });
  assert.equal(a, requestHash({ params: { collectionId: 'c1' }, body: { recipient: '0x1' } }));
  assert.notEqual(a, requestHash({ params: { collectionId: 'c2' }, body: { recipient: '0x1' } }));
  assert.notEqual(a, requestHash({ params: { collectionId: 'c1' }, body: { recipient: '0x2' } }));
  assert.match(requestHash({ params: undefined, body: undefined }), /^[0-9a-f]{64}$/);
});

test('a holder that runs longer than the lease renews it: a duplicate waits and replays, it does not run again', async () => {
  const { default: Fastify } = await import('fastify');
  const { createIdempotency } = await import('../../services/idempotency.ts');
  const { useIdempotency } = await import('./idempotency.ts');
  // The idempotency_keys table in memory, with lease times on the real clock.
  const rows = new Map<string, { status: string; statusCode: number | null; requestHash: string | null; body: unknown; at: number }>();
  const id = (s: string, k: string) => `${s}|${k}`;
  const idem = createIdempotency(
    {
      async insert(s, k, hash) {
        if (rows.has(id(s, k))) return false;
        rows.set(id(s, k), { status: 'in_progress', statusCode: null, requestHash: hash, body: null, at: Date.now() });
        return true;
      },
      read: async (s, k) => rows.get(id(s, k)),
      async finish(s, k, hash, statusCode, body) {
        rows.set(id(s, k), { status: 'completed', statusCode, requestHash: hash, body, at: Date.now() });
      },
      release: async (s, k) => void rows.delete(id(s, k)),
      async takeOver(s, k, leaseMs) {
        const r = rows.get(id(s, k));
        if (!r || r.status !== 'in_progress' || Date.now() - r.at <= leaseMs) return false;
        r.at = Date.now();
        return true;
      },
      async renew(s, k) {
        const r = rows.get(id(s, k));
        if (r?.status === 'in_progress') r.at = Date.now();
      },
    },
    // A lease long enough that a loaded machine's timer delays do not pass for a dead holder.
    { leaseMs: 2_000, pollMs: 20 },
  );
  const app = Fastify();
  let runs = 0;
  app.decorateRequest('auth', null as never);
  app.addHook('onRequest', async (req) => {
    (req as unknown as { auth: unknown }).auth = { method: 'service_key', userId: null };
  });
  await app.register(async (scope) => {
    useIdempotency(scope, idem);
    scope.post('/slow', { config: { idempotency: 'slow' } }, async () => {
      runs++;
      await new Promise((r) => setTimeout(r, 5_000)); // two and a half leases long
      return { run: runs };
    });
  });
  const send = () =>
    app.inject({ method: 'POST', url: '/slow', headers: { 'idempotency-key': 'k1', 'content-type': 'application/json' }, payload: {} });
  const first = send();
  await new Promise((r) => setTimeout(r, 50));
  const second = await send();
  assert.equal((await first).statusCode, 200);
  assert.equal(runs, 1, 'the live holder kept its key');
  assert.equal(second.headers['idempotent-replayed'], 'true');
  assert.deepEqual(second.json(), { run: 1 });
  await app.close();
});

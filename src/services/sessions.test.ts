import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../domain/errors.ts';
import { createSessionService, type SessionStore } from './sessions.ts';

const ALICE = '00000000-0000-4000-8000-0000000000a1';
const BOB = '00000000-0000-4000-8000-0000000000b2';

/** Sessions in memory (the real ones are db/sessions.ts). */
function world() {
  const rows = new Map<string, { id: string; user_id: string; revoked: boolean; ttl: number }>();
  const store: SessionStore = {
    async openSession(userId, opts) {
      const id = `s${rows.size + 1}`;
      rows.set(`ats_${id}`, { id, user_id: userId, revoked: false, ttl: opts.ttlSeconds });
      return { id, token: `ats_${id}`, expires_at: new Date(Date.now() + opts.ttlSeconds * 1000) };
    },
    async findLiveSession(token) {
      const r = rows.get(token);
      return r && !r.revoked ? { id: r.id, user_id: r.user_id } : null;
    },
    async revokeSession(id, userId) {
      const r = [...rows.values()].find((x) => x.id === id && x.user_id === userId && !x.revoked);
      if (r) r.revoked = true;
      return r !== undefined;
    },
    pruneSessions: async () => undefined,
  };
  return { svc: createSessionService(store, { ttlSeconds: 3600 }), rows };
}

test('a session lasts the configured time and ends at sign-out, once', async () => {
  const w = world();
  const s = await w.svc.open(ALICE, { method: 'siwe', address: '0x0000000000000000000000000000000000000001' });
  assert.equal([...w.rows.values()][0]!.ttl, 3600);
  const live = await w.svc.authenticate(s.token);
  assert.deepEqual(live, { id: 's1', user_id: ALICE });
  const alice = { kind: 'user', userId: ALICE } as const;
  assert.deepEqual(await w.svc.logout(alice, { id: live!.id, method: 'session' }), { signed_out: true });
  assert.equal(await w.svc.authenticate(s.token), null);
  await assert.rejects(w.svc.logout(alice, { id: live!.id, method: 'session' }), (e) => e instanceof AppError && e.kind === 'not_found');
});

test("sign-out ends only the caller's own session; other credentials are 400 naming why", async () => {
  const w = world();
  await w.svc.open(ALICE, { method: 'siwe' });
  const bob = { kind: 'user', userId: BOB } as const;
  await assert.rejects(w.svc.logout(bob, { id: 's1', method: 'session' }), (e) => e instanceof AppError && e.kind === 'not_found');
  assert.deepEqual(await w.svc.authenticate('ats_s1'), { id: 's1', user_id: ALICE });
  await assert.rejects(w.svc.logout(bob, { id: null, method: 'jwt' }), /JWT \(it ends at its exp/);
  await assert.rejects(w.svc.logout(bob, { id: null, method: 'api_key' }), /DELETE \/api\/keys\/:id/);
  await assert.rejects(w.svc.logout({ kind: 'service', userId: null }, { id: null, method: 'service_key' }), /the service key/);
});

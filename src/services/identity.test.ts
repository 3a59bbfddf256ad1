import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../domain/errors.ts';
import type { Caller } from '../domain/policy.ts';
import { createIdentityService, type IdentityPorts } from './identity.ts';

const ALICE = '3f1c2a9e-8a9b-4c2d-9e0f-1a2b3c4d5e6f';
const alice: Caller = { kind: 'user', userId: ALICE };
const bob: Caller = { kind: 'user', userId: 'bob' };
const operator: Caller = { kind: 'service', userId: null };

function fakes() {
  const calls: string[] = [];
  const keys = new Map([['k1', { id: 'k1', user_id: ALICE, revoked: false }]]);
  const ports: IdentityPorts = {
    resolve: async (a) => {
      calls.push(`resolve ${a.provider}/${a.providerUserId}/${a.email}`);
      return 'user-1';
    },
    profile: async (id) => ({ id, identities: [] }) as never,
    updateProfile: async (id, patch) => void calls.push(`profile ${id} ${JSON.stringify(patch)}`),
    merge: async (p, s) => {
      calls.push(`merge ${s}→${p}`);
      return { primary_user_id: p, merged_user_id: s, identities_moved: 0, records_moved: {} };
    },
    keys: {
      create: async (userId, name) => {
        calls.push(`create ${userId} ${name}`);
        return { id: 'k2', name, key_prefix: 'atk_', created_at: new Date(), key: 'atk_secret' };
      },
      list: async () => [],
      find: async (id) => keys.get(id) ?? null,
      revoke: async (userId, id) => {
        const k = keys.get(id);
        if (!k || k.user_id !== userId || k.revoked) return false;
        k.revoked = true;
        return true;
      },
    },
  };
  return { service: createIdentityService(ports), calls };
}

const kind = (k: string) => (e: unknown) => e instanceof AppError && e.kind === k;

test('resolve maps verified claims to the internal user', async () => {
  const { service, calls } = fakes();
  assert.deepEqual(await service.resolve({ provider: 'provider_a', sub: 's1', email: null }), {
    user_id: 'user-1',
    provider: 'provider_a',
    provider_user_id: 's1',
  });
  assert.deepEqual(calls, ['resolve provider_a/s1/null']);
});

test('merging users is the operator’s', async () => {
  const { service, calls } = fakes();
  await assert.rejects(service.merge(alice, 'a', 'b'), kind('forbidden'));
  await service.merge(operator, 'a', 'b');
  assert.deepEqual(calls, ['merge b→a']);
});

test('me: 404 for a caller that is not an internal user (a provider-id fallback)', async () => {
  const { service } = fakes();
  assert.equal((await service.me(alice)).id, ALICE);
  await assert.rejects(service.me(bob), kind('not_found'));
  await assert.rejects(service.me(operator), kind('unauthorized'));
});

test("keys: created for the caller; revoked by their owner once; another user's key is 404", async () => {
  const { service, calls } = fakes();
  await service.createKey(alice, 'laptop');
  assert.deepEqual(calls, [`create ${ALICE} laptop`]);
  await assert.rejects(service.revokeKey(bob, 'k1'), kind('not_found'));
  assert.deepEqual(await service.revokeKey(alice, 'k1'), { id: 'k1', revoked: true });
  await assert.rejects(service.revokeKey(alice, 'k1'), kind('not_found'), 'a revoked key is gone');
  await assert.rejects(service.listKeys(operator), kind('unauthorized'));
});

test("updateMe: the caller's own profile only; an empty patch is a 400; a provider-id caller has no record (404)", async () => {
  const { service, calls } = fakes();
  await service.updateMe(alice, { displayName: 'Alice', avatarUrl: null });
  assert.deepEqual(calls, [`profile ${ALICE} {"displayName":"Alice","avatarUrl":null}`]);
  await assert.rejects(service.updateMe(alice, {}), (e) => e instanceof AppError && e.kind === 'invalid');
  await assert.rejects(service.updateMe(bob, { displayName: 'x' }), (e) => e instanceof AppError && e.kind === 'not_found');
  await assert.rejects(
    service.updateMe({ kind: 'anonymous' }, { displayName: 'x' }),
    (e) => e instanceof AppError && e.kind === 'unauthorized',
  );
});

/** Identity: token resolution, the caller's profile, atomic merge, user API keys. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { SignJWT } from 'jose';
import { collections, userIdentities, users } from '../src/db/schema/index.ts';
import { JWT_SECRET, asService, call, startTestPlatform, type TestPlatform } from './helpers/platform.ts';

const token = (claims: Record<string, unknown>) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('5m').sign(new TextEncoder().encode(JWT_SECRET));

let p: TestPlatform;
before(async () => {
  p = await startTestPlatform();
});
after(() => p.close());

test('resolve creates the user once, then finds it again', async () => {
  const t = await token({ sub: 'fid-77', provider: 'provider_e' });
  const first = await call(`${p.backendUrl}/api/auth/resolve`, { body: { access_token: t } });
  assert.equal(first.status, 200);
  assert.match(first.body.data.user_id, /^[0-9a-f-]{36}$/);
  assert.equal(first.body.data.provider, 'provider_e');
  const again = await call(`${p.backendUrl}/api/auth/resolve`, { body: { access_token: t } });
  assert.equal(again.body.data.user_id, first.body.data.user_id);
  const bad = await call(`${p.backendUrl}/api/auth/resolve`, { body: { access_token: 'x.y.z' } });
  assert.equal(bad.status, 401);
  const missing = await call(`${p.backendUrl}/api/auth/resolve`, { body: {} });
  assert.equal(missing.status, 400);
});

test('concurrent first logins of one account make one user and one identity', async () => {
  const t = await token({ sub: 'race-1', provider: 'provider_c' });
  const replies = await Promise.all(
    Array.from({ length: 12 }, () => call(`${p.backendUrl}/api/auth/resolve`, { body: { access_token: t } })),
  );
  const ids = new Set(replies.map((r) => r.body.data?.user_id));
  assert.equal(ids.size, 1, JSON.stringify(replies.map((r) => r.body)));
  const rows = await p.database.db.select().from(userIdentities).where(eq(userIdentities.provider_user_id, 'race-1'));
  assert.equal(rows.length, 1);
});

test('GET /api/me shows the user and identities', async () => {
  const t = await token({ sub: 'me-1', email: 'me@example.com', email_verified: true });
  const me = await call(`${p.backendUrl}/api/me`, { headers: { authorization: `Bearer ${t}` } });
  assert.equal(me.status, 200);
  assert.equal(me.body.data.email, 'me@example.com');
  assert.equal(me.body.data.identities[0].provider_user_id, 'me-1');
});

test('merge moves records and identities to the primary and deletes the secondary, service key only', async () => {
  const a = await token({ sub: 'acct-a', provider: 'provider_a' });
  const b = await token({ sub: '0xabc', provider: 'provider_d' });
  const mk = (t: string, title: string) =>
    call(`${p.backendUrl}/nft/collections`, { headers: { authorization: `Bearer ${t}` }, body: { title, data: { version: 'v2' } } });
  const ca = await mk(a, 'A');
  const cb = await mk(b, 'B');
  const primary = ca.body.data.collection.user_id;
  const secondary = cb.body.data.collection.user_id;
  assert.notEqual(primary, secondary);

  const asUser = await call(`${p.backendUrl}/api/users/merge`, {
    headers: { authorization: `Bearer ${a}` },
    body: { primary_user_id: primary, secondary_user_id: secondary },
  });
  assert.equal(asUser.status, 403);

  const merged = await call(`${p.backendUrl}/api/users/merge`, {
    headers: asService(),
    body: { primary_user_id: primary, secondary_user_id: secondary },
  });
  assert.equal(merged.status, 200, JSON.stringify(merged.body));
  assert.equal(merged.body.data.identities_moved, 1);
  const [moved] = await p.database.db.select().from(collections).where(eq(collections.id, cb.body.data.collection.id));
  assert.equal(moved!.user_id, primary);
  assert.equal((await p.database.db.select().from(users).where(eq(users.id, secondary))).length, 0);
  // The secondary's account now resolves to the primary.
  const resolved = await call(`${p.backendUrl}/api/auth/resolve`, { body: { access_token: b } });
  assert.equal(resolved.body.data.user_id, primary);
  const self = await call(`${p.backendUrl}/api/users/merge`, {
    headers: asService(),
    body: { primary_user_id: primary, secondary_user_id: primary },
  });
  assert.equal(self.status, 400);
  const gone = await call(`${p.backendUrl}/api/users/merge`, {
    headers: asService(),
    body: { primary_user_id: primary, secondary_user_id: secondary },
  });
  assert.equal(gone.status, 404);
});

test('user API keys: create once, list without the secret, revoke', async () => {
  const t = await token({ sub: 'keys-1' });
  const h = { authorization: `Bearer ${t}` };
  const created = await call(`${p.backendUrl}/api/keys`, { headers: h, body: { name: 'laptop' } });
  assert.equal(created.status, 201);
  const key = created.body.data.key as string;
  assert.match(key, /^atk_/);
  const list = await call(`${p.backendUrl}/api/keys`, { headers: h });
  assert.equal(list.body.data.length, 1);
  assert.equal(JSON.stringify(list.body).includes(key), false);
  assert.equal((await call(`${p.backendUrl}/api/keys`, { headers: { 'x-api-key': key } })).status, 200);
  const revoked = await call(`${p.backendUrl}/api/keys/${created.body.data.id}`, { method: 'DELETE', headers: h });
  assert.equal(revoked.status, 200);
  assert.equal((await call(`${p.backendUrl}/api/keys`, { headers: { 'x-api-key': key } })).status, 401);
  const none = await call(`${p.backendUrl}/api/keys`, { headers: asService() });
  assert.equal(none.status, 401, 'the service key without user_id has no keys of its own');
});

/**
 * The admin proxy attacked by its callers: the failed-authentication limit (docs/auth.md "The
 * admin proxy"), odd credentials and odd ids in forwarded paths, over real
 * HTTP: the backend and the proxy listening on their own ports, so every call the proxy forwards
 * reaches the backend from the proxy's one address, as in a deployment.
 *
 * A user credential the proxy still holds as valid in its 5 s lookup cache (revoked, expired or
 * signed out at the backend meanwhile) is refused by the backend on every forwarded call. Those
 * refusals must not count against the proxy's address at the backend: otherwise one user could
 * lock the operator and every other console user out of the proxy (429) for the whole window.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { SignJWT } from 'jose';
import { JWT_SECRET, SERVICE_KEY, call, startTestPlatform, type TestPlatform } from './helpers/platform.ts';

const LIMIT = 5;
const jwt = (sub: string) =>
  new SignJWT({ sub })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(JWT_SECRET));

let p: TestPlatform;
before(async () => {
  p = await startTestPlatform({ AUTH_FAILURE_LIMIT: String(LIMIT), RATE_LIMIT_WINDOW_MS: '60000' });
});
after(() => p.close());

const list = (headers: Record<string, string>) => call(`${p.adminUrl}/api/nft/collections/list`, { headers });

test('a revoked key still in the proxy cache cannot lock the operator out of the proxy', async () => {
  const mallory = { authorization: `Bearer ${await jwt('mallory-lockout')}` };
  const made = await call(`${p.backendUrl}/api/keys`, { headers: mallory, body: { name: 'lockout' } });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const key = { 'x-api-key': made.body.data.key as string };
  // The proxy learns the key is valid (and keeps that answer for its cache window)…
  assert.equal((await list(key)).status, 200);
  // …then it is revoked at the backend.
  const revoked = await call(`${p.backendUrl}/api/keys/${made.body.data.id}`, { method: 'DELETE', headers: mallory });
  assert.equal(revoked.status, 200);
  // Within the cache window, each forwarded call with it is refused by the backend.
  const statuses: number[] = [];
  let last = await list(key);
  for (let i = 0; i < LIMIT * 3; i++, last = await list(key)) statuses.push(last.status);
  assert.ok(
    statuses.every((s) => s === 401 || s === 429),
    `the revoked key is refused: ${statuses.join(',')}`,
  );
  // The backend's limit reaches the client through the proxy with its wait (Retry-After).
  assert.equal(last.status, 429, statuses.join(','));
  assert.ok(Number(last.headers.get('retry-after')) >= 1, `Retry-After: ${last.headers.get('retry-after')}`);
  // The operator and another user still get through the proxy.
  const operator = await list({ 'x-api-key': SERVICE_KEY });
  assert.equal(operator.status, 200, JSON.stringify(operator.body));
  const alice = await list({ authorization: `Bearer ${await jwt('alice-lockout')}` });
  assert.equal(alice.status, 200, JSON.stringify(alice.body));
  // The backend still counts the failures of that credential itself.
  assert.equal((await call(`${p.backendUrl}/api/me`, { headers: key })).status, 429);
});

test('an admin action is never authorized from the lookup cache: a key revoked a moment ago is 401 at once', async () => {
  const mallory = { authorization: `Bearer ${await jwt('mallory-admin-action')}` };
  const made = await call(`${p.backendUrl}/api/keys`, { headers: mallory, body: { name: 'admin-action' } });
  const key = { 'x-api-key': made.body.data.key as string };
  const action = () =>
    call(`${p.adminUrl}/api/nft/admin`, {
      headers: key,
      body: { chainId: 31337, collectionAddress: `0x${'12'.repeat(20)}`, action: 'setMintActive', value: false },
    });
  // Valid: authenticated, then 503 (this proxy has no chain; an admin action would be signed here).
  assert.equal((await list(key)).status, 200);
  assert.equal((await action()).status, 503);
  assert.equal((await call(`${p.backendUrl}/api/keys/${made.body.data.id}`, { method: 'DELETE', headers: mallory })).status, 200);
  // Within the lookup cache's window: the read still passes the proxy (the backend refuses it when
  // forwarded), but the proxy's own chain write asks the backend afresh.
  const refused = await action();
  assert.equal(refused.status, 401, JSON.stringify(refused.body));
  assert.match(refused.body.error, /invalid API key/);
});

test('an over-long credential is a 401 at the proxy, not a 400 about a body the client never sent', async () => {
  const r = await list({ authorization: `Bearer ${'a'.repeat(12_000)}` });
  assert.equal(r.status, 401, JSON.stringify(r.body));
  assert.equal(r.body.success, false);
  assert.match(r.body.error, /^invalid credentials/);
});

/** A GET with its path sent exactly as written (fetch would resolve `%2E%2E` as `..`). */
function rawGet(base: string, rawPath: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const r = http.request({ host: u.hostname, port: u.port, path: rawPath, method: 'GET', headers }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    r.on('error', reject);
    r.end();
  });
}

test('a job id that is a dot segment is a 400 naming it, never another backend route', async () => {
  for (const path of ['/api/nft/jobs/%2E%2E', '/api/nft/jobs/%2E', '/api/nft/jobs/%2E%2E/stream', '/api/nft/jobs/%2E/stream']) {
    const r = await rawGet(p.adminUrl, path, { 'x-api-key': SERVICE_KEY });
    assert.equal(r.status, 400, `${path}: ${JSON.stringify(r.body)}`);
    assert.match(r.body.error, /^path\.jobId: /, path);
  }
});

test("a path the router cannot take (a long id, a broken % escape) is a 4xx in each app's own error shape", async () => {
  const ok = await rawGet(p.adminUrl, `/api/nft/jobs/${'a'.repeat(150)}`, { 'x-api-key': SERVICE_KEY });
  // 150 characters is a job id the schema allows (up to 200): the job is looked up, not refused by the router.
  assert.equal(ok.status, 404, JSON.stringify(ok.body));
  assert.equal(ok.body.success, false);
  for (const [app, base, path] of [
    ['admin', p.adminUrl, `/api/nft/jobs/${'a'.repeat(300)}`],
    ['admin', p.adminUrl, '/api/nft/jobs/%zz'],
    ['backend', p.backendUrl, `/api/jobs/${'a'.repeat(300)}`],
    ['backend', p.backendUrl, '/api/jobs/%zz/stream'],
  ] as const) {
    const r = await rawGet(base, path, { 'x-api-key': SERVICE_KEY });
    assert.equal(r.status, 400, `${path}: ${JSON.stringify(r.body)}`);
    assert.match(r.body.error, /^path: /, path);
    if (app === 'admin') assert.equal(r.body.success, false);
    else assert.equal(r.body.data, null);
  }
});

// Last: it uses up this address's failures at the backend.
test("a client's own proof header is not the proxy's: its failures count against its address", async () => {
  const forged = { 'x-atelier-forwarded-by': 'not-the-proxy-proof', authorization: 'Bearer atk_forged-key' };
  for (let i = 0; i < LIMIT; i++) assert.equal((await call(`${p.backendUrl}/api/me`, { headers: forged })).status, 401);
  const limited = await call(`${p.backendUrl}/api/me`, { headers: { authorization: `Bearer ${await jwt('bystander')}` } });
  assert.equal(limited.status, 429);
});

/** The authentication matrix (docs/api/nft.md §5, docs/api/content.md §5) against the real apps. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { createApiKey } from '../src/db/api-keys.ts';
import { apiKeys, userIdentities, users } from '../src/db/schema/index.ts';
import { JWT_SECRET, SERVICE_KEY, call, startTestPlatform, type TestPlatform } from './helpers/platform.ts';

const secret = new TextEncoder().encode(JWT_SECRET);
const hs256 = (claims: Record<string, unknown>, exp = '5m') =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime(exp).sign(secret);

/** A fake identity provider: serves a JWKS document as the OIDC spec describes. */
async function startFakeIdp() {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const server = http.createServer((req, res) => {
    if (req.url === '/.well-known/jwks.json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
    } else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
  const sign = (claims: Record<string, unknown>) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuedAt().setExpirationTime('5m').sign(privateKey);
  return { url, sign, close: () => new Promise<void>((r) => server.close(() => r())) };
}

let p: TestPlatform;
let idp: Awaited<ReturnType<typeof startFakeIdp>>;
let collectionId: string;

before(async () => {
  idp = await startFakeIdp();
  p = await startTestPlatform({ JWT_JWKS_URL: idp.url });
  const res = await call(`${p.backendUrl}/nft/collections`, {
    headers: { 'x-api-key': SERVICE_KEY },
    body: { title: 'Auth', data: { version: 'v2' } },
  });
  collectionId = res.body.data.collection.id;
});
after(async () => {
  await p.close();
  await idp.close();
});

const get = (headers: Record<string, string>) => call(`${p.backendUrl}/nft/collections/${collectionId}`, { headers });

describe('backend', () => {
  test('no credentials: 401 with the envelope', async () => {
    const res = await get({});
    assert.equal(res.status, 401);
    assert.equal(res.body.data, null);
    assert.match(res.body.error, /authentication required/);
  });

  test('service key in X-API-Key and in Authorization: Bearer', async () => {
    assert.equal((await get({ 'x-api-key': SERVICE_KEY })).status, 200);
    assert.equal((await get({ authorization: `Bearer ${SERVICE_KEY}` })).status, 200);
  });

  test('wrong key, malformed Authorization: 401', async () => {
    assert.equal((await get({ 'x-api-key': 'not-the-key-0123456789' })).status, 401);
    assert.equal((await get({ authorization: `Basic ${SERVICE_KEY}` })).status, 401);
  });

  test('good HS256 JWT: 200, and the user is resolved to an internal uuid', async () => {
    const res = await call(`${p.backendUrl}/nft/collections`, {
      headers: { authorization: `Bearer ${await hs256({ sub: 'ext-user-1', email: 'one@example.com', email_verified: true })}` },
      body: { title: 'Mine', data: { version: 'v2' } },
    });
    assert.equal(res.status, 201);
    const [identity] = await p.database.db.select().from(userIdentities).where(eq(userIdentities.provider_user_id, 'ext-user-1'));
    assert.ok(identity);
    assert.equal(res.body.data.collection.user_id, identity.user_id);
    const [user] = await p.database.db.select().from(users).where(eq(users.id, identity.user_id));
    assert.equal(user!.email, 'one@example.com');
  });

  test('same email from another provider joins the same user', async () => {
    const token = await idp.sign({ sub: 'did:plc:abc', email: 'one@example.com', email_verified: true, provider: 'provider_b' });
    const res = await call(`${p.backendUrl}/nft/collections`, {
      headers: { authorization: `Bearer ${token}` },
      body: { title: 'Also mine', data: { version: 'v2' } },
    });
    assert.equal(res.status, 201);
    const ids = await p.database.db.select().from(userIdentities);
    const a = ids.find((i) => i.provider_user_id === 'ext-user-1')!;
    const b = ids.find((i) => i.provider_user_id === 'did:plc:abc')!;
    assert.equal(b.provider, 'provider_b');
    assert.equal(a.user_id, b.user_id);
  });

  test('an unverified email links nothing: a separate user, whose email stays unset', async () => {
    for (const claims of [
      { sub: 'squatter-1', email: 'one@example.com' },
      { sub: 'squatter-2', email: 'one@example.com', email_verified: 'true' },
      { sub: 'squatter-3', email: 'one@example.com', email_verified: false },
    ]) {
      const res = await call(`${p.backendUrl}/nft/collections`, {
        headers: { authorization: `Bearer ${await hs256(claims)}` },
        body: { title: 'Not yours', data: { version: 'v2' } },
      });
      assert.equal(res.status, 201);
      const [verified] = await p.database.db.select().from(users).where(eq(users.email, 'one@example.com'));
      assert.notEqual(res.body.data.collection.user_id, verified!.id, claims.sub);
      const [squatter] = await p.database.db.select().from(users).where(eq(users.id, res.body.data.collection.user_id));
      assert.equal(squatter!.email, null, claims.sub);
      const [identity] = await p.database.db.select().from(userIdentities).where(eq(userIdentities.provider_user_id, claims.sub));
      assert.equal(identity!.provider_email, 'one@example.com', 'kept on the identity');
    }
  });

  test('a JWT must carry exp, at most JWT_MAX_AGE_SECONDS after its iat (or now)', async () => {
    const noExp = await new SignJWT({ sub: 'forever' }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().sign(secret);
    const r1 = await get({ authorization: `Bearer ${noExp}` });
    assert.equal(r1.status, 401);
    assert.match(r1.body.error, /no exp/);
    const tooLong = await get({ authorization: `Bearer ${await hs256({ sub: 'long' }, '400d')}` });
    assert.equal(tooLong.status, 401);
    assert.match(tooLong.body.error, /JWT_MAX_AGE_SECONDS/);
    // A token claiming to be issued in the future does not stretch its life past the limit from now.
    const future = Math.floor(Date.now() / 1000) + 300 * 86_400;
    const backdated = await new SignJWT({ sub: 'future' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt(future - 60)
      .setExpirationTime(future)
      .sign(secret);
    assert.equal((await get({ authorization: `Bearer ${backdated}` })).status, 401);
    const resolve = await call(`${p.backendUrl}/api/auth/resolve`, { body: { access_token: noExp } });
    assert.equal(resolve.status, 401, 'the resolve route applies the same rules');
    assert.equal((await get({ authorization: `Bearer ${await hs256({ sub: 'fine' }, '23h')}` })).status, 200);
  });

  test('a token naming a reserved provider (wallet, api_key) is refused: wallets are linked only by signature', async () => {
    const wallet = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
    for (const provider of ['wallet', 'WALLET', 'api_key']) {
      const r = await get({ authorization: `Bearer ${await hs256({ sub: wallet, provider })}` });
      assert.equal(r.status, 401, provider);
      assert.match(r.body.error, /reserved/);
    }
    const resolve = await call(`${p.backendUrl}/api/auth/resolve`, {
      body: { access_token: await hs256({ sub: wallet, provider: 'wallet' }) },
    });
    assert.equal(resolve.status, 401, 'the resolve route applies the same rule');
    const made = await p.database.db.select().from(userIdentities).where(eq(userIdentities.provider_user_id, wallet));
    assert.deepEqual(made, [], 'no wallet identity was created');
  });

  test('bad signature, expired, wrong algorithm: 401', async () => {
    const wrong = await new SignJWT({ sub: 'x' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode('another-secret-another-secret-another-secret'));
    const bad = await get({ authorization: `Bearer ${wrong}` });
    assert.equal(bad.status, 401);
    assert.match(bad.body.error, /invalid token/);
    const expired = await get({ authorization: `Bearer ${await hs256({ sub: 'x' }, '-1m')}` });
    assert.equal(expired.status, 401);
    assert.match(expired.body.error, /expired/);
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{"sub":"x"}').toString('base64url')}.`;
    assert.equal((await get({ authorization: `Bearer ${none}` })).status, 401);
    assert.equal((await get({ authorization: 'Bearer x.y.z' })).status, 401, 'malformed token');
    const noSub = await get({ authorization: `Bearer ${await hs256({})}` });
    assert.equal(noSub.status, 401);
  });

  test('JWT from the identity provider JWKS: 200', async () => {
    const res = await get({ authorization: `Bearer ${await idp.sign({ sub: 'idp-user' })}` });
    assert.equal(res.status, 200);
  });

  test('a spoofed user_id header is ignored for users, honoured for the service key', async () => {
    const spoof = '99999999-9999-4999-8999-999999999999';
    const asUser = await call(`${p.backendUrl}/nft/collections`, {
      headers: { authorization: `Bearer ${await hs256({ sub: 'honest' })}`, user_id: spoof },
      body: { title: 'Spoof', data: { version: 'v2' } },
    });
    assert.equal(asUser.status, 201);
    assert.notEqual(asUser.body.data.collection.user_id, spoof);
    const asService = await call(`${p.backendUrl}/nft/collections`, {
      headers: { 'x-api-key': SERVICE_KEY, user_id: spoof },
      body: { title: 'On behalf', data: { version: 'v2' } },
    });
    assert.equal(asService.body.data.collection.user_id, spoof);
  });

  test('user API keys are stored hashed and authenticate their user', async () => {
    const created = await createApiKey(p.database.db, 'user-with-key', 'ci');
    const rows = await p.database.db.select().from(apiKeys);
    assert.ok(rows.every((r) => r.key_hash !== created.key && !r.key_hash.includes(created.key)));
    const res = await call(`${p.backendUrl}/nft/collections`, {
      headers: { 'x-api-key': created.key },
      body: { title: 'Keyed', data: { version: 'v2' } },
    });
    assert.equal(res.status, 201);
    assert.equal(res.body.data.collection.user_id, 'user-with-key');
    assert.equal((await get({ 'x-api-key': `${created.key}x` })).status, 401);
  });

  test('health and docs are public', async () => {
    assert.equal((await call(`${p.backendUrl}/healthz`)).status, 200);
    assert.equal((await call(`${p.backendUrl}/readyz`)).status, 200);
    const doc = await call(`${p.backendUrl}/openapi.json`);
    assert.equal(doc.status, 200);
    assert.ok(doc.body.paths['/nft/collections/{collectionId}']);
    const page = await fetch(`${p.backendUrl}/docs`, { redirect: 'follow' });
    assert.equal(page.status, 200);
    assert.match(await page.text(), /swagger/i);
  });
});

describe('admin proxy', () => {
  const lookup = (headers: Record<string, string>) =>
    call(`${p.adminUrl}/api/nft/collections/lookup?collectionId=${collectionId}`, { headers });

  test('takes the service key and the user credentials the backend accepts; refuses the rest with the reason', async () => {
    assert.equal((await lookup({})).status, 401);
    assert.equal((await lookup({ 'x-api-key': SERVICE_KEY })).status, 200);
    assert.equal((await lookup({ authorization: `Bearer ${SERVICE_KEY}` })).status, 200);
    // A user's JWT: the proxy asks the backend who it is (docs/auth.md "The admin proxy").
    assert.equal((await lookup({ authorization: `Bearer ${await hs256({ sub: 'admin-proxy-user' })}` })).status, 200);
    const forged = await lookup({
      authorization: `Bearer ${await new SignJWT({ sub: 'u' })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode('another-secret-0123456789abcdef0123456789'))}`,
    });
    assert.equal(forged.status, 401);
    assert.equal(forged.body.success, false);
    assert.match(forged.body.error, /invalid token/);
    const wrong = await lookup({ 'x-api-key': 'wrong-key-0123456789' });
    assert.equal(wrong.status, 401);
    assert.match(wrong.body.error, /invalid credentials/);
  });

  test("a user's user_id header is not let through: the proxy's caller is the credential's user", async () => {
    const jwt = await hs256({ sub: 'admin-proxy-claims' });
    const me = await call(`${p.backendUrl}/api/me`, { headers: { authorization: `Bearer ${jwt}` } });
    const session = await call(`${p.adminUrl}/api/nft/session`, {
      headers: { authorization: `Bearer ${jwt}`, user_id: '00000000-0000-4000-8000-000000000001' },
    });
    assert.equal(session.status, 200);
    assert.deepEqual(session.body.caller, { kind: 'user', user_id: me.body.data.id, display_name: null, wallets: [] });
    const operator = await call(`${p.adminUrl}/api/nft/session`, { headers: { 'x-api-key': SERVICE_KEY } });
    assert.deepEqual(operator.body.caller, { kind: 'operator', user_id: null, display_name: null, wallets: [] });
  });
});

describe('ENABLE_AUTH=false', () => {
  let open: TestPlatform;
  before(async () => {
    open = await startTestPlatform({ ENABLE_AUTH: 'false' });
  });
  after(() => open.close());

  test('every request is let through, on both apps', async () => {
    const created = await call(`${open.backendUrl}/nft/collections`, {
      headers: { user_id: 'header-user' },
      body: { title: 'Open', data: { version: 'v2' } },
    });
    assert.equal(created.status, 201);
    assert.equal(created.body.data.collection.user_id, 'header-user');
    const id = created.body.data.collection.id;
    assert.equal((await call(`${open.adminUrl}/api/nft/collections/lookup?collectionId=${id}`)).status, 200);
  });
});

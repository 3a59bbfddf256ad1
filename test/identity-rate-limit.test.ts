/**
 * The public identity route is rate limited per client address and per presented token
 * (IDENTITY_RATE_LIMIT per RATE_LIMIT_WINDOW_MS): 429 with Retry-After, then served again once
 * the window has passed (docs/security.md "Rate limits"). The window is 5 s: the limit's requests must all fall
 * in one window even on a loaded machine.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SignJWT } from 'jose';
import { JWT_SECRET, startTestPlatform, type TestPlatform } from './helpers/platform.ts';

const token = (sub: string) =>
  new SignJWT({ sub, provider: 'provider_rl' })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(JWT_SECRET));

let p: TestPlatform;
before(async () => {
  p = await startTestPlatform({ IDENTITY_RATE_LIMIT: '4', RATE_LIMIT_WINDOW_MS: '5000' });
});
after(() => p.close());

const resolve = (accessToken: string, remoteAddress: string) =>
  p.backend.inject({ method: 'POST', url: '/api/auth/resolve', payload: { access_token: accessToken }, remoteAddress });

test('per address: the limit, then 429 with Retry-After for any token; served again after the window', async () => {
  for (let i = 0; i < 4; i++) assert.equal((await resolve(await token(`addr-${i}`), '198.51.100.7')).statusCode, 200);
  const limited = await resolve(await token('addr-extra'), '198.51.100.7');
  assert.equal(limited.statusCode, 429);
  assert.match(limited.json().error, /^too many identity requests: retry after \d+ s$/);
  const retryAfter = Number(limited.headers['retry-after']);
  assert.ok(retryAfter >= 1 && retryAfter <= 5, `retry-after ${retryAfter}`);
  // Another address is not affected.
  assert.equal((await resolve(await token('addr-other'), '198.51.100.8')).statusCode, 200);
  await new Promise((r) => setTimeout(r, retryAfter * 1000 + 200));
  assert.equal((await resolve(await token('addr-after'), '198.51.100.7')).statusCode, 200);
});

test('per token: one token from many addresses is limited too', async () => {
  const t = await token('token-many-addresses');
  for (let i = 0; i < 4; i++) assert.equal((await resolve(t, `203.0.113.${i + 1}`)).statusCode, 200);
  const limited = await resolve(t, '203.0.113.99');
  assert.equal(limited.statusCode, 429);
  assert.ok(Number(limited.headers['retry-after']) >= 1);
});

// Sign-In with Ethereum (docs/auth.md "Sign in with Ethereum"): the same limit per client address;
// through the admin proxy, per client address at the proxy (the backend sees the proxy, holding
// the service key, and does not count it as one client).
const wallet = (i: number) => `0x${i.toString(16).padStart(40, '0')}`;
const siweNonce = (app: 'backend' | 'admin', address: string, remoteAddress: string) =>
  p[app].inject({
    method: 'POST',
    url: app === 'backend' ? '/api/auth/siwe/nonce' : '/api/nft/auth/siwe/nonce',
    payload: { address },
    remoteAddress,
  });

test('sign-in nonces: per client address, then 429', async () => {
  for (let i = 0; i < 4; i++) assert.equal((await siweNonce('backend', wallet(100 + i), '198.51.100.20')).statusCode, 201);
  const byAddress = await siweNonce('backend', wallet(200), '198.51.100.20');
  assert.equal(byAddress.statusCode, 429);
  assert.match(byAddress.json().error, /^too many identity requests/);
});

// A wallet address is public (it is on chain): counting sign-in requests per wallet would let
// anyone who knows it keep its owner from signing in.
test('others asking about a wallet do not lock its owner out of signing in, on either app', async () => {
  const victim = wallet(300);
  for (const app of ['backend', 'admin'] as const) {
    for (let i = 0; i < 8; i++) await siweNonce(app, victim, `203.0.113.${(app === 'admin' ? 100 : 50) + i}`);
    const login = await p[app].inject({
      method: 'POST',
      url: app === 'backend' ? '/api/auth/siwe/login' : '/api/nft/auth/siwe/login',
      payload: { message: `example.test wants you to sign in with your Ethereum account:\n${victim}\n\nx`, signature: '0x00' },
      remoteAddress: `203.0.113.${app === 'admin' ? 120 : 70}`,
    });
    assert.notEqual(login.statusCode, 429, `${app} login: ${login.body}`);
    const own = await siweNonce(app, victim, `203.0.113.${app === 'admin' ? 121 : 71}`);
    assert.equal(own.statusCode, 201, `${app}: ${own.body}`);
  }
});

test('sign-in through the admin proxy: its clients are counted apart, not as the proxy’s one address', async () => {
  // Two clients of the proxy each use their whole allowance: the backend lets all of it through.
  for (const client of ['192.0.2.1', '192.0.2.2'])
    for (let i = 0; i < 4; i++) {
      const r = await siweNonce('admin', wallet(Number.parseInt(client.replace(/\D/g, ''), 10) * 10 + i), client);
      assert.equal(r.statusCode, 201, r.body);
    }
  const limited = await siweNonce('admin', wallet(999), '192.0.2.1');
  assert.equal(limited.statusCode, 429);
  assert.equal(limited.json().success, false);
  assert.ok(Number(limited.headers['retry-after']) >= 1);
});

// The apps take bodies of up to 16 MB (uploads), and a limiter runs after the body is parsed: the
// public identity routes take a token or a signed message only, so a larger body is refused unread.
test('the public identity routes refuse a body over 64 KB with 413, before parsing it, on both apps', async () => {
  const big = { message: 'x'.repeat(1024 * 1024), signature: '0x00', address: wallet(1), access_token: 'x'.repeat(1024 * 1024) };
  for (const [app, url] of [
    ['backend', '/api/auth/resolve'],
    ['backend', '/api/auth/siwe/nonce'],
    ['backend', '/api/auth/siwe/login'],
    ['admin', '/api/nft/auth/siwe/nonce'],
    ['admin', '/api/nft/auth/siwe/login'],
  ] as const) {
    const r = await p[app].inject({ method: 'POST', url, payload: big, remoteAddress: '192.0.2.77' });
    assert.equal(r.statusCode, 413, `${url}: ${r.body}`);
    assert.match(r.json().error, /too large/i);
  }
});

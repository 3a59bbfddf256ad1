/**
 * Which domain a Sign-In with Ethereum message names (docs/auth.md "The domain"): under `npm start`
 * the console is served by the admin proxy (ADMIN_PORT), not by the backend (PORT), and a wallet
 * warns when the page asking is not the domain in the message. The nonce routes build the message
 * for the origin that asks — validated against the platform's own domains (the backend's and the
 * admin proxy's hosts, and SIWE_DOMAINS), never a domain the client makes up — and a login accepts
 * a message for any of those domains only.
 *
 * Both apps driven through inject() on `npm start`'s default ports (PORT 3000, ADMIN_PORT 3001, no
 * PUBLIC_BASE_URL); no chain access, so EOA signatures are recovered offline for NFT_CHAIN_ID.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { startTestPlatform, type TestPlatform } from './helpers/platform.ts';

const account = privateKeyToAccount(generatePrivateKey());

describe('npm start defaults: the backend and the console hosts', () => {
  let p: TestPlatform;
  before(async () => {
    p = await startTestPlatform({ PORT: '3000', ADMIN_PORT: '3001', NFT_CHAIN_ID: '31337' }, {}, { listen: false });
  });
  after(() => p.close());

  const nonce = (app: 'backend' | 'admin', headers: Record<string, string> = {}) =>
    p.request(app, app === 'admin' ? '/api/nft/auth/siwe/nonce' : '/api/auth/siwe/nonce', {
      body: { address: account.address },
      headers,
    });
  const login = (message: string, signature: string) => p.request('admin', '/api/nft/auth/siwe/login', { body: { message, signature } });

  test('the console (admin proxy origin) gets a message for its own host, and signs in with it', async () => {
    for (const origin of ['http://127.0.0.1:3001', 'http://localhost:3001']) {
      const n = await nonce('admin', { origin });
      assert.equal(n.status, 201, JSON.stringify(n.body));
      const host = new URL(origin).host;
      assert.equal(n.body.domain, host);
      assert.equal(n.body.uri, origin);
      assert.match(n.body.message, new RegExp(`^${host.replace('.', '\\.')} wants you to sign in`));
      assert.match(n.body.message, new RegExp(`\\nURI: ${origin}\\n`));
      const signed = await login(n.body.message, await account.signMessage({ message: n.body.message }));
      assert.equal(signed.status, 200, JSON.stringify(signed.body));
      assert.match(signed.body.token, /^ats_/);
    }
  });

  test("the backend's own origin, and no origin at all (a script): the backend's host", async () => {
    const own = await nonce('backend', { origin: 'http://127.0.0.1:3000' });
    assert.equal(own.status, 201);
    assert.equal(own.body.data.domain, '127.0.0.1:3000');
    const none = await nonce('backend');
    assert.equal(none.status, 201);
    assert.equal(none.body.data.domain, 'localhost:3000');
  });

  test('an origin that is not one of ours is refused naming it; a message for another domain never signs in', async () => {
    for (const origin of ['https://evil.example', 'http://127.0.0.1:4444', 'null']) {
      const n = await nonce('admin', { origin });
      assert.equal(n.status, 400, `${origin}: ${JSON.stringify(n.body)}`);
      assert.match(n.body.error, /^origin: /);
    }
    const issued = await nonce('admin');
    const forged = createSiweMessage({
      address: account.address,
      chainId: 31337,
      domain: 'evil.example',
      nonce: issued.body.nonce,
      uri: 'https://evil.example',
      version: '1',
      issuedAt: new Date(),
    });
    const r = await login(forged, await account.signMessage({ message: forged }));
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'SIWE_WRONG_DOMAIN');
  });
});

describe('a deployment: PUBLIC_BASE_URL and SIWE_DOMAINS', () => {
  let p: TestPlatform;
  before(async () => {
    p = await startTestPlatform(
      { PUBLIC_BASE_URL: 'https://api.atelier.example', SIWE_DOMAINS: 'console.atelier.example', NFT_CHAIN_ID: '31337' },
      {},
      { listen: false },
    );
  });
  after(() => p.close());

  test('the console host listed in SIWE_DOMAINS is served; loopback hosts are not ours there', async () => {
    const ask = (origin: string) =>
      p.request('admin', '/api/nft/auth/siwe/nonce', { body: { address: account.address }, headers: { origin } });
    const consoleNonce = await ask('https://console.atelier.example');
    assert.equal(consoleNonce.status, 201, JSON.stringify(consoleNonce.body));
    assert.equal(consoleNonce.body.domain, 'console.atelier.example');
    assert.equal(consoleNonce.body.uri, 'https://console.atelier.example');
    const apiNonce = await ask('https://api.atelier.example');
    assert.equal(apiNonce.body.domain, 'api.atelier.example');
    assert.equal((await ask('http://127.0.0.1:3001')).status, 400);
  });
});

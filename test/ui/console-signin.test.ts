/**
 * Creators sign in to the console (docs/admin-ui.md "Signing in") in chromium: with a JWT pasted on the sign-in
 * page, and with Sign-In with Ethereum through a fake EIP-1193 wallet (window.ethereum injected by
 * addInitScript; its personal_sign is answered by a viem private-key account in this process).
 * Each sees only their own collections; the operator-only platform page is not offered to them;
 * another creator's collection refuses their changes next to the button.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test, type TestContext } from 'node:test';
import { privateKeyToAccount } from 'viem/accounts';
import { ANVIL_PRIVATE_KEYS } from '../../src/chain/anvil.ts';
import { bearer, userToken } from '../helpers/content.ts';
import { asService, call } from '../helpers/platform.ts';
import {
  NO_CHROMIUM,
  hasChromium,
  launchBrowser,
  screenshot,
  startUiPlatform,
  unexpectedErrors,
  waitFeedback,
  type Browser,
  type UiPlatform,
} from './console-kit.ts';

/** The fake wallet's account: anvil #3, a wallet no one has used on this platform. */
const walletAccount = privateKeyToAccount(ANVIL_PRIVATE_KEYS[3] as `0x${string}`);

describe('console: creators sign in and see their own collections', () => {
  let p: UiPlatform | undefined;
  const browsers: Browser[] = [];
  let aliceJwt = '';
  const ids: Record<string, string> = {};

  async function collection(headers: Record<string, string>, title: string) {
    const res = await call(`${p!.backendUrl}/nft/collections`, { headers, body: { title, data: { version: 'v2' } } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    ids[title] = res.body.data.collection.id;
  }

  before(async () => {
    if (!hasChromium()) return;
    p = await startUiPlatform();
    aliceJwt = await userToken('console-alice');
    await collection(bearer(aliceJwt), 'Alice Foxes');
    await collection(bearer(await userToken('console-bob')), 'Bob Owls');
    await collection(asService(), 'Platform Cats');
  });
  after(async () => {
    for (const b of browsers) await b.close();
    await p?.close();
  });

  const ready = (t: TestContext) => {
    if (p) return true;
    t.skip(NO_CHROMIUM);
    return false;
  };
  async function browser() {
    const b = await launchBrowser();
    browsers.push(b);
    return b;
  }
  const listed = (b: Browser) =>
    b.page.locator('#collection-list [data-collection] .title').evaluateAll((els) => els.map((e) => e.textContent));

  test('a creator signs in with a JWT and sees only their collections; no platform page', async (t) => {
    if (!ready(t)) return;
    const b = await browser();
    await b.page.goto(`${p!.adminUrl}/#/collections`);
    await b.page.fill('#jwt', aliceJwt);
    await b.page.click('#jwt-form button[type=submit]');
    await b.page.locator('[data-field=caller-kind]', { hasText: 'Creator' }).waitFor();
    await b.page.locator(`#collection-list [data-collection="${ids['Alice Foxes']}"]`).waitFor();
    assert.deepEqual(await listed(b), ['Alice Foxes']);
    assert.equal(await b.page.evaluate(() => sessionStorage.getItem('atelier.credential')), aliceJwt);
    assert.ok(await b.page.locator('#nav [data-nav=platform]').isHidden(), 'the platform page is the operator’s');
    await screenshot(b.page, 'creator-collections');

    await b.page.goto(`${p!.adminUrl}/#/platform`);
    await b.page.locator('.banner', { hasText: 'managed by its operator' }).waitFor();
    assert.equal(await b.page.locator('#platform-deploy').count(), 0);

    // Another creator's collection (by its link) can be read, not changed: the refusal is said
    // next to the button.
    await b.page.goto(`${p!.adminUrl}/#/collections/${ids['Bob Owls']}/settings`);
    await b.page.fill('#details-form [name=title]', 'Taken over');
    await b.page.click('#details-form button[type=submit]');
    await waitFeedback(b.page, '#details-feedback', /^Only the owner may /, 'bad');
    const bob = await call(`${p!.adminUrl}/api/nft/collections/lookup?collectionId=${ids['Bob Owls']}`, { headers: asService() });
    assert.equal(bob.body.collection.title, 'Bob Owls');
    assert.deepEqual(unexpectedErrors(b.errors), []);
  });

  test('a creator signs in with Ethereum (a fake EIP-1193 wallet), creates a collection and sees only it', async (t) => {
    if (!ready(t)) return;
    const b = await browser();
    const signed: string[] = [];
    // The fake wallet: eth_requestAccounts and eth_chainId answer at once; personal_sign is signed
    // here by the private-key account (EIP-191), as a browser wallet would after the user agrees.
    await b.page.exposeFunction('fakeWalletSign', async (hexMessage: string) => {
      const message = Buffer.from(hexMessage.slice(2), 'hex').toString('utf8');
      signed.push(message);
      return walletAccount.signMessage({ message });
    });
    await b.page.addInitScript((address: string) => {
      const w = window as unknown as { ethereum: unknown; fakeWalletSign: (m: string) => Promise<string> };
      w.ethereum = {
        isFakeWallet: true,
        async request({ method, params }: { method: string; params?: unknown[] }) {
          if (method === 'eth_requestAccounts' || method === 'eth_accounts') return [address];
          if (method === 'eth_chainId') return '0x7a69';
          if (method === 'personal_sign') {
            if (String(params?.[1]).toLowerCase() !== address.toLowerCase()) throw new Error('fake wallet: unknown account');
            return w.fakeWalletSign(String(params?.[0]));
          }
          throw new Error(`fake wallet: ${method} is not supported`);
        },
      };
    }, walletAccount.address);

    await b.page.goto(`${p!.adminUrl}/#/collections`);
    await b.page.click('#siwe');
    await b.page.locator('[data-field=caller-kind]', { hasText: 'Creator' }).waitFor();
    assert.equal(signed.length, 1);
    assert.match(signed[0]!, new RegExp(`wants you to sign in with your Ethereum account:\\n${walletAccount.address}`));
    assert.equal(await b.page.locator('[data-field=caller-wallet]').getAttribute('title'), walletAccount.address);
    assert.match(String(await b.page.evaluate(() => sessionStorage.getItem('atelier.credential'))), /^ats_/);
    await b.page.locator('#collection-list .empty', { hasText: 'You have no collection yet' }).waitFor();

    await b.page.click('#new-collection');
    await b.page.fill('#create-form [name=title]', 'Wallet Herons');
    await b.page.click('#create-form button[type=submit]');
    await b.page.waitForURL(/#\/collections\/[0-9a-f-]{36}$/);
    await b.page.click('#nav [data-nav=collections]');
    await b.page.locator('#collection-list [data-collection]').first().waitFor();
    assert.deepEqual(await listed(b), ['Wallet Herons']);

    // The mint form offers the signed-in wallet as the recipient.
    const id = (await b.page.locator('#collection-list [data-collection]').first().getAttribute('data-collection'))!;
    await b.page.goto(`${p!.adminUrl}/#/collections/${id}/samples`);
    assert.equal(await b.page.inputValue('#samples-form [name=wallet_address]'), walletAccount.address);

    // Signing out ends the session on the server: the token no longer works.
    const token = (await b.page.evaluate(() => sessionStorage.getItem('atelier.credential')))!;
    await b.page.click('#sign-out');
    await b.page.locator('#siwe').waitFor();
    assert.equal(await b.page.evaluate(() => sessionStorage.getItem('atelier.credential')), null);
    const after = await call(`${p!.adminUrl}/api/nft/session`, { headers: bearer(token) });
    assert.equal(after.status, 401);
    assert.deepEqual(unexpectedErrors(b.errors), []);
  });

  test('a link with a malformed escape opens the collections, not a page stuck loading', async (t) => {
    if (!ready(t)) return;
    const b = await browser();
    await b.page.goto(`${p!.adminUrl}/#/collections`);
    await b.page.fill('#jwt', aliceJwt);
    await b.page.click('#jwt-form button[type=submit]');
    await b.page.locator(`#collection-list [data-collection="${ids['Alice Foxes']}"]`).waitFor();
    await b.page.goto(`${p!.adminUrl}/#/collections/%E0%A4%A/tokens`);
    await b.page.waitForURL(/#\/collections$/);
    await b.page.locator(`#collection-list [data-collection="${ids['Alice Foxes']}"]`).waitFor();
    assert.deepEqual(unexpectedErrors(b.errors), []);
  });

  /** A session token (ats_…) from a Sign-In with Ethereum login made outside the console. */
  async function sessionToken(key: `0x${string}`) {
    const account = privateKeyToAccount(key);
    const n = await call(`${p!.adminUrl}/api/nft/auth/siwe/nonce`, { body: { address: account.address } });
    assert.equal(n.status, 201, JSON.stringify(n.body));
    const signature = await account.signMessage({ message: n.body.message });
    const login = await call(`${p!.adminUrl}/api/nft/auth/siwe/login`, { body: { message: n.body.message, signature } });
    assert.equal(login.status, 200, JSON.stringify(login.body));
    return login.body.token as string;
  }

  test('a session token pasted in the token form is ended on the server at sign-out; a failed sign-out is said', async (t) => {
    if (!ready(t)) return;
    const b = await browser();
    const signInWith = async (token: string) => {
      await b.page.goto(`${p!.adminUrl}/#/collections`);
      await b.page.fill('#jwt', token);
      await b.page.click('#jwt-form button[type=submit]');
      await b.page.locator('[data-field=caller-kind]', { hasText: 'Creator' }).waitFor();
    };
    const live = async (token: string) => (await call(`${p!.adminUrl}/api/nft/session`, { headers: bearer(token) })).status;

    const pasted = await sessionToken(ANVIL_PRIVATE_KEYS[4] as `0x${string}`);
    await signInWith(pasted);
    await b.page.click('#sign-out');
    await b.page.locator('#jwt').waitFor();
    assert.equal(await b.page.evaluate(() => sessionStorage.getItem('atelier.credential')), null);
    assert.equal(await live(pasted), 401, 'the pasted session no longer works');

    // The server cannot be reached at sign-out: the tab forgets the token and says it is still live.
    const kept = await sessionToken(ANVIL_PRIVATE_KEYS[5] as `0x${string}`);
    await signInWith(kept);
    await b.page.route('**/api/nft/auth/logout', (route) => route.abort());
    await b.page.click('#sign-out');
    await b.page.locator('#signin-reason', { hasText: 'the server did not end the session' }).waitFor();
    assert.equal(await b.page.evaluate(() => sessionStorage.getItem('atelier.credential')), null);
    assert.equal(await live(kept), 200);
    await b.page.unroute('**/api/nft/auth/logout');
    assert.deepEqual(
      unexpectedErrors(b.errors).filter((e) => !/ERR_FAILED/.test(e)),
      [],
    );
  });
});

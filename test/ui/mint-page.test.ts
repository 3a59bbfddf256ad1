/**
 * The public mint page in chromium (docs/mint-page.md) on one `atelier start` with its dev chain.
 * Three collections are created, deployed and put on sale: one for ETH, one for the dev chain's
 * test stablecoin (AtelierTestUSD, 6 decimals, "tUSD"), one with a Merkle allowlist the buyer is not
 * on. A collector opens /mint/<id> with a fake wallet (an EIP-1193 provider injected by the test,
 * announced through EIP-6963, starting on another chain so the page must switch it, forwarding
 * requests to anvil where account 7 is unlocked):
 *
 * - ETH: picks a preset, 2 in one purchase; both artworks appear within 60 s, both tokens carry the
 *   preset as a trait, the gallery shows them;
 * - tUSD: the price reads "2.5 tUSD" (decimals() and symbol() through the wallet); the first
 *   purchase sends approve then purchase, the second (allowance already given) purchase alone;
 * - allowlist: the page says why this wallet cannot mint and Mint stays disabled;
 * - the embed renders inside a page of another origin;
 * - all along: no script error, no failed request, no unexpected HTTP error, no CSP violation; the
 *   page's JSON carries no private field and nothing sets a cookie. At 390 px neither the page nor
 *   the embed overflows sideways.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createPublicClient, createWalletClient, getAddress, http as viemHttp, type Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { atelierTestUSDAbi } from '../../contracts/abi/AtelierTestUSD.ts';
import { ANVIL_PRIVATE_KEYS, freePort } from '../../src/chain/anvil.ts';
import { merkleRoot } from '../../src/domain/mint-policy.ts';
import { startCli, stopAllClis } from '../helpers/cli.ts';
import { call, sampleData } from '../helpers/platform.ts';
import { hasChromium, launchBrowser, NO_CHROMIUM, screenshot, signInWithKey, unexpectedErrors, type Browser } from './console-kit.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-mint-page-'));
const browsers: Browser[] = [];
const servers: http.Server[] = [];
after(async () => {
  for (const b of browsers) await b.close().catch(() => undefined);
  for (const s of servers) await new Promise((r) => s.close(r));
  await stopAllClis();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/**
 * The fake wallet, in the page: an EIP-1193 provider that announces itself (EIP-6963) and hands
 * every request to `__fakeWalletRpc`, which the test exposes (Node side, outside the page's CSP).
 * A string, not a function: tsx's compiled functions name helpers the page does not have.
 */
const FAKE_WALLET_SCRIPT = `(() => {
  const info = Object.freeze({ uuid: '1f5d6a3e-0c1b-4d7e-9a55-fa4e0a11e700', name: 'Fake Wallet', icon: 'data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22/%3E', rdns: 'test.atelier.fake-wallet' });
  const provider = {
    async request({ method, params }) {
      const r = await window.__fakeWalletRpc(method, params ?? []);
      if (r.error) throw Object.assign(new Error(r.error.message), { code: r.error.code });
      return r.result;
    },
  };
  const announce = () => window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail: Object.freeze({ info, provider }) }));
  window.addEventListener('eip6963:requestProvider', announce);
  announce();
})();`;

interface FakeWallet {
  calls: string[];
  switchedTo: string[];
  /** Every eth_sendTransaction, in order. */
  sent: Array<{ to: string; data: string }>;
}

/** The Node half of the fake wallet: account 7 of anvil, on chain 1 until the page switches it. */
async function installFakeWallet(page: Page, rpcUrl: string, account: string): Promise<FakeWallet> {
  const wallet: FakeWallet = { calls: [], switchedTo: [], sent: [] };
  let chainId = '0x1';
  await page.exposeFunction('__fakeWalletRpc', async (method: string, params: unknown[]) => {
    wallet.calls.push(method);
    switch (method) {
      case 'eth_requestAccounts':
      case 'eth_accounts':
        return { result: [account] };
      case 'eth_chainId':
        return { result: chainId };
      case 'wallet_switchEthereumChain':
        chainId = (params[0] as { chainId: string }).chainId;
        wallet.switchedTo.push(chainId);
        return { result: null };
      default: {
        if (method === 'eth_sendTransaction') {
          if (chainId !== '0x7a69') return { error: { code: 4901, message: `fake wallet is on ${chainId}` } };
          const tx = params[0] as { to: string; data: string };
          wallet.sent.push({ to: tx.to.toLowerCase(), data: tx.data });
        }
        // anvil's accounts are unlocked: it signs eth_sendTransaction from account 7 itself
        const res = await fetch(rpcUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        });
        const body = (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
        return body.error ? { error: body.error } : { result: body.result };
      }
    }
  });
  await page.addInitScript({ content: FAKE_WALLET_SCRIPT });
  return wallet;
}

const noOverflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);

/** Failed requests and HTTP errors a page saw (its frames included). */
interface NetworkLog {
  failed: string[];
  errors: string[];
}

function watchNetwork(page: Page): NetworkLog {
  const log: NetworkLog = { failed: [], errors: [] };
  page.on('requestfailed', (r) => log.failed.push(`${r.method()} ${r.url()}: ${r.failure()?.errorText}`));
  page.on('response', (r) => {
    if (r.status() >= 400) log.errors.push(`${r.status()} ${r.request().method()} ${r.url()}`);
  });
  return log;
}

/**
 * A new token's document is 404 for the few seconds until the purchase follower records the token;
 * the page polls through it (docs/mint-page.md, Mint step 7). Nothing else may answer an error.
 */
const EXPECTED_ERROR = /^404 GET http:\/\/127\.0\.0\.1:\d+\/nft\/metadata\/[0-9a-f-]{36}\/\d+$/;

/** Nothing failed or answered an error since the last call (the log is emptied). */
function assertCleanNetwork(log: NetworkLog, what: string) {
  const failed = log.failed.splice(0);
  const errors = log.errors.splice(0).filter((e) => !EXPECTED_ERROR.test(e));
  assert.deepEqual(failed, [], `${what}: failed requests`);
  assert.deepEqual(errors, [], `${what}: HTTP errors`);
}

/** Key paths whose name says private: a credential, a secret, who asked for a sample, a sample's wallet. */
const PRIVATE_KEY_NAME = /secret|api_?key|apikey|password|private_?key|requester|sample_?wallet|wallet_?sample|payer|email/i;
function privateKeys(value: unknown, at = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => privateKeys(v, `${at}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => [...(PRIVATE_KEY_NAME.test(k) ? [`${at}.${k}`] : []), ...privateKeys(v, `${at}.${k}`)]);
}

const USD = 10n ** 6n; // AtelierTestUSD has 6 decimals
const USD_PRICE = (5n * USD) / 2n; // 2.5 tUSD

interface Ctx {
  backend: string;
  admin: string;
  rpcUrl: string;
  apiKey: string;
  buyer: Address;
  stablecoin: Address;
  ids: { eth: string; usd: string; listed: string };
  b: Browser;
  wallet: FakeWallet;
  net: NetworkLog;
}
let ctx: Ctx | undefined;
const skip = hasChromium() ? false : NO_CHROMIUM;
const need = () => {
  if (!ctx) throw new Error('the platform did not start (see the first test)');
  return ctx;
};

/** Waits for the minted token's artwork on the page (its image loaded), with the page's state on failure. */
async function waitMinted(c: Ctx, tokenId: number, timeout = 60_000) {
  await c.b.page
    .waitForFunction(
      (t) => {
        const img = document.querySelector<HTMLImageElement>(`#minted-${t} img[data-minted-token="${t}"]`);
        return !!img && img.complete && img.naturalWidth > 0;
      },
      tokenId,
      { timeout },
    )
    .catch(async (err: Error) => {
      const status = await c.b.page.textContent('#mint-status').catch(() => '(none)');
      throw new Error(`${err.message}\nstatus: ${status}\nwallet calls: ${c.wallet.calls.join(', ')}\nerrors: ${c.b.errors.join('\n')}`);
    });
}

const trait = async (c: Ctx, id: string, tokenId: number, name: string) => {
  const doc = await call(`${c.backend}/nft/metadata/${id}/${tokenId}`);
  assert.equal(doc.status, 200, JSON.stringify(doc.body));
  return doc.body.attributes.find((a: { trait_type: string }) => a.trait_type === name)?.value;
};

test('the platform starts with three collections on sale: ETH, the test stablecoin, an allowlist', { skip, timeout: 420_000 }, async () => {
  const [port, adminPort, chainPort] = [await freePort(), await freePort(), await freePort()];
  await startCli(
    { DEV_CHAIN: 'true', DATA_DIR: dataDir, PORT: String(port), ADMIN_PORT: String(adminPort), DEV_CHAIN_PORT: String(chainPort) },
    240_000,
  );
  const backend = `http://127.0.0.1:${port}`;
  const admin = `http://127.0.0.1:${adminPort}`;
  const rpcUrl = `http://127.0.0.1:${chainPort}`;
  const apiKey = fs.readFileSync(path.join(dataDir, 'api-key'), 'utf8').trim();
  const h = { 'x-api-key': apiKey };
  const record = JSON.parse(fs.readFileSync(path.join(dataDir, 'deployments', '31337.json'), 'utf8'));
  const stablecoin = getAddress(record.contracts.Stablecoin);
  const buyer = privateKeyToAccount(ANVIL_PRIVATE_KEYS[7]!).address;
  const payout = privateKeyToAccount(ANVIL_PRIVATE_KEYS[5]!).address;
  const end = new Date(Date.now() + 3 * 86_400_000).toISOString();

  const onSale = async (title: string, sale: Record<string, unknown>, allowlist?: string[]) => {
    const created = await call(`${backend}/nft/collections`, {
      headers: h,
      body: { title, description: 'Pick a colour; the fox is drawn when you mint.', editions: 20, data: sampleData() },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.data.collection.id as string;
    if (allowlist) {
      const put = await call(`${backend}/nft/collections/${id}`, { method: 'PUT', headers: h, body: { mint_allowlist: allowlist } });
      assert.equal(put.status, 200, JSON.stringify(put.body));
    }
    const deployed = await call(`${admin}/api/nft/collections/deploy`, { headers: h, body: { collectionId: id } });
    assert.ok(deployed.status < 300, JSON.stringify(deployed.body));
    const body = { start: null, end, max_per_wallet: 5, merkle_root: null, payouts: [{ address: payout, bps: 10000 }], ...sale };
    const put = await call(`${backend}/nft/collections/${id}/sale`, { method: 'PUT', headers: h, body });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    return id;
  };
  const eth = await onSale('Foxes for sale', { currency: 'native', price: (10n ** 15n).toString() });
  const usd = await onSale('Foxes for dollars', { currency: stablecoin, price: USD_PRICE.toString() });
  // the list holds accounts 3 and 4, not the buyer (7)
  const list = [3, 4].map((i) => privateKeyToAccount(ANVIL_PRIVATE_KEYS[i]!).address);
  const listed = await onSale('Foxes for friends', { currency: 'native', price: '0', payouts: [], merkle_root: merkleRoot(list) }, list);

  // the buyer's tUSD: the token's open faucet, called by another account
  const client = createPublicClient({ chain: foundry, transport: viemHttp(rpcUrl) });
  const faucet = createWalletClient({ account: privateKeyToAccount(ANVIL_PRIVATE_KEYS[9]!), chain: foundry, transport: viemHttp(rpcUrl) });
  const minted = await faucet.writeContract({
    address: stablecoin,
    abi: atelierTestUSDAbi,
    functionName: 'mint',
    args: [buyer, 20n * USD],
  });
  assert.equal((await client.waitForTransactionReceipt({ hash: minted })).status, 'success');

  const b = await launchBrowser();
  browsers.push(b);
  const net = watchNetwork(b.page);
  const wallet = await installFakeWallet(b.page, rpcUrl, buyer);
  ctx = { backend, admin, rpcUrl, apiKey, buyer, stablecoin, ids: { eth, usd, listed }, b, wallet, net };
});

test('ETH: 2 in one purchase with a chosen preset; both artworks appear and carry it as a trait', { skip, timeout: 180_000 }, async () => {
  const c = need();
  const { page } = c.b;
  await page.goto(`${c.backend}/mint/${c.ids.eth}`);
  await page.waitForSelector('#title');
  assert.equal(await page.textContent('#title'), 'Foxes for sale');
  assert.equal(await page.textContent('#price'), '0.001 ETH');
  assert.equal(await page.textContent('#supply'), '0 / 20');
  assert.equal(await page.getAttribute('input[name=quantity]', 'max'), '5', 'quantity up to the per-wallet limit');
  await page.waitForFunction(() => /closes in/.test(document.getElementById('window')?.textContent ?? ''));
  assert.match((await page.textContent('#verify-hint')) ?? '', /npx atelier verify --rpc <url> 31337:0x[0-9a-fA-F]{40}/);
  await screenshot(page, 'mint-page-1280');

  // a quantity over the limit is refused before the wallet is asked for anything
  await page.fill('input[name=quantity]', '6');
  await page.click('#mint-button');
  await page.locator('#mint-status.bad', { hasText: 'Quantity: a whole number from 1 to 5.' }).waitFor();
  assert.equal(c.wallet.sent.length, 0);

  await page.selectOption('select[data-choice=color]', 'red');
  await page.fill('input[name=quantity]', '2');
  const started = Date.now();
  await page.click('#mint-button');
  await waitMinted(c, 1);
  await waitMinted(c, 2);
  assert.ok(Date.now() - started < 60_000, `shown after ${Date.now() - started} ms`);
  assert.equal(c.wallet.sent.length, 1, 'one purchase for both tokens');
  assert.deepEqual(c.wallet.switchedTo, ['0x7a69'], 'the page switched the wallet to chain 31337');
  assert.ok(c.wallet.calls.includes('eth_getTransactionReceipt'), c.wallet.calls.join());
  await page.locator('#mint-status.good', { hasText: 'Minted #1, #2.' }).waitFor();
  // the chosen preset is in both tokens' traits (left to chance, blue would be 3 times as likely)
  assert.equal(await trait(c, c.ids.eth, 1, 'Color'), 'Red', 'the preset reached token 1');
  assert.equal(await trait(c, c.ids.eth, 2, 'Color'), 'Red', 'the preset reached token 2');
  // the gallery, refreshed every few seconds, shows them as well
  await page.waitForSelector('#gallery img[data-token="1"]', { timeout: 20_000 });
  await page.waitForSelector('#gallery img[data-token="2"]', { timeout: 20_000 });
  await page.waitForFunction(() => /^2 \/ 20$/.test(document.getElementById('supply')?.textContent ?? ''));
  await screenshot(page, 'mint-page-minted-1280');
  assert.deepEqual(unexpectedErrors(c.b.errors), []);
  assertCleanNetwork(c.net, 'ETH purchase');
});

test('tUSD: the price in the token’s units; approve only when the allowance is short, then purchase', {
  skip,
  timeout: 180_000,
}, async () => {
  const c = need();
  const { page } = c.b;
  const token = c.stablecoin.toLowerCase();
  const collection = (await call(`${c.backend}/nft/collections/${c.ids.usd}/mint-page`)).body.data.contract_address.toLowerCase();
  await page.goto(`${c.backend}/mint/${c.ids.usd}`);
  await page.waitForSelector('#title');
  // the wallet is on the chain already: decimals() and symbol() are read before any click
  await page.locator('#price', { hasText: '2.5 tUSD' }).waitFor();
  await page.waitForFunction(() => /closes in/.test(document.getElementById('window')?.textContent ?? ''));
  await screenshot(page, 'mint-page-erc20-1280');

  const before = c.wallet.sent.length;
  await page.selectOption('select[data-choice=color]', 'blue');
  await page.click('#mint-button');
  await waitMinted(c, 1);
  const first = c.wallet.sent.slice(before);
  assert.deepEqual(
    first.map((t) => [t.to, t.data.slice(0, 10)]),
    [
      [token, '0x095ea7b3'],
      [collection, '0xbb680ff6'],
    ],
    'approve on the token, then purchase on the collection',
  );
  assert.equal(BigInt(`0x${first[0]!.data.slice(74)}`), USD_PRICE, 'approved exactly the price of one');
  assert.equal(await trait(c, c.ids.usd, 1, 'Color'), 'Blue');

  // the buyer allows more than enough beforehand: the page sends the purchase alone
  const buyerWallet = createWalletClient({
    account: privateKeyToAccount(ANVIL_PRIVATE_KEYS[7]!),
    chain: foundry,
    transport: viemHttp(c.rpcUrl),
  });
  const client = createPublicClient({ chain: foundry, transport: viemHttp(c.rpcUrl) });
  const approved = await buyerWallet.writeContract({
    address: c.stablecoin,
    abi: atelierTestUSDAbi,
    functionName: 'approve',
    args: [getAddress(collection), 10n * USD],
  });
  assert.equal((await client.waitForTransactionReceipt({ hash: approved })).status, 'success');
  const again = c.wallet.sent.length;
  await page.click('#mint-button');
  await page.locator('#mint-status.good', { hasText: /^Minted #2/ }).waitFor();
  assert.deepEqual(
    c.wallet.sent.slice(again).map((t) => [t.to, t.data.slice(0, 10)]),
    [[collection, '0xbb680ff6']],
    'no approve when the allowance covers the price',
  );
  const balance = await client.readContract({ address: c.stablecoin, abi: atelierTestUSDAbi, functionName: 'balanceOf', args: [c.buyer] });
  assert.equal(balance, 20n * USD - 2n * USD_PRICE, 'paid 2.5 tUSD twice');
  await waitMinted(c, 2);
  assert.deepEqual(unexpectedErrors(c.b.errors), []);
  assertCleanNetwork(c.net, 'tUSD purchases');
});

test('allowlist: a wallet not on the list is told why, and Mint stays disabled', { skip, timeout: 120_000 }, async () => {
  const c = need();
  const { page } = c.b;
  const sent = c.wallet.sent.length;
  await page.goto(`${c.backend}/mint/${c.ids.listed}`);
  await page.waitForSelector('#title');
  const sentence = `You cannot mint: this sale is only for wallets on its allowlist, and ${c.buyer.slice(0, 6)}…${c.buyer.slice(-4)} is not on it.`;
  await page.locator('#mint-status.bad', { hasText: sentence }).waitFor();
  await page.waitForFunction(() => /Open/.test(document.getElementById('window')?.textContent ?? ''));
  await page.waitForTimeout(1200); // a countdown tick or two: the button stays disabled while the sale is open
  assert.equal(await page.isDisabled('#mint-button'), true, 'Mint is disabled');
  // the allowlist card answers the same for the address typed in
  await page.fill('#allowlist-form input[name=address]', c.buyer);
  await page.click('#allowlist-form button');
  await page.locator('#allowlist-status.bad', { hasText: `${c.buyer} is not on the allowlist` }).waitFor();
  await screenshot(page, 'mint-page-allowlist-1280');
  assert.equal(c.wallet.sent.length, sent, 'nothing was sent');
  assert.deepEqual(unexpectedErrors(c.b.errors), []);
  assertCleanNetwork(c.net, 'allowlist page');
});

test('the embed renders inside a page of another origin, under its CSP', { skip, timeout: 120_000 }, async () => {
  const c = need();
  const hostPort = await freePort();
  const src = `${c.backend}/mint/${c.ids.usd}?embed=1`;
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><html><head><meta charset="utf-8"><title>A fan site</title></head><body><h1>Our drop</h1>` +
        `<iframe src="${src}" title="Mint Foxes for dollars" width="420" height="640" style="border:0;max-width:100%" loading="lazy"></iframe></body></html>`,
    );
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(hostPort, '127.0.0.1', r));
  const host = `http://127.0.0.1:${hostPort}/`;
  assert.notEqual(new URL(host).origin, new URL(c.backend).origin);
  const { page } = c.b;
  await page.goto(host);
  const frame = page.frameLocator('iframe');
  await frame.locator('#title', { hasText: 'Foxes for dollars' }).waitFor();
  await frame.locator('#price', { hasText: '2.5 tUSD' }).waitFor();
  await frame.locator('#mint-button').waitFor();
  assert.equal(await frame.locator('a', { hasText: 'Open the full page' }).getAttribute('href'), `/mint/${c.ids.usd}`);
  assert.equal(await frame.locator('#gallery').count(), 0, 'the embed has no gallery');
  await screenshot(page, 'mint-embed-other-origin-1280');
  const blocked = c.b.errors.filter((e) => /Content Security Policy|frame-ancestors|Refused/i.test(e));
  assert.deepEqual(blocked, [], 'no CSP violation');
  assert.deepEqual(unexpectedErrors(c.b.errors), []);
  assertCleanNetwork(c.net, 'embed on another origin');
});

test('the page and its JSON carry no private field and set no cookie', { skip, timeout: 60_000 }, async () => {
  const c = need();
  for (const id of Object.values(c.ids)) {
    for (const url of [
      `/mint/${id}`,
      `/mint/${id}?embed=1`,
      `/nft/collections/${id}/mint-page`,
      `/nft/collections/${id}/allowlist-proof?address=${c.buyer}`,
    ]) {
      const res = await fetch(`${c.backend}${url}`);
      assert.equal(res.status, 200, url);
      assert.equal(res.headers.get('set-cookie'), null, `${url} sets no cookie`);
      const text = await res.text();
      if (url.startsWith('/mint/')) {
        assert.ok(!text.includes(c.apiKey), `${url} holds no key`);
        continue;
      }
      const body = JSON.parse(text);
      // fairness.secret is the seed secret published by reveal() on chain (docs/fairness.md): null before it
      const found = privateKeys(body).filter((k) => k !== '.data.fairness.secret');
      assert.deepEqual(found, [], `${url}: private field names`);
      if (body.data.fairness) assert.equal(body.data.fairness.secret, null, 'not revealed: no secret');
      assert.ok(!text.includes(c.apiKey), `${url} holds no key`);
    }
  }
  assert.deepEqual(await c.b.context.cookies(), [], 'the browser holds no cookie from the pages');
});

test('the console’s Share button gives the link and the iframe snippet', { skip, timeout: 120_000 }, async () => {
  const c = need();
  const { page } = c.b;
  const id = c.ids.eth;
  await page.goto(`${c.admin}/#/collections/${id}`);
  await page.locator('#key-form').waitFor();
  await signInWithKey(page, c.apiKey);
  await page.locator('#collection-head [data-field=title]', { hasText: 'Foxes for sale' }).waitFor();
  await page.click('#share-button');
  await page.locator('#share-panel').waitFor();
  assert.equal(await page.inputValue('#share-link'), `${c.backend}/mint/${id}`);
  assert.match(
    await page.inputValue('#share-iframe'),
    new RegExp(`^<iframe src="${c.backend}/mint/${id}\\?embed=1" title="Mint Foxes for sale"`),
  );
  await page.locator('#share-feedback', { hasText: /copied|Copy the link/ }).waitFor();
  await screenshot(page, 'console-share');
  assert.deepEqual(unexpectedErrors(c.b.errors), []);
});

test('a phone: nothing wider than the screen: the page, the embed, an ERC-20 page', { skip, timeout: 120_000 }, async () => {
  const c = need();
  const phone = await launchBrowser({ width: 390, height: 844 });
  browsers.push(phone);
  const net = watchNetwork(phone.page);
  for (const [url, name] of [
    [`${c.backend}/mint/${c.ids.eth}`, 'mint-page-390'],
    [`${c.backend}/mint/${c.ids.eth}?embed=1`, 'mint-embed-390'],
    [`${c.backend}/mint/${c.ids.usd}`, 'mint-page-erc20-390'],
  ] as const) {
    await phone.page.goto(url);
    await phone.page.waitForSelector('#title');
    if (url.includes('embed')) assert.equal(await phone.page.locator('#gallery').count(), 0, 'the embed has no gallery');
    else await phone.page.waitForSelector('#gallery img[data-token="1"]');
    await screenshot(phone.page, name);
    assert.ok(await noOverflow(phone.page), `${name}: horizontal overflow`);
  }
  assert.deepEqual(unexpectedErrors(phone.errors), []);
  assertCleanNetwork(net, 'phone');
});

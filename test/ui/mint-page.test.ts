/**
 * The public mint page in chromium (docs/mint-page.md) on `atelier start` with its dev chain: a
 * collection is created, deployed and put on a native sale; a collector opens /mint/<id> with a
 * fake wallet (an EIP-1193 provider injected by the test, announced through EIP-6963, starting on
 * another chain so the page must switch it, forwarding requests to anvil where account 7 is
 * unlocked), picks a preset, clicks Mint, and the page shows the minted token with its image within
 * 60 s; the gallery shows it too. At 390 px neither the page nor the embed overflows sideways.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import type { Page } from 'playwright-core';
import { privateKeyToAccount } from 'viem/accounts';
import { ANVIL_PRIVATE_KEYS, freePort } from '../../src/chain/anvil.ts';
import { startCli, stopAllClis } from '../helpers/cli.ts';
import { call, sampleData } from '../helpers/platform.ts';
import { hasChromium, launchBrowser, NO_CHROMIUM, screenshot, signInWithKey, unexpectedErrors, type Browser } from './console-kit.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-mint-page-'));
const browsers: Browser[] = [];
after(async () => {
  for (const b of browsers) await b.close().catch(() => undefined);
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
}

/** The Node half of the fake wallet: account 7 of anvil, on chain 1 until the page switches it. */
async function installFakeWallet(page: Page, rpcUrl: string, account: string): Promise<FakeWallet> {
  const wallet: FakeWallet = { calls: [], switchedTo: [] };
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
        if (method === 'eth_sendTransaction' && chainId !== '0x7a69')
          return { error: { code: 4901, message: `fake wallet is on ${chainId}` } };
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

test('a collector mints from the public page with a wallet and sees the artwork', { timeout: 420_000 }, async (t) => {
  if (!hasChromium()) return t.skip(NO_CHROMIUM);
  const [port, adminPort, chainPort] = [await freePort(), await freePort(), await freePort()];
  const env = {
    DEV_CHAIN: 'true',
    DATA_DIR: dataDir,
    PORT: String(port),
    ADMIN_PORT: String(adminPort),
    DEV_CHAIN_PORT: String(chainPort),
  };
  await startCli(env, 240_000);
  const backend = `http://127.0.0.1:${port}`;
  const admin = `http://127.0.0.1:${adminPort}`;
  const h = { 'x-api-key': fs.readFileSync(path.join(dataDir, 'api-key'), 'utf8').trim() };

  const created = await call(`${backend}/nft/collections`, {
    headers: h,
    body: { title: 'Foxes for sale', description: 'Pick a colour; the fox is drawn when you mint.', editions: 20, data: sampleData() },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const id = created.body.data.collection.id as string;
  const deployed = await call(`${admin}/api/nft/collections/deploy`, { headers: h, body: { collectionId: id } });
  assert.ok(deployed.status < 300, JSON.stringify(deployed.body));
  const sale = await call(`${backend}/nft/collections/${id}/sale`, {
    method: 'PUT',
    headers: h,
    body: {
      currency: 'native',
      price: (10n ** 15n).toString(),
      start: null,
      end: new Date(Date.now() + 3 * 86_400_000).toISOString(),
      max_per_wallet: 5,
      merkle_root: null,
      payouts: [{ address: privateKeyToAccount(ANVIL_PRIVATE_KEYS[5]!).address, bps: 10000 }],
    },
  });
  assert.equal(sale.status, 200, JSON.stringify(sale.body));

  const b = await launchBrowser();
  browsers.push(b);
  const buyer = privateKeyToAccount(ANVIL_PRIVATE_KEYS[7]!).address;
  const wallet = await installFakeWallet(b.page, `http://127.0.0.1:${chainPort}`, buyer);
  await b.page.goto(`${backend}/mint/${id}`);
  await b.page.waitForSelector('#title');
  assert.equal(await b.page.textContent('#title'), 'Foxes for sale');
  assert.equal(await b.page.textContent('#price'), '0.001 ETH');
  assert.equal(await b.page.textContent('#supply'), '0 / 20');
  await b.page.waitForFunction(() => /closes in/.test(document.getElementById('window')?.textContent ?? ''));
  assert.match((await b.page.textContent('#verify-hint')) ?? '', new RegExp(`npx atelier verify --rpc <url> 31337:0x[0-9a-fA-F]{40}`));
  await screenshot(b.page, 'mint-page-1280');

  await b.page.selectOption('select[data-choice=color]', 'red');
  await b.page.click('#mint-button');
  const started = Date.now();
  await b.page.waitForSelector('#minted-1 img[data-minted-token="1"]', { timeout: 60_000 }).catch(async (err: Error) => {
    const status = await b.page.textContent('#mint-status').catch(() => '(none)');
    throw new Error(`${err.message}\nstatus: ${status}\nwallet calls: ${wallet.calls.join(', ')}\nerrors: ${b.errors.join('\n')}`);
  });
  await b.page.waitForFunction(() => {
    const img = document.querySelector<HTMLImageElement>('#minted-1 img');
    return !!img && img.complete && img.naturalWidth > 0;
  });
  assert.ok(Date.now() - started < 60_000, `shown after ${Date.now() - started} ms`);
  assert.deepEqual(wallet.switchedTo, ['0x7a69'], 'the page switched the wallet to chain 31337');
  assert.ok(wallet.calls.includes('eth_sendTransaction') && wallet.calls.includes('eth_getTransactionReceipt'), wallet.calls.join());
  const doc = await call(`${backend}/nft/metadata/${id}/1`);
  assert.equal(
    doc.body.attributes.find((a: { trait_type: string }) => a.trait_type === 'Color')?.value,
    'Red',
    'the preset reached the artwork',
  );
  // the gallery, refreshed every few seconds, shows it as well
  await b.page.waitForSelector('#gallery img[data-token="1"]', { timeout: 20_000 });
  await b.page.waitForFunction(() => /^1 \/ 20$/.test(document.getElementById('supply')?.textContent ?? ''));
  await screenshot(b.page, 'mint-page-minted-1280');
  assert.deepEqual(unexpectedErrors(b.errors), []);

  // the creator's side: the console's Share button gives the link and the iframe snippet
  await b.page.goto(`${admin}/#/collections/${id}`);
  await b.page.locator('#key-form').waitFor();
  await signInWithKey(b.page, h['x-api-key']);
  await b.page.locator('#collection-head [data-field=title]', { hasText: 'Foxes for sale' }).waitFor();
  await b.page.click('#share-button');
  await b.page.locator('#share-panel').waitFor();
  assert.equal(await b.page.inputValue('#share-link'), `${backend}/mint/${id}`);
  assert.match(
    await b.page.inputValue('#share-iframe'),
    new RegExp(`^<iframe src="${backend}/mint/${id}\\?embed=1" title="Mint Foxes for sale"`),
  );
  await b.page.locator('#share-feedback', { hasText: /copied|Copy the link/ }).waitFor();
  await screenshot(b.page, 'console-share');
  assert.deepEqual(unexpectedErrors(b.errors), []);

  // a phone: nothing wider than the screen, page and embed
  const phone = await launchBrowser({ width: 390, height: 844 });
  browsers.push(phone);
  for (const [url, name] of [
    [`${backend}/mint/${id}`, 'mint-page-390'],
    [`${backend}/mint/${id}?embed=1`, 'mint-embed-390'],
  ] as const) {
    await phone.page.goto(url);
    await phone.page.waitForSelector('#title');
    if (!url.includes('embed')) await phone.page.waitForSelector('#gallery img[data-token="1"]');
    await screenshot(phone.page, name);
    assert.ok(await noOverflow(phone.page), `${name}: horizontal overflow`);
  }
  assert.equal(await phone.page.locator('#gallery').count(), 0, 'the embed has no gallery');
  assert.deepEqual(unexpectedErrors(phone.errors), []);
});

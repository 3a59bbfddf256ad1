/**
 * The admin web UI (web/, src/http/admin/ui.ts) in a real browser: Debian's chromium driven by
 * playwright-core, against a real platform (anvil, chain services shared by backend and admin
 * proxy, a job queue and a generation worker). Skips when /usr/bin/chromium is missing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startAnvil, type AnvilInstance } from '../../src/chain/anvil.ts';
import { createChainServices, type ChainServices } from '../../src/chain/platform-chain.ts';
import { testConfig } from '../../src/config.ts';
import { ProceduralConnector, type GeneratorConnector } from '../../src/generation/connectors/index.ts';
import type { StepPayload } from '../../src/generation/pipeline.ts';
import { startGenerationWorker, type RunningGenerationWorker } from '../../src/generation/runtime.ts';
import { buildAdminApp } from '../../src/http/admin/app.ts';
import { InProcessQueue } from '../../src/queue/index.ts';
import { type TestDatabase } from '../helpers/db.ts';
import { setupApps, setupDb } from '../helpers/kit.ts';
import { JWT_SECRET, SERVICE_KEY, asService, call } from '../helpers/platform.ts';

/** Debian's chromium; the variable exists to check the skip path (point it at a missing file). */
const CHROMIUM = process.env.ATELIER_TEST_CHROMIUM ?? '/usr/bin/chromium';
const NO_CHROMIUM = 'chromium not installed: apt-get install chromium';
const METADATA_BASE = 'http://meta.test';
/** anvil account #1 (a user wallet; #0 is the platform wallet). */
const RECIPIENT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const WAIT = 60_000;

describe('admin UI routes', () => {
  let admin: FastifyInstance;
  before(async () => {
    admin = await buildAdminApp(testConfig({ API_KEY: SERVICE_KEY, BACKEND_API_URL: 'http://127.0.0.1:9' }));
  });
  after(() => admin.close());

  test('GET / serves the page without a key, with a strict CSP', async () => {
    const res = await admin.inject({ method: 'GET', url: '/' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html; charset=utf-8/);
    const csp = String(res.headers['content-security-policy']);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /connect-src 'self'(;|$)/);
    assert.match(csp, /img-src 'self' data: http:\/\/127\.0\.0\.1:9(;|$)/);
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.match(res.body, /<script type="module" src="\/ui\/main\.js">/);
  });

  test('assets have their content types; nothing outside web/ is served', async () => {
    for (const [file, type] of [
      ['main.js', 'text/javascript'],
      ['app.css', 'text/css'],
      ['favicon.svg', 'image/svg+xml'],
    ] as const) {
      const res = await admin.inject({ method: 'GET', url: `/ui/${file}` });
      assert.equal(res.statusCode, 200, file);
      assert.ok(String(res.headers['content-type']).startsWith(type), `${file}: ${res.headers['content-type']}`);
    }
    for (const url of ['/ui/missing.js', '/ui/../package.json', '/ui/%2e%2e/package.json', '/ui/..%2fsrc%2fconfig.ts', '/ui/index.txt']) {
      const res = await admin.inject({ method: 'GET', url });
      // 404 from the UI route, or 401 when the path normalises to a route outside /ui/.
      assert.ok(res.statusCode === 404 || res.statusCode === 401, `${url}: ${res.statusCode}`);
      assert.equal(res.json().success, false);
    }
  });

  test('the API routes still need the key', async () => {
    const res = await admin.inject({ method: 'GET', url: '/api/nft/deploy' });
    assert.equal(res.statusCode, 401);
  });
});

interface UiPlatform {
  anvil: AnvilInstance;
  database: TestDatabase;
  chain: ChainServices;
  backend: FastifyInstance;
  admin: FastifyInstance;
  adminUrl: string;
  close(): Promise<void>;
}

/** Backend + admin proxy sharing chain services on a throwaway anvil, with a queue and a worker (the fixture kit). */
async function startUiPlatform(): Promise<UiPlatform> {
  const anvil = await startAnvil();
  const env = { NFT_RPC_URL: anvil.rpcUrl, NFT_CHAIN_ID: '31337' };
  const config = testConfig({ API_KEY: SERVICE_KEY, JWT_SECRET, ...env });
  const database = await setupDb();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-ui-'));
  const dirs = { deployments: path.join(tmp, 'deployments'), committed: path.join(tmp, 'committed') };
  for (const d of Object.values(dirs)) fs.mkdirSync(d);
  const chain = createChainServices({ config, db: database.db, deploymentsDir: dirs.deployments, committedDeploymentsDir: dirs.committed });
  const queue = new InProcessQueue<StepPayload>('generation');
  const apps = await setupApps({
    database,
    env,
    backend: { metadataBaseUrl: METADATA_BASE, chain, contractExists: chain.contractExists, jobQueue: queue },
    // Token URIs point at METADATA_BASE; the admin proxy reaches them on this backend.
    admin: (backendUrl) => ({ chain, metadataRewrites: [{ from: METADATA_BASE, to: backendUrl }] }),
  });
  const small = new ProceduralConnector();
  const smallConnector: GeneratorConnector = {
    kind: 'procedural-small',
    generate: (req, onProgress, signal) => small.generate({ ...req, width: 128, height: 128 }, onProgress, signal),
  };
  const worker: RunningGenerationWorker = await startGenerationWorker({
    config,
    database,
    storage: apps.storage,
    queue,
    concurrency: 2,
    reconcile: false,
    connectorFor: () => smallConnector,
  });
  return {
    anvil,
    database,
    chain,
    backend: apps.backend,
    admin: apps.admin,
    adminUrl: apps.adminUrl,
    async close() {
      await worker.close().catch(() => undefined);
      await queue.close().catch(() => undefined);
      await apps.close();
      await chain.close();
      await anvil.stop();
      await database.close();
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}

describe('admin UI in chromium', () => {
  let p: UiPlatform | undefined;
  let context: BrowserContext | undefined;
  let page: Page;
  let profileDir = '';
  const consoleErrors: string[] = [];
  let collectionId = '';
  let collectionAddress = '';

  before(async () => {
    if (!fs.existsSync(CHROMIUM)) return;
    p = await startUiPlatform();
    profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-chromium-'));
    // A fresh profile (--user-data-dir) per run; Debian's chromium, never a downloaded browser.
    context = await chromium.launchPersistentContext(profileDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      viewport: { width: 1280, height: 1000 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(WAIT);
    page.on('console', (msg) => {
      if (msg.type() === 'error') consoleErrors.push(msg.text());
    });
    page.on('pageerror', (err) => consoleErrors.push(`pageerror: ${err.message}`));
  });

  after(async () => {
    await context?.close();
    await p?.close();
    if (profileDir) fs.rmSync(profileDir, { recursive: true, force: true });
  });

  function needBrowser(t: TestContext): boolean {
    if (p && context) return true;
    t.skip(NO_CHROMIUM);
    return false;
  }

  const messageText = () => page.locator('#message').innerText();
  async function waitMessage(pattern: RegExp, kind: 'ok' | 'error' = 'ok') {
    await page
      .waitForFunction(
        ([source, flags, k]) => {
          const el = document.querySelector<HTMLElement>('#message');
          return !!el && !el.hidden && el.classList.contains(k!) && new RegExp(source!, flags).test(el.textContent ?? '');
        },
        [pattern.source, pattern.flags, kind],
      )
      .catch(async (err: Error) => {
        // Say what the page shows instead.
        const shown = await page
          .locator('#message')
          .evaluate((el) => `${el.className}: ${el.textContent}`)
          .catch(() => '?');
        throw new Error(`${err.message}; waiting for ${kind} ${pattern}, the message area shows "${shown}"`);
      });
  }

  test('opens the page and takes the key (sessionStorage, not the URL)', async (t) => {
    if (!needBrowser(t)) return;
    const res = await page.goto(`${p!.adminUrl}/`);
    assert.equal(res?.status(), 200);
    assert.ok(res?.headers()['content-security-policy']?.includes("script-src 'self'"));
    await page.fill('#api-key', SERVICE_KEY);
    await page.click('#key-form button[type=submit]');
    await page.locator('#key-state').waitFor({ state: 'visible' });
    assert.equal(await page.evaluate(() => sessionStorage.getItem('atelier.adminKey')), SERVICE_KEY);
    assert.ok(!page.url().includes(SERVICE_KEY));
    assert.equal(await page.inputValue('#api-key'), '');
    // A fresh chain has no platform deployment yet.
    await page.locator('#platform-info', { hasText: 'not deployed' }).waitFor();
    await page.locator('#indexer-info', { hasText: 'Status' }).waitFor();
  });

  test('deploys the platform', async (t) => {
    if (!needBrowser(t)) return;
    await page.click('#platform-deploy');
    await waitMessage(/Platform deployed/);
    const status = await call(`${p!.adminUrl}/api/nft/deploy`, { headers: asService() });
    assert.equal(status.status, 200);
    const factory = status.body.deployment.contracts.DiamondFactory as string;
    await page.locator('#platform-info', { hasText: factory }).waitFor();
    assert.match(await page.locator('#platform-info').innerText(), /Stale\s+no/);
  });

  test('the editor refuses a bad weight and an undefined $variable, and shows the odds in %', async (t) => {
    if (!needBrowser(t)) return;
    // The default color variable: red:1, blue:3, gold:1 → 20 %, 60 %, 20 %.
    assert.match(
      await page.locator('#variables .variable').first().locator('[data-field=odds]').innerText(),
      /red 20\.0 %, blue 60\.0 %, gold 20\.0 %/,
    );
    const options = page.locator('#variables .variable').first().locator('[name=varOptions]');
    await options.fill('red:x, blue:-1');
    assert.match(
      await page.locator('#variables .variable').first().locator('[data-field=odds]').innerText(),
      /weight of "red" must be a number ≥ 0/,
    );
    await page.fill('#create-form [name=title]', 'Refused');
    await page.click('#create-form button[type=submit]');
    await waitMessage(/weight of "red" must be a number ≥ 0 \(got "x"\)/, 'error');
    await options.fill('red:1, blue:3, gold:1');
    await page.fill('#create-form [name=intent]', 'a $colour $animal');
    await page.click('#create-form button[type=submit]');
    await waitMessage(/\$colour is not defined by any variable/, 'error');
    await page.fill('#create-form [name=intent]', 'a $color $animal, studio light');
    const listed = await call(`${p!.adminUrl}/api/nft/collections/list?q=Refused`, { headers: asService() });
    assert.equal(listed.body.collections.length, 0, 'nothing was created');
  });

  test('creates a collection with the variable editor and deploys it', async (t) => {
    if (!needBrowser(t)) return;
    await page.fill('#create-form [name=title]', 'Browser Cats');
    await page.fill('#create-form [name=editions]', '25');
    await page.click('#create-form button[type=submit]');
    await waitMessage(/Collection "Browser Cats" created/);
    collectionId = (await page.locator('[data-field=id]').innerText()).trim();
    assert.match(collectionId, /^[0-9a-f-]{36}$/);
    const looked = await call(`${p!.adminUrl}/api/nft/collections/lookup?collectionId=${collectionId}`, { headers: asService() });
    assert.equal(looked.body.collection.editions, 25);
    assert.deepEqual(looked.body.collection.data.variables.map((v: { name: string }) => v.name).slice(0, 2), ['color', 'animal']);

    await page.click('#collection-deploy');
    await waitMessage(/Collection deployed at 0x[0-9a-fA-F]{40}/);
    await page.locator('[data-field=contract_address]', { hasText: /^0x/ }).waitFor();
    collectionAddress = (await page.locator('[data-field=contract_address]').innerText()).trim();
    const after = await call(`${p!.adminUrl}/api/nft/collections/lookup?collectionId=${collectionId}`, { headers: asService() });
    assert.equal(after.body.collection.contract_address, collectionAddress);
    assert.equal(await page.locator('[data-field=mint_status]').innerText(), 'deployed');
    assert.ok(await page.isDisabled('#collection-deploy'));
  });

  test('mints a token and shows its artwork once generated', async (t) => {
    if (!needBrowser(t)) return;
    assert.equal(await page.inputValue('#mint-form [name=collectionId]'), collectionId);
    await page.fill('#mint-form [name=recipient]', RECIPIENT);
    await page.click('#mint-form button[type=submit]');
    await waitMessage(/Minted token #1/);
    await page.locator('tr[data-token-row="1"]').waitFor();
    // The list polls the token metadata until the artwork's URL is there; then the image loads.
    await page.waitForFunction(
      () => {
        const img = document.querySelector<HTMLImageElement>('img[data-token="1"]');
        return !!img && img.complete && img.naturalWidth > 0;
      },
      undefined,
      { timeout: 120_000 },
    );
    const src = await page.getAttribute('img[data-token="1"]', 'src');
    assert.match(String(src), /^http:\/\/127\.0\.0\.1:\d+\/files\//);
    assert.match(await page.locator('tr[data-token-row="1"]').innerText(), /Browser Cats #1/);
  });

  test('the collections list shows it with status and supply; the address keeps the page on it after a reload', async (t) => {
    if (!needBrowser(t)) return;
    assert.equal(new URL(page.url()).hash, `#/collections/${collectionId}`);
    await page.fill('#list-form [name=q]', 'Browser');
    await page.click('#list-form button[type=submit]');
    const row = page.locator(`tr[data-collection="${collectionId}"]`);
    await row.waitFor();
    assert.equal(await row.locator('[data-field=status]').innerText(), 'deployed');
    assert.equal(await row.locator('[data-field=supply]').innerText(), '1 / 25');

    await page.reload();
    await page.locator('[data-field=id]', { hasText: collectionId }).waitFor();
    assert.equal(await page.inputValue('#mint-form [name=collectionId]'), collectionId, 'one collection drives the panels');
    await page.locator(`tr[data-collection="${collectionId}"]`).waitFor();
  });

  test('runs setMintActive false; a mint is then refused and the API error is shown', async (t) => {
    if (!needBrowser(t)) return;
    assert.equal(await page.inputValue('#admin-form [name=collectionAddress]'), collectionAddress);
    await page.selectOption('#admin-form [name=action]', 'setMintActive');
    await page.selectOption('#admin-form [name=value]', 'false');
    await page.click('#admin-form button[type=submit]');
    await waitMessage(/setMintActive\(false\) succeeded/);
    assert.match(await page.locator('#admin-result').innerText(), /tx 0x[0-9a-f]{64}/);
    const read = await call(`${p!.adminUrl}/api/nft/collections?addresses=${collectionAddress}`, { headers: asService() });
    assert.equal(read.body.collections[0].mintActive, false);

    // A paused collection refuses the mint with a 409 naming the pause; the page shows status and error.
    await page.fill('#mint-form [name=recipient]', RECIPIENT); // the reload above emptied the form
    await page.click('#mint-form button[type=submit]');
    await waitMessage(/^409: mint refused: minting is paused/, 'error');
  });

  test('shows the indexer status; the page looks right (screenshot)', async (t) => {
    if (!needBrowser(t)) return;
    await page.click('#indexer-refresh');
    // This platform runs no indexer: the panel says so instead of a stale "idle".
    await page.locator('#indexer-info', { hasText: /Status\s*down/ }).waitFor();
    assert.match(await page.locator('#indexer-info').innerText(), /Running in\s+no process/);
    assert.match(await page.locator('#indexer-info').innerText(), /Last error\s+none/);
    const shot = path.join(os.tmpdir(), `atelier-admin-ui-${process.pid}.png`);
    await page.screenshot({ path: shot, fullPage: true });
    t.diagnostic(`screenshot: ${shot}`);
  });

  test('a wrong key shows the 401 error', async (t) => {
    if (!needBrowser(t)) return;
    await page.click('#forget-key');
    assert.equal(await page.evaluate(() => sessionStorage.getItem('atelier.adminKey')), null);
    await page.fill('#api-key', 'wrong-key-0123456789');
    await page.click('#key-form button[type=submit]');
    await waitMessage(/^401: invalid credentials/, 'error');
    assert.equal(await page.getAttribute('#message', 'role'), 'alert');
    // The rejected key is gone and the console is locked again (no "Key set for this tab").
    assert.equal(await page.evaluate(() => sessionStorage.getItem('atelier.adminKey')), null);
    await page.locator('#key-form').waitFor({ state: 'visible' });
    assert.ok(await page.locator('#key-state').isHidden());
    assert.ok((await messageText()).length > 0);
  });

  test('no script or CSP errors in the page', (t) => {
    if (!needBrowser(t)) return;
    // The refused API calls above are logged by the browser as resource errors; nothing else is expected.
    const unexpected = consoleErrors.filter((m) => !/^Failed to load resource: the server responded with a status of [45]\d\d/.test(m));
    assert.deepEqual(unexpected, []);
  });
});

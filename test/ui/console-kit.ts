/**
 * The browser tests' kit: a real platform (anvil, chain services shared by a backend and an admin
 * proxy listening on ports, a job queue, a generation worker, the ownership indexer once the
 * platform contracts exist) and Debian's chromium driven by playwright-core with a fresh profile.
 *
 * The generator is a fake of an outside image service (`GatedGeneratorFake`): it renders small
 * procedural images, holds each generation at 40 % until the test opens the gate (so a test sees
 * "generating 40 %" before "completed"), and fails the first attempt of a prompt containing
 * "glitch" (so a test can press Retry).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import sharp from 'sharp';
import { freePort, startAnvil, type AnvilInstance } from '../../src/chain/anvil.ts';
import { createChainServices, type ChainServices } from '../../src/chain/platform-chain.ts';
import { testConfig, type Config } from '../../src/config.ts';
import { GeneratorError, ProceduralConnector, type GeneratorConnector } from '../../src/generation/connectors/index.ts';
import type { StepPayload } from '../../src/generation/pipeline.ts';
import { startGenerationWorker, type RunningGenerationWorker } from '../../src/generation/runtime.ts';
import { IndexerEvents } from '../../src/indexer/events.ts';
import { startIndexer, type RunningIndexer } from '../../src/indexer/service.ts';
import type { AdminOverrides } from '../../src/processes/admin.ts';
import { InProcessQueue } from '../../src/queue/index.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { setupApps, setupDb } from '../helpers/kit.ts';
import { JWT_SECRET, SERVICE_KEY } from '../helpers/platform.ts';

/** Debian's chromium; the variable exists to check the skip path (point it at a missing file). */
export const CHROMIUM = process.env.ATELIER_TEST_CHROMIUM ?? '/usr/bin/chromium';
export const NO_CHROMIUM = 'chromium not installed: apt-get install chromium';
export const hasChromium = () => fs.existsSync(CHROMIUM);
const METADATA_BASE = 'http://meta.test';
export const WAIT = 60_000;
/**
 * Where the screenshots go: a temp directory, or SCREENSHOTS_DIR (`SCREENSHOTS_DIR=docs/screenshots
 * npm test -- test/ui/console` refreshes the committed ones), so a test run leaves the checkout as it was.
 */
export const SCREENSHOTS = process.env.SCREENSHOTS_DIR
  ? path.resolve(process.env.SCREENSHOTS_DIR)
  : path.join(os.tmpdir(), `atelier-screenshots-${process.pid}`);

/** Holds generations at 40 % while closed; fails the first attempt of a "glitch" prompt. */
export class GatedGeneratorFake implements GeneratorConnector {
  readonly kind = 'gated-fake';
  private readonly inner = new ProceduralConnector();
  private open = true;
  private waiters: Array<() => void> = [];
  private readonly failedOnce = new Set<string>();

  close() {
    this.open = false;
  }
  release() {
    this.open = true;
    for (const w of this.waiters.splice(0)) w();
  }

  async generate(
    req: Parameters<GeneratorConnector['generate']>[0],
    onProgress: Parameters<GeneratorConnector['generate']>[1],
    signal?: AbortSignal,
  ) {
    if (req.prompt.includes('glitch') && !this.failedOnce.has(req.prompt)) {
      this.failedOnce.add(req.prompt);
      throw new GeneratorError('the fake generator failed this prompt once (glitch)', { retryable: false });
    }
    onProgress(40, 'rendering');
    if (!this.open) await new Promise<void>((r) => this.waiters.push(r));
    return this.inner.generate({ ...req, width: 384, height: 384 }, () => {}, signal);
  }
}

export interface UiPlatform {
  anvil: AnvilInstance;
  config: Config;
  database: TestDatabase;
  chain: ChainServices;
  backend: FastifyInstance;
  admin: FastifyInstance;
  backendUrl: string;
  adminUrl: string;
  generator: GatedGeneratorFake;
  /** Starts the ownership indexer (needs the platform contracts deployed). */
  startIndexer(): Promise<void>;
  close(): Promise<void>;
}

export async function startUiPlatform(): Promise<UiPlatform> {
  const anvil = await startAnvil();
  // Known ports: the console's origin (the admin proxy's host) is then one the platform makes
  // Sign-In with Ethereum messages for, as under `npm start` (docs/auth.md "The domain").
  const [port, adminPort] = [await freePort(), await freePort()];
  const env = {
    NFT_RPC_URL: anvil.rpcUrl,
    NFT_CHAIN_ID: '31337',
    AUTH_FAILURE_LIMIT: '100000',
    PORT: String(port),
    ADMIN_PORT: String(adminPort),
  };
  const config = testConfig({ API_KEY: SERVICE_KEY, JWT_SECRET, ...env });
  const database = await setupDb();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-ui-'));
  const dirs = { deployments: path.join(tmp, 'deployments'), committed: path.join(tmp, 'committed') };
  for (const d of Object.values(dirs)) fs.mkdirSync(d);
  const chain = createChainServices({ config, db: database.db, deploymentsDir: dirs.deployments, committedDeploymentsDir: dirs.committed });
  const queue = new InProcessQueue<StepPayload>('generation');
  // socket.io on the admin proxy relays these; the indexer, started once the platform contracts
  // exist, publishes into them.
  const events = new IndexerEvents();
  const apps = await setupApps({
    database,
    env,
    backend: { metadataBaseUrl: METADATA_BASE, chain, contractExists: chain.contractExists, jobQueue: queue },
    // Token URIs point at METADATA_BASE; the admin proxy reaches them on this backend.
    admin: (backendUrl) =>
      ({ chain, metadataRewrites: [{ from: METADATA_BASE, to: backendUrl }], indexerEvents: events }) as AdminOverrides,
  });
  const generator = new GatedGeneratorFake();
  const worker: RunningGenerationWorker = await startGenerationWorker({
    config,
    database,
    storage: apps.storage,
    queue,
    concurrency: 4,
    reconcile: false,
    connectorFor: () => generator,
  });
  let indexer: RunningIndexer | undefined;
  let relay = () => {};
  return {
    anvil,
    config: apps.config,
    database,
    chain,
    backend: apps.backend,
    admin: apps.admin,
    backendUrl: apps.backendUrl,
    adminUrl: apps.adminUrl,
    generator,
    async startIndexer() {
      const factory = (await chain.deploymentStatus(31337)).factoryAddress;
      indexer = await startIndexer({
        config: apps.config,
        database,
        target: { chainId: 31337, rpcUrl: anvil.rpcUrl, factoryAddress: factory, startBlock: 0 },
        options: { pollIntervalMs: 200 },
      });
      relay = indexer!.events.subscribe((e) => events.publish(e));
    },
    async close() {
      generator.release();
      relay();
      await indexer?.stop().catch(() => undefined);
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

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Console errors and uncaught exceptions of every page (CSP violations are console errors). */
  errors: string[];
  close(): Promise<void>;
}

/** Chromium with a fresh profile (--user-data-dir), never a downloaded browser. */
export async function launchBrowser(viewport = { width: 1280, height: 800 }): Promise<Browser> {
  const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-chromium-'));
  const context = await chromium.launchPersistentContext(profileDir, {
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
    viewport,
  });
  const errors: string[] = [];
  const watch = (page: Page) => {
    page.setDefaultTimeout(WAIT);
    page.on('console', (msg) => {
      if (msg.type() === 'error') errors.push(msg.text());
    });
    page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  };
  context.on('page', watch);
  const page = context.pages()[0] ?? (await context.newPage());
  watch(page);
  return {
    context,
    page,
    errors,
    async close() {
      await context.close();
      fs.rmSync(profileDir, { recursive: true, force: true });
    },
  };
}

/**
 * Console errors other than the browser's own line for a refused API call (a 4xx the test causes
 * on purpose is logged as "Failed to load resource"); CSP violations and script errors stay.
 */
export const unexpectedErrors = (errors: string[]) =>
  errors.filter((m) => !/^Failed to load resource: the server responded with a status of 4\d\d/.test(m));

/** A full-page screenshot into docs/screenshots (committed; the docs link them). */
export async function screenshot(page: Page, name: string) {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  // Let images finish loading so the picture shows what a person sees.
  await page
    .waitForFunction(() => Array.from(document.images).every((i) => i.complete), undefined, { timeout: 10_000 })
    .catch(() => undefined);
  // A 256-colour palette keeps the committed pictures small; UI screenshots lose nothing visible.
  const png = await page.screenshot({ fullPage: true });
  await sharp(png)
    .png({ palette: true, quality: 90, compressionLevel: 9, effort: 8 })
    .toFile(path.join(SCREENSHOTS, `${name}.png`));
}

/** The feedback line with this id says `pattern` in the given tone. */
export async function waitFeedback(page: Page, selector: string, pattern: RegExp, tone: 'good' | 'bad' = 'good', timeout?: number) {
  await page
    .waitForFunction(
      ([sel, source, flags, t]) => {
        const el = document.querySelector(sel!);
        return !!el && el.classList.contains(t!) && new RegExp(source!, flags).test(el.textContent ?? '');
      },
      [selector, pattern.source, pattern.flags, tone],
      { timeout },
    )
    .catch(async (err: Error) => {
      const shown = await page
        .locator(selector)
        .evaluate((el) => `${el.className}: ${el.textContent}`)
        .catch(() => '(not on the page)');
      throw new Error(`${err.message}; waiting for ${tone} ${pattern} in ${selector}, it shows "${shown}"`);
    });
}

/** Signs in with the service key on the sign-in page. */
export async function signInWithKey(page: Page, key = SERVICE_KEY) {
  await page.fill('#api-key', key);
  await page.click('#key-form button[type=submit]');
}

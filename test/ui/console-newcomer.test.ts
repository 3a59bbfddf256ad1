/**
 * The console's last mile for a newcomer, in chromium at 1280 and at 390 px (docs/admin-ui.md):
 * built-in tools shown apart and never offered for deploy; the create form on the platform's
 * chain by name, and the header, overview and contract panel naming the same chain; a mistyped
 * address refused as a sentence naming the checksummed form (no status code); the three prices
 * explained where they are set and agreeing with the overview; a trait in the case it was typed;
 * every collection tab on a 390 px screen; no table on the token page wider than its box.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test, type TestContext } from 'node:test';
import { getAddress } from 'viem';
import { seedBuiltinGlobalCollections } from '../../src/db/global-collections.ts';
import { normalizeGenerationData } from '../../src/domain/generation-data.ts';
import { asService, call } from '../helpers/platform.ts';
import { waitFor } from '../helpers/wait.ts';
import {
  NO_CHROMIUM,
  hasChromium,
  launchBrowser,
  screenshot,
  signInWithKey,
  startUiPlatform,
  unexpectedErrors,
  waitFeedback,
  type Browser,
  type UiPlatform,
} from './console-kit.ts';

const GOOD = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const TYPO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C9';
const CHAIN = 'Local dev chain (31337)';

describe('console: the newcomer last mile', { timeout: 600_000 }, () => {
  let p: UiPlatform | undefined;
  let b: Browser | undefined;
  let id = '';

  before(async () => {
    if (!hasChromium()) return;
    p = await startUiPlatform();
    await seedBuiltinGlobalCollections(p.database.db, normalizeGenerationData);
    b = await launchBrowser();
  });
  after(async () => {
    await b?.close();
    await p?.close();
  });
  const ready = (t: TestContext) => {
    if (p && b) return true;
    t.skip(NO_CHROMIUM);
    return false;
  };
  const page = () => b!.page;
  const admin = (route: string, body?: unknown) =>
    call(`${p!.adminUrl}${route}`, { headers: asService(), ...(body !== undefined ? { body } : {}) });

  test('built-in tools are shown apart, never offered for deploy', async (t) => {
    if (!ready(t)) return;
    await page().goto(`${p!.adminUrl}/#/collections`);
    await signInWithKey(page());
    await page().locator('#builtin-tools [data-tool=Animate]').waitFor();
    assert.equal(await page().locator('#builtin-tools h2').innerText(), 'Built-in tools');
    assert.equal(await page().locator('#collection-list [data-collection]').count(), 0, 'no tool among the collections');
    await page().click('#builtin-tools [data-tool=Animate] a');
    await page().locator('#builtin-note').waitFor();
    assert.equal(await page().locator('#collection-deploy').count(), 0, 'no Deploy on chain');
    await page().click('.tabs [data-tab=mint]');
    await page().locator('.empty', { hasText: 'Built-in tools are not minted' }).waitFor();
    await screenshot(page(), 'collection-builtin-tool');
  });

  test('the create form is on the platform chain, by name; header, overview and contract panel agree', async (t) => {
    if (!ready(t)) return;
    await admin('/api/nft/deploy', { chainId: 31337 });
    await page().goto(`${p!.adminUrl}/#/collections/new`);
    assert.equal(await page().locator('[data-field=create-chain]').innerText(), CHAIN);
    await page().fill('#create-form [name=title]', 'Newcomer Cats');
    await page().fill('#create-form [name=editions]', '5');
    await page().fill('#create-form [name=intent]', 'a $color $animal');
    await page().click('#create-form button[type=submit]');
    await page().waitForURL(/#\/collections\/[0-9a-f-]{36}$/);
    id = new URL(page().url()).hash.split('/')[2]!;
    assert.match(
      await page().locator('[data-field=about-chain]').innerText(),
      new RegExp(`^${CHAIN.replace(/[()]/g, '\\$&')}, when deployed$`),
    );
    await page().click('#collection-deploy');
    await page().locator('#overview-notice').waitFor();
    assert.equal(await page().locator('[data-field=head-chain]').innerText(), CHAIN);
    assert.equal(await page().locator('[data-field=contract-chain]').innerText(), CHAIN);
    assert.equal(await page().locator('[data-field=about-chain]').innerText(), CHAIN);
    await page().click('.tabs [data-tab=admin]');
    assert.equal(await page().locator('[data-field=state-chain]').innerText(), CHAIN);
  });

  test('a mistyped address is refused as a sentence naming the checksummed form, no status code', async (t) => {
    if (!ready(t)) return;
    await page().click('.tabs [data-tab=mint]');
    await page().fill('#mint-form [name=recipient]', TYPO);
    await page().click('#mint-form button[type=submit]');
    const fix = getAddress(TYPO.toLowerCase());
    await waitFeedback(page(), '#mint-feedback', new RegExp(`^Recipient: checksum mismatch: did you mean ${fix}\\?$`), 'bad');
    // The API says the same to a caller that skips the page's check.
    const api = await admin('/api/nft/mint', { collectionId: id, recipient: TYPO });
    assert.equal(api.status, 400);
    assert.match(api.body.error, new RegExp(`^body\\.recipient: checksum mismatch: did you mean ${fix}\\?$`));
    // Lower case is fine: one token minted.
    await page().fill('#mint-form [name=recipient]', GOOD.toLowerCase());
    await page().click('#mint-form button[type=submit]');
    await waitFeedback(page(), '#mint-feedback', /^Minted token #1/);
    // The settings' payout address: the same check, the same sentence.
    await page().click('.tabs [data-tab=settings]');
    await page().fill('#policy-form [name=payout_address]', TYPO);
    await page().click('#policy-form button[type=submit]');
    await waitFeedback(page(), '#policy-feedback', /^Payout address: checksum mismatch: did you mean 0x[0-9a-fA-F]{40}\?$/, 'bad');
    await page().fill('#policy-form [name=payout_address]', '');
  });

  test('one price story: settings name each price, the overview agrees', async (t) => {
    if (!ready(t)) return;
    const story = await page().locator('#price-story').innerText();
    for (const words of ['Mint price', 'Display price', 'Sample price']) assert.ok(story.includes(words), `${words} in ${story}`);
    await page().fill('#policy-form [name=mint_price]', '2.5');
    await page().click('#policy-form button[type=submit]');
    await waitFeedback(page(), '#policy-feedback', /^Mint policy saved/);
    await page().fill('#details-form [name=price]', '1.25');
    await page().click('#details-form button[type=submit]');
    await waitFeedback(page(), '#details-feedback', /^Details saved\.$/);
    assert.equal(await page().locator('[data-field=price-in-effect]').innerText(), '2.50 USD');
    await screenshot(page(), 'collection-settings-prices');
    await page().click('.tabs [data-tab=overview]');
    assert.equal(await page().locator('[data-field=policy-price]').innerText(), '2.50 USD');
    assert.equal(await page().locator('[data-field=display-price]').innerText(), '1.25 USD');
  });

  test('a trait keeps the case typed in the editor', async (t) => {
    if (!ready(t)) return;
    const record = (await admin(`/api/nft/collections/lookup?collectionId=${id}`)).body.collection;
    const color = record.data.variables.find((v: { name: string }) => v.name === 'color');
    assert.equal(color.feature_name, 'color');
    const token = await waitFor('token 1 traits', async () => {
      const r = await admin(`/api/nft/token?collectionId=${id}&tokenId=1`);
      return r.body.traits?.length ? r.body : undefined;
    });
    assert.ok(
      token.traits.some((x: { trait_type: string }) => x.trait_type === 'color'),
      JSON.stringify(token.traits),
    );
  });

  test('at 390 px every tab is on screen (the current one too) and no token-page table is clipped', async (t) => {
    if (!ready(t)) return;
    await page().setViewportSize({ width: 390, height: 844 });
    for (const tab of ['overview', 'settings', 'activity']) {
      await page().goto(`${p!.adminUrl}/#/collections/${id}${tab === 'overview' ? '' : `/${tab}`}`);
      await page().locator(`.tabs a[aria-current=page][data-tab=${tab}]`).waitFor();
      const boxes = await page()
        .locator('.tabs a')
        .evaluateAll((els) =>
          els.map((e) => ({
            tab: e.getAttribute('data-tab'),
            current: e.getAttribute('aria-current'),
            ...e.getBoundingClientRect().toJSON(),
          })),
        );
      assert.equal(boxes.length, 8); // overview, tokens, mint, sale, samples, settings, contract, activity
      for (const box of boxes) assert.ok(box.left >= 0 && box.right <= 390, `${tab}: tab ${box.tab} at ${box.left}–${box.right}`);
      assert.equal(boxes.find((x) => x.current === 'page')?.tab, tab);
      if (tab === 'settings') await screenshot(page(), 'narrow-collection-tabs');
    }
    await page().goto(`${p!.adminUrl}/#/collections/${id}/tokens/1`);
    await page().locator('#token-traits').waitFor();
    // One indexer (each start would add a follower that close() does not stop, and the file would not exit).
    await p!.startIndexer();
    await waitFor('the indexer to record token 1', async () => {
      const r = await admin(`/api/nft/token?collectionId=${id}&tokenId=1`);
      return r.body.transfers?.length ? true : undefined;
    });
    await page().reload();
    await page().locator('#token-transfers').waitFor();
    const tables = await page()
      .locator('.page table, .page .table-wrap')
      .evaluateAll((els) =>
        els.map((e) => ({ id: e.id || e.className, scroll: e.scrollWidth, client: e.clientWidth, right: e.getBoundingClientRect().right })),
      );
    assert.ok(tables.length >= 3, JSON.stringify(tables));
    for (const x of tables) {
      assert.ok(x.scroll <= x.client, `${x.id}: ${x.scroll} px of content in ${x.client} px`);
      assert.ok(x.right <= 390, `${x.id} ends at ${x.right}`);
    }
    await screenshot(page(), 'narrow-token');
    await page().setViewportSize({ width: 1280, height: 800 });
  });

  test('no script errors or CSP violations', (t) => {
    if (!ready(t)) return;
    assert.deepEqual(unexpectedErrors(b!.errors), []);
  });
});

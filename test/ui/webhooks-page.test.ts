/**
 * The console's Webhooks page, wallet health and gas spent (docs/admin-ui.md) in chromium against
 * the real backend and admin proxy, database, anvil and tx sender, with real receivers (local HTTP
 * servers, test/webhooks/receiver.ts) and the real deliverer (a pass every 100 ms, as the duty
 * runs it): subscribe from the console and see the secret once, a test event delivered (200) and
 * its signature verified with the Standard Webhooks library, replay, rotate, an automatically
 * disabled subscription said so and re-enabled, delete; the platform wallet low on the Platform
 * page; the gas of a deploy and a mint on the collection's Overview.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test, type TestContext } from 'node:test';
import { formatEther, parseEther, toHex } from 'viem';
import { Webhook } from 'standardwebhooks';
import { parseThresholds } from '../../src/domain/wallet-threshold.ts';
import { walletHealthOn } from '../../src/services/wire-wallet-health.ts';
import { webhookDelivererOn, webhookSettingsOf } from '../../src/services/wire-webhooks.ts';
import { bearer, userToken } from '../helpers/content.ts';
import { asService, call } from '../helpers/platform.ts';
import { startMintingPlatform, waitFor, type MintingPlatform } from '../minting/helpers.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';
import {
  hasChromium,
  launchBrowser,
  NO_CHROMIUM,
  screenshot,
  signInWithKey,
  unexpectedErrors,
  waitFeedback,
  type Browser,
} from './console-kit.ts';

const quietLog = { info() {}, warn() {} };

describe('console: webhooks, wallet health, gas spent', () => {
  let mp: MintingPlatform | undefined;
  let b: Browser | undefined;
  let rx: Receiver;
  let failing: Receiver;
  let deliverer: ReturnType<typeof setInterval> | undefined;
  let secret = '';
  let subId = '';
  let gasCollection = '';
  const failures: string[] = [];

  before(async () => {
    if (!hasChromium()) return;
    rx = await startReceiver();
    failing = await startReceiver();
    failing.fallback = 500;
    mp = await startMintingPlatform({
      env: {
        OUTSIDE_FETCH_ALLOW_ORIGINS: `${rx.origin},${failing.origin}`,
        WEBHOOK_RETRY_SCHEDULE_MS: '100,100,100,100,100',
        WEBHOOK_DISABLE_AFTER: '3',
      },
      worker: false,
    });
    const d = webhookDelivererOn(mp.database.db, webhookSettingsOf(mp.config), quietLog);
    let busy = false;
    deliverer = setInterval(() => {
      if (busy) return;
      busy = true;
      d.pass()
        .catch(() => undefined)
        .finally(() => (busy = false));
    }, 100);
    b = await launchBrowser({ width: 1280, height: 900 });
    b.page.on('response', (res) => {
      if (res.status() >= 500) failures.push(`${res.status()} ${res.url()}`);
    });
    await b.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: mp.adminUrl });
  });
  after(async () => {
    clearInterval(deliverer);
    await b?.close();
    await mp?.close();
    await rx?.close();
    await failing?.close();
  });

  const ready = (t: TestContext) => {
    if (mp && b) return true;
    t.skip(NO_CHROMIUM);
    return false;
  };
  const page = () => b!.page;
  const cardOf = (url: string) => page().locator('article.webhook', { has: page().locator('.wh-url', { hasText: url }) });

  test('subscribes a receiver from the console; the secret is shown once, copied, then gone', async (t) => {
    if (!ready(t)) return;
    await page().goto(`${mp!.adminUrl}/#/webhooks`);
    await signInWithKey(page());
    await page().locator('#webhook-form').waitFor();
    assert.equal(await page().locator('#nav [data-nav=webhooks]').getAttribute('aria-current'), 'page');
    await page().locator('#webhooks-empty').waitFor();

    // The API's refusal, as a sentence naming the field: a private address may not receive events.
    await page().fill('#webhook-url', 'http://10.20.30.40/hooks');
    await page().check('input[name=event][value="token.minted"]');
    await page().click('#webhook-create');
    await waitFeedback(page(), '#webhook-create-feedback', /^Url: .*(private|internal|reserved|not allowed|loopback)/i, 'bad');

    await page().fill('#webhook-url', rx.url);
    await page().check('input[name=event][value="token.minted"]');
    await page().check('input[name=event][value="artwork.completed"]');
    await page().click('#webhook-create');
    await waitFeedback(page(), '#webhook-create-feedback', /Subscribed/);
    secret = (await page().locator('#webhook-secret').innerText()).trim();
    assert.match(secret, /^whsec_[A-Za-z0-9+/=]{40,}$/);
    await page().click('#webhook-secret-copy');
    await waitFeedback(page(), '#webhook-secret-feedback', /Copied/);
    assert.equal(await page().evaluate(() => navigator.clipboard.readText()), secret);

    const card = cardOf(rx.url);
    await card.waitFor();
    subId = (await card.getAttribute('data-id'))!;
    assert.equal(await card.locator('[data-field=events]').innerText(), 'token.minted, artwork.completed');
    assert.equal(await card.locator('[data-field=enabled]').innerText(), 'enabled');
    assert.equal(await card.locator('[data-field=failures]').innerText(), '0');

    await page().click('#webhook-secret-done');
    assert.equal(await page().locator('#webhook-secret').count(), 0);
    await page().reload();
    await cardOf(rx.url).waitFor();
    assert.ok(!(await page().content()).includes(secret), 'the secret is nowhere on the page once dismissed');
  });

  test('a test event is delivered (200, signed with the secret) and shows in the log; Replay sends it again', async (t) => {
    if (!ready(t)) return;
    const card = cardOf(rx.url);
    await card.locator('.wh-test').click();
    const row = card.locator('tr[data-delivery]').first();
    await card.locator('tr[data-status=succeeded]').first().waitFor();
    assert.equal(await row.locator('[data-field=delivery-code]').innerText(), '200');
    assert.match(await row.locator('[data-field=delivery-duration]').innerText(), /^\d+ ms$/);
    assert.equal(await row.locator('[data-field=delivery-attempts]').innerText(), '1');
    assert.equal(rx.received.length, 1);
    const got = rx.received[0]!;
    const headers = {
      'webhook-id': String(got.headers['webhook-id']),
      'webhook-timestamp': String(got.headers['webhook-timestamp']),
      'webhook-signature': String(got.headers['webhook-signature']),
    };
    const event = new Webhook(secret).verify(got.body, headers) as { type: string; data: { subscription_id: string } };
    assert.equal(event.type, 'webhook.test');
    assert.equal(event.data.subscription_id, subId);

    await row.locator('.wh-replay').click();
    await waitFor('the replayed delivery', async () => rx.received.length >= 2 || undefined, 15_000, 50);
    assert.equal(rx.received[1]!.headers['webhook-id'], headers['webhook-id'], 'a replay keeps the webhook-id');
    await page().waitForFunction((id) => {
      const tr = document.querySelector(`article[data-id="${id}"] tr[data-delivery]`);
      return tr?.getAttribute('data-status') === 'succeeded' && tr.querySelector('[data-field=delivery-attempts]')?.textContent === '2';
    }, subId);
    assert.equal(await row.locator('[data-field=delivery-code]').innerText(), '200');
  });

  test('rotate shows the new secret once; the next delivery verifies with it', async (t) => {
    if (!ready(t)) return;
    const card = cardOf(rx.url);
    await card.locator('.wh-rotate').click();
    await waitFeedback(page(), '#webhook-list-feedback', /Rotated/);
    const rotated = (await page().locator('#webhook-secret').innerText()).trim();
    assert.match(rotated, /^whsec_/);
    assert.notEqual(rotated, secret);
    await page().click('#webhook-secret-done');
    const before = rx.received.length;
    await cardOf(rx.url).locator('.wh-test').click();
    await waitFor('the test event after rotation', async () => rx.received.length > before || undefined, 15_000, 50);
    const got = rx.received.at(-1)!;
    const headers = {
      'webhook-id': String(got.headers['webhook-id']),
      'webhook-timestamp': String(got.headers['webhook-timestamp']),
      'webhook-signature': String(got.headers['webhook-signature']),
    };
    assert.doesNotThrow(() => new Webhook(rotated).verify(got.body, headers));
    assert.doesNotThrow(() => new Webhook(secret).verify(got.body, headers), 'the previous secret still signs during the overlap');
  });

  test('a receiver failing WEBHOOK_DISABLE_AFTER times in a row: the disabled notice says why; Re-enable', async (t) => {
    if (!ready(t)) return;
    // A real failure sequence: the receiver answers 500, the deliverer retries on its schedule.
    const created = await call(`${mp!.adminUrl}/api/webhooks`, {
      body: { url: failing.url, events: ['token.minted'] },
      headers: asService(),
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.webhook.id as string;
    const sent = await call(`${mp!.adminUrl}/api/webhooks/test`, { body: { id }, headers: asService() });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    await waitFor(
      'the subscription to be disabled',
      async () => {
        const r = await call(`${mp!.backendUrl}/api/webhooks/${id}`, { headers: asService() });
        return r.body.data.enabled === false || undefined;
      },
      20_000,
      100,
    );
    assert.equal(failing.received.length, 3);

    await page().reload();
    const card = cardOf(failing.url);
    await card.locator('.wh-disabled').waitFor();
    assert.match(
      await card.locator('.wh-disabled').innerText(),
      /Disabled automatically\. Disabled after 3 failed attempts in a row\. Nothing is sent/,
    );
    assert.equal(await card.locator('[data-field=enabled]').innerText(), 'disabled');
    assert.equal(await card.locator('[data-field=failures]').innerText(), '3');
    await card.locator('.wh-deliveries').click();
    // Its delivery stays pending (a re-enabled subscription sends it again), its last answer a 500.
    await card.locator('tr[data-delivery] [data-field=delivery-code]', { hasText: '500' }).waitFor();
    assert.equal(await card.locator('tr[data-delivery] [data-field=delivery-attempts]').first().innerText(), '3');
    await cardOf(rx.url).locator('.wh-deliveries').click();
    await cardOf(rx.url).locator('tr[data-status=succeeded]').first().waitFor();
    await screenshot(page(), 'console-webhooks');

    failing.fallback = 200;
    await card.locator('.wh-enable').click();
    await page().waitForFunction((id) => document.querySelector(`article[data-id="${id}"]`)?.getAttribute('data-enabled') === 'true', id);
    assert.equal(await cardOf(failing.url).locator('.wh-disabled').count(), 0);
    assert.equal(await cardOf(failing.url).locator('[data-field=failures]').innerText(), '0');
  });

  test('delete asks first, then the subscription is gone', async (t) => {
    if (!ready(t)) return;
    const card = cardOf(rx.url);
    await card.locator('.wh-delete').click();
    assert.ok(await card.locator('.wh-confirm').isVisible());
    await card.locator('.wh-confirm button', { hasText: 'Cancel' }).click();
    assert.ok(await card.isVisible(), 'Cancel keeps it');
    await card.locator('.wh-delete').click();
    await card.locator('.wh-delete-confirm').click();
    await waitFeedback(page(), '#webhook-list-feedback', /Deleted the subscription/);
    assert.equal(await cardOf(rx.url).count(), 0);
    const list = await call(`${mp!.adminUrl}/api/webhooks`, { headers: asService() });
    assert.deepEqual(
      list.body.webhooks.map((w: { id: string }) => w.id).filter((x: string) => x === subId),
      [],
    );
  });

  test("the Platform page shows the platform wallet's balance and threshold, and warns when it is low", async (t) => {
    if (!ready(t)) return;
    await page().goto(`${mp!.adminUrl}/#/platform`);
    await page().locator('#wallet-unread').waitFor();
    // The wallet-health duty's own pass stores the read the page shows.
    await mp!.anvil.rpc('anvil_setBalance', [mp!.platformAddress, toHex(parseEther('1.5'))]);
    await walletHealthOn(
      mp!.database.db,
      { client: () => mp!.client, walletAddress: () => mp!.platformAddress },
      { chainIds: [31337], thresholds: parseThresholds(parseEther('5').toString()), mints: 100, stuckAfterMs: 3_600_000 },
    ).pass();
    const low = page().locator('.wallet-low');
    await low.waitFor({ timeout: 15_000 });
    assert.match(await low.innerText(), /holds 1\.5 ETH, below its threshold of 5 ETH/);
    assert.equal(await page().locator('[data-field=wallet-address]').innerText(), mp!.platformAddress.toLowerCase());
    assert.equal(await page().locator('[data-field=wallet-balance]').innerText(), '1.5 ETH');
    assert.equal(await page().locator('[data-field=wallet-threshold]').innerText(), '5 ETH');
    await mp!.anvil.rpc('anvil_setBalance', [mp!.platformAddress, toHex(parseEther('100'))]);
  });

  test("the collection's Overview shows the gas its deploy and mint cost, as the receipts say", async (t) => {
    if (!ready(t)) return;
    const { id } = await mp!.deployedCollection({ title: 'Gas on the overview' });
    gasCollection = id;
    const minted = await call(`${mp!.backendUrl}/nft/collections/${id}/mint`, {
      body: { recipient: mp!.wallet(2).account.address },
      headers: asService(),
    });
    assert.equal(minted.status, 201, JSON.stringify(minted.body));
    const gas = await call(`${mp!.adminUrl}/api/nft/collections/gas?collectionId=${id}`, { headers: asService() });
    await page().goto(`${mp!.adminUrl}/#/collections/${id}`);
    await page().locator('[data-field=gas-eth]').waitFor();
    assert.equal(await page().locator('[data-field=gas-eth]').innerText(), gas.body.gas_eth);
    assert.equal(await page().locator('[data-field=gas-count]').innerText(), String(gas.body.transactions));
    // The mint's and the deploy's receipts, read from the node, are in the figure.
    const mintReceipt = await mp!.client.getTransactionReceipt({ hash: minted.body.data.tx_hash });
    assert.ok(BigInt(gas.body.gas_wei) > mintReceipt.gasUsed * mintReceipt.effectiveGasPrice);
    assert.ok(Number(gas.body.gas_eth) > 0 && gas.body.gas_eth === formatEther(BigInt(gas.body.gas_wei)));
    // This platform's admin proxy has no chain of its own: the Platform page's factory read is a
    // 503 there. Nothing this page set calls answered 5xx, and no script or CSP error happened.
    assert.deepEqual(
      unexpectedErrors(b!.errors).filter((m) => !/status of 503/.test(m)),
      [],
    );
    assert.deepEqual(
      failures.filter((u) => /\/api\/(webhooks|nft\/wallet-health|nft\/collections\/gas)/.test(u)),
      [],
    );
  });

  test("a creator sees only their own subscriptions, no operator-only events, and not the platform's gas", async (t) => {
    if (!ready(t)) return;
    const token = await userToken('webhooks-creator');
    const own = await call(`${mp!.backendUrl}/api/webhooks`, {
      body: { url: `${rx.origin}/creator`, events: ['token.minted'] },
      headers: bearer(token),
    });
    assert.equal(own.status, 201, JSON.stringify(own.body));
    await page().click('#sign-out');
    await page().locator('#jwt-form').waitFor();
    await page().fill('#jwt', token);
    await page().click('#jwt-form button[type=submit]');
    await page().locator('[data-field=caller-kind]', { hasText: 'Creator' }).waitFor();
    await page().goto(`${mp!.adminUrl}/#/webhooks`);
    await cardOf(`${rx.origin}/creator`).waitFor();
    assert.equal(await page().locator('article.webhook').count(), 1, "the platform's subscriptions are not listed");
    assert.equal(await page().locator('input[name=event][value="wallet.low_balance"]').count(), 0);
    assert.equal(await page().locator('input[name=event][value="token.minted"]').count(), 1);

    // A platform collection's Overview is open to every signed-in caller; its gas is not.
    await page().goto(`${mp!.adminUrl}/#/collections/${gasCollection}`);
    await page().locator('[data-field=id]').waitFor();
    await page().waitForFunction(() => !document.querySelector('#gas-spent'));
    assert.deepEqual(
      unexpectedErrors(b!.errors).filter((m) => !/status of 503/.test(m)),
      [],
    );
  });
});

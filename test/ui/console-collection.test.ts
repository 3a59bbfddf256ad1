/**
 * The console in chromium, one collection from nothing to tokens (docs/admin-ui.md): sign in with
 * the operator key, deploy the platform, the editor's validation, create, mint policy and cover,
 * samples before deployment, deploy by id, mint several and watch each generation reach
 * completed (live from the job streams), filter the gallery by a trait, open a token, run an
 * admin action and see its result, reload and stay. Every page is saved to docs/screenshots.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test, type TestContext } from 'node:test';
import sharp from 'sharp';
import { createPublicClient, http } from 'viem';
import { collectionAbi } from '../../contracts/abi/index.ts';
import { SERVICE_KEY, asService, call } from '../helpers/platform.ts';
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

/** anvil account #1 (a user wallet; #0 is the platform wallet). */
const RECIPIENT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

describe('console: a collection from creation to tokens', () => {
  let p: UiPlatform | undefined;
  let b: Browser | undefined;
  let id = '';
  let address = '';
  const streams: Array<{ url: string; status: number }> = [];

  before(async () => {
    if (!hasChromium()) return;
    p = await startUiPlatform();
    b = await launchBrowser();
    b.page.on('response', (res) => {
      if (/\/api\/nft\/jobs\/[^/]+\/stream$/.test(new URL(res.url()).pathname)) streams.push({ url: res.url(), status: res.status() });
    });
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
  const admin = (route: string) => call(`${p!.adminUrl}${route}`, { headers: asService() });

  test('signs in with the operator key; the key stays in this tab, out of the address', async (t) => {
    if (!ready(t)) return;
    const res = await page().goto(`${p!.adminUrl}/#/collections`);
    assert.equal(res?.status(), 200);
    assert.ok(res?.headers()['content-security-policy']?.includes("script-src 'self'"));
    await page().locator('#key-form').waitFor();
    await screenshot(page(), 'signin');
    await signInWithKey(page());
    await page().locator('[data-field=caller-kind]', { hasText: 'Operator' }).waitFor();
    assert.equal(await page().evaluate(() => sessionStorage.getItem('atelier.credential')), SERVICE_KEY);
    assert.ok(!page().url().includes(SERVICE_KEY));
    // The address was kept through the sign-in; a fresh platform has no collection yet.
    assert.equal(new URL(page().url()).hash, '#/collections');
    await page().locator('#collection-list .empty', { hasText: 'No collection on this platform yet' }).waitFor();
    assert.ok(await page().locator('#nav [data-nav=platform]').isVisible(), 'the operator sees the platform page');
  });

  test('deploys the platform from the Platform page', async (t) => {
    if (!ready(t)) return;
    await page().click('#nav [data-nav=platform]');
    await page().locator('[data-field=factory]', { hasText: 'not deployed' }).waitFor();
    await page().click('#platform-deploy');
    await waitFeedback(page(), '#platform-feedback', /^Platform deployed\.$/);
    const status = await admin('/api/nft/deploy');
    const factory = status.body.deployment.contracts.DiamondFactory as string;
    assert.equal(await page().locator('[data-field=factory] code').getAttribute('title'), factory);
    await p!.startIndexer();
    // The indexer panel refreshes itself: the indexer started now shows up without a click.
    await page().waitForFunction(() => {
      const status = document.querySelector('[data-field=indexer-status]')?.textContent ?? '';
      return status !== '' && !status.startsWith('down');
    });
    await screenshot(page(), 'platform');
  });

  test('the editor refuses a bad weight and an undefined $variable, and shows the odds in %', async (t) => {
    if (!ready(t)) return;
    await page().click('#nav [data-nav=collections]');
    await page().click('#new-collection');
    await page().locator('#create-form').waitFor();
    const first = page().locator('.variable').first();
    // The default color variable: red:1, blue:3, gold:1 → 20 %, 60 %, 20 %.
    assert.equal(await first.locator('[data-field=odds]').innerText(), 'red 20.0 %, blue 60.0 %, gold 20.0 %');
    await first.locator('[name=varOptions]').fill('red:x, blue:-1');
    assert.match(await first.locator('[data-field=odds]').innerText(), /the weight of "red" must be a number ≥ 0 \(got "x"\)/);
    assert.equal(await first.locator('[name=varOptions]').getAttribute('aria-invalid'), 'true');
    await page().fill('#create-form [name=title]', 'Refused');
    await page().click('#create-form button[type=submit]');
    await waitFeedback(page(), '#create-feedback', /the weight of "red" must be a number ≥ 0/, 'bad');

    await first.locator('[name=varOptions]').fill('red:1, blue:3, gold:1');
    await page().fill('#create-form [name=intent]', 'a $colour $animal');
    assert.match(await page().locator('[data-field=prompt-check]').innerText(), /\$colour is not defined by any variable/);
    await page().click('#create-form button[type=submit]');
    // A sentence: the field in words, capitalised, a full stop (web/errors.js).
    await waitFeedback(page(), '#create-feedback', /^Prompt: \$colour is not defined by any variable\.$/, 'bad');
    // The six image inputs are explained, not listed as variables.
    assert.equal(await page().locator('.variable [name=varName][value=social_pfp]').count(), 0);
    await page().locator('.image-inputs summary').click();
    assert.match(await page().locator('[data-input=social_pfp]').innerText(), /profile picture/);
    await screenshot(page(), 'collection-new');
    const listed = await admin('/api/nft/collections/list?q=Refused');
    assert.equal(listed.body.collections.length, 0, 'nothing was created');
  });

  test('creates the collection and lands on its page', async (t) => {
    if (!ready(t)) return;
    await page().fill('#create-form [name=intent]', 'a $color $animal, studio light');
    await page().fill('#create-form [name=title]', 'Browser Cats');
    await page().fill('#create-form [name=editions]', '25');
    await page().click('#create-form button[type=submit]');
    await page().waitForURL(/#\/collections\/[0-9a-f-]{36}$/);
    id = new URL(page().url()).hash.split('/')[2]!;
    await page().locator('#collection-head [data-field=title]', { hasText: 'Browser Cats' }).waitFor();
    assert.equal(await page().locator('[data-field=head-status]').innerText(), 'draft');
    const looked = await admin(`/api/nft/collections/lookup?collectionId=${id}`);
    assert.equal(looked.body.collection.editions, 25);
    assert.deepEqual(looked.body.collection.data.variables.map((v: { name: string }) => v.name).slice(0, 2), ['color', 'animal']);
  });

  test('settings: the mint policy and the cover image', async (t) => {
    if (!ready(t)) return;
    await page().click('.tabs [data-tab=settings]');
    await page().locator('#policy-form').waitFor();
    await page().fill('#policy-form [name=mint_price]', '2.5');
    await page().fill('#policy-form [name=max_per_wallet]', '3');
    await page().click('#policy-form button[type=submit]');
    await waitFeedback(page(), '#policy-feedback', /^Mint policy saved: owner, 2\.50 USD per token\.$/);
    const policy = (await admin(`/api/nft/collections/lookup?collectionId=${id}`)).body.collection.mint_policy;
    assert.equal(policy.mint_price, '2500000');
    assert.equal(policy.max_per_wallet, 3);

    // A bad value is named next to the button; the next success clears it.
    await page().fill('#policy-form [name=payout_address]', '0x1234');
    await page().click('#policy-form button[type=submit]');
    await waitFeedback(page(), '#policy-feedback', /^Payout address: expected 0x followed by 40 hex digits\.$/, 'bad');
    await page().fill('#policy-form [name=payout_address]', '');
    await page().click('#policy-form button[type=submit]');
    await waitFeedback(page(), '#policy-feedback', /^Mint policy saved/);

    // A small gradient cover (an upload as a creator would make it).
    const png = await sharp(
      Buffer.from(
        '<svg xmlns="http://www.w3.org/2000/svg" width="320" height="200"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#4f5bd5"/><stop offset="1" stop-color="#d94f8a"/></linearGradient></defs><rect width="320" height="200" fill="url(#g)"/><circle cx="230" cy="80" r="46" fill="#ffffff" fill-opacity="0.25"/></svg>',
      ),
    )
      .png()
      .toBuffer();
    await page().setInputFiles('#cover-form [name=cover]', { name: 'cover.png', mimeType: 'image/png', buffer: png });
    await page().click('#cover-form button[type=submit]');
    await waitFeedback(page(), '#cover-feedback', /^Cover uploaded\.$/);
    const cover = (await admin(`/api/nft/collections/lookup?collectionId=${id}`)).body.collection.cover_image_url as string;
    assert.match(cover, /^http:\/\/127\.0\.0\.1:\d+\/files\/collection-covers\//);
    // The header (one record for the whole page) shows the new cover at once.
    await page().waitForFunction((src) => {
      const img = document.querySelector<HTMLImageElement>('#collection-head img');
      return !!img && img.src === src && img.complete && img.naturalWidth > 0;
    }, cover);

    // A reference image slot takes an uploaded image; saving the generation stores its path.
    await page().locator('#generation-form .image-inputs summary').click();
    const slot = page().locator('#generation-form [data-input=ref_image_1]');
    await slot.locator('input[type=file]').setInputFiles({ name: 'ref.png', mimeType: 'image/png', buffer: png });
    await slot.locator('button', { hasText: 'Upload' }).click();
    await slot.locator('[data-field=slot-value]', { hasText: /^Set: / }).waitFor();
    await page().click('#generation-form button[type=submit]');
    await waitFeedback(page(), '#generation-feedback', /^Generation saved\.$/);
    const data = (await admin(`/api/nft/collections/lookup?collectionId=${id}`)).body.collection.data;
    const ref = data.variables.find((v: { name: string }) => v.name === 'ref_image_1');
    assert.match(ref.value[0].value, /\.png$/);
    assert.equal(data.variables.filter((v: { name: string }) => v.name === 'ref_image_1').length, 1);
    assert.equal(
      await page().locator('#generation-form [data-input=ref_image_1] [data-field=slot-value]').innerText(),
      `Set: ${ref.value[0].value}`,
    );
    await screenshot(page(), 'collection-settings');
  });

  test('samples before deployment: the allowance, a request, their images', async (t) => {
    if (!ready(t)) return;
    await page().click('.tabs [data-tab=samples]');
    await page().fill('#samples-form [name=wallet_address]', RECIPIENT);
    await page().locator('#samples-form [name=wallet_address]').dispatchEvent('change');
    const before = Number(await page().locator('[data-field=free-remaining]').innerText());
    assert.ok(before >= 2, `free samples left: ${before}`);
    await page().fill('#samples-form [name=count]', '2');
    await page().click('#samples-form button[type=submit]');
    await waitFeedback(page(), '#samples-feedback', /^Requested 2 samples/);
    await page()
      .locator('[data-field=free-remaining]', { hasText: String(before - 2) })
      .waitFor();
    await page().waitForFunction(() => {
      const imgs = Array.from(document.querySelectorAll<HTMLImageElement>('#sample-grid img'));
      return imgs.length === 2 && imgs.every((i) => i.complete && i.naturalWidth > 0);
    });
    await screenshot(page(), 'collection-samples');
  });

  test('deploys the collection by its id from the overview', async (t) => {
    if (!ready(t)) return;
    await page().click('.tabs [data-tab=overview]');
    await page().click('#collection-deploy');
    await page()
      .locator('#overview-notice', { hasText: /^Deployed at 0x[0-9a-fA-F]{40}/ })
      .waitFor();
    const record = (await admin(`/api/nft/collections/lookup?collectionId=${id}`)).body.collection;
    address = record.contract_address;
    assert.match(address, /^0x[0-9a-fA-F]{40}$/);
    assert.equal(await page().locator('#collection-head [data-field=contract_address]').getAttribute('title'), address);
    assert.equal(await page().locator('[data-field=head-status]').innerText(), 'deployed');
    assert.equal(await page().locator('[data-field=max]').innerText(), '25');
    assert.equal(await page().locator('[data-field=mint-active]').innerText(), 'active');
    assert.equal(await page().locator('[data-field=policy-price]').innerText(), '2.50 USD');
    assert.equal(await page().locator('[data-field=minter] code').getAttribute('title'), p!.chain.walletAddress(31337));
    await screenshot(page(), 'collection-overview');
  });

  test('mints three at once and watches each generation reach completed, live', async (t) => {
    if (!ready(t)) return;
    p!.generator.close(); // hold the generations at 40 % so the page is seen generating
    await page().click('.tabs [data-tab=mint]');
    await page().fill('#mint-form [name=recipient]', RECIPIENT);
    await page().fill('#mint-form [name=quantity]', '3');
    await page().click('#mint-form button[type=submit]');
    await waitFeedback(page(), '#mint-feedback', /^Minted 3 tokens: #1, #2, #3; the artwork is being generated below\.$/);
    for (const token of [1, 2, 3]) {
      const row = page().locator(`[data-token-row="${token}"]`);
      await row.locator('[data-field=job-state]', { hasText: 'generating' }).waitFor();
      await row
        .locator('[data-field=percent]', { hasText: '40 %' })
        .waitFor()
        .catch(async (err: Error) => {
          // Say what the page and the job say instead.
          const tokens = (await admin(`/api/nft/tokens?collectionId=${id}`)).body.tokens;
          const job = tokens.find((x: { token_id: number }) => x.token_id === token)?.generation;
          const shown = await row.innerText().catch(() => '?');
          throw new Error(`${err.message}; token ${token}: the page shows "${shown}", the job is ${JSON.stringify(job)}`);
        });
    }
    await screenshot(page(), 'collection-mint');
    p!.generator.release();
    for (const token of [1, 2, 3]) {
      await page().locator(`[data-token-row="${token}"] [data-field=job-state]`, { hasText: 'completed' }).waitFor();
      await page().waitForFunction((n) => {
        const img = document.querySelector<HTMLImageElement>(`[data-token-row="${n}"] img`);
        return !!img && img.complete && img.naturalWidth > 0;
      }, token);
    }
    // The progress came from the job streams (the SSE pass-through), one per token.
    assert.ok(streams.filter((s) => s.status === 200).length >= 3, JSON.stringify(streams));
    assert.equal(await page().locator('[data-field=head-status]').innerText(), 'deployed');
    assert.match(await page().locator('#collection-head').innerText(), /3 \/ 25 minted/);
  });

  test('the gallery shows rarity and filters by a trait', async (t) => {
    if (!ready(t)) return;
    await page().click('.tabs [data-tab=tokens]');
    await page().waitForFunction(() => document.querySelectorAll('#token-grid [data-token]').length === 3);
    const rarity = (await admin(`/api/nft/collections/rarity?collectionId=${id}`)).body;
    const color = rarity.traits.find((x: { trait_type: string }) => x.trait_type === 'color');
    const value = color.values[0];
    const chip = page().locator(`[data-trait=color] [data-value="${value.value}"]`);
    assert.equal(await chip.locator('[data-field=share]').innerText(), `${value.count} · ${Math.round(value.share * 100)} %`);
    await chip.click();
    await page().waitForURL(/\/tokens\?trait=color%3A/);
    await page().locator(`[data-trait=color] [data-value="${value.value}"][aria-pressed=true]`).waitFor();
    await page().waitForFunction((n) => document.querySelectorAll('#token-grid [data-token]').length === n, value.count);
    const filtered = await admin(`/api/nft/tokens?collectionId=${id}&trait=${encodeURIComponent(`color:${value.value}`)}`);
    const shown = await page()
      .locator('#token-grid [data-token]')
      .evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-token'))));
    assert.deepEqual(shown.sort(), filtered.body.tokens.map((x: { token_id: number }) => x.token_id).sort());
    await screenshot(page(), 'collection-tokens');

    // A reload keeps the page and the filter.
    const url = page().url();
    await page().reload();
    await page().waitForFunction((n) => document.querySelectorAll('#token-grid [data-token]').length === n, value.count);
    assert.equal(page().url(), url);
    assert.equal(await page().locator(`[data-trait=color] [data-value="${value.value}"]`).getAttribute('aria-pressed'), 'true');
  });

  test('a token page: image, traits with rarity, owner, the ERC-721 document, transfers and transactions', async (t) => {
    if (!ready(t)) return;
    // The mint is in the transfer history once the indexer has it.
    await waitFor('the indexer to record token 1', async () => {
      const res = await admin(`/api/nft/token?collectionId=${id}&tokenId=1`);
      return res.body.transfers?.length ? true : undefined;
    });
    await page().goto(`${p!.adminUrl}/#/collections/${id}/tokens`);
    await page().click('#token-grid [data-token="1"] a');
    await page().waitForURL(new RegExp(`#/collections/${id}/tokens/1$`));
    // The artwork itself (not the collection cover a token shows until it is ready).
    await page().waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>('#token-image img[data-token-image="1"]');
      return !!img && img.complete && img.naturalWidth > 0;
    });
    assert.equal(await page().locator('[data-field=token-name]').innerText(), 'Browser Cats #1');
    assert.equal(await page().locator('[data-field=owner] code').getAttribute('title'), RECIPIENT);
    const doc = JSON.parse(await page().locator('#token-metadata').innerText());
    assert.equal(doc.name, 'Browser Cats #1');
    assert.match(doc.image, /^http:\/\/127\.0\.0\.1:\d+\/files\/generations\//);
    assert.equal(await page().locator('#token-image img').getAttribute('src'), doc.image);
    const traitRows = await page().locator('#token-traits tbody tr').count();
    assert.equal(traitRows, doc.attributes.length);
    assert.match(await page().locator('#token-traits').innerText(), /of 3\)/);
    assert.match(await page().locator('#token-transfers').innerText(), /mint/);
    assert.match(await page().locator('#token-transactions').innerText(), /mint/);
    await screenshot(page(), 'token');

    await page().reload();
    await page().locator('[data-field=token-name]', { hasText: 'Browser Cats #1' }).waitFor();
  });

  test('an admin action answers next to its button and the contract state is read again', async (t) => {
    if (!ready(t)) return;
    await page().goto(`${p!.adminUrl}/#/collections/${id}/admin`);
    await page().selectOption('#admin-form [name=action]', 'setMintActive');
    await page().selectOption('#admin-form [name=value]', 'false');
    await page().click('#admin-form button[type=submit]');
    await waitFeedback(page(), '#admin-result', /^setMintActive\(false\) succeeded: tx 0x[0-9a-f]{64}$/);
    await page().locator('[data-field=state-mint]', { hasText: 'paused' }).waitFor();
    assert.equal(await page().locator('[data-field=head-status]').innerText(), 'paused');
    const client = createPublicClient({ transport: http(p!.anvil.rpcUrl) });
    assert.equal(
      await client.readContract({ address: address as `0x${string}`, abi: collectionAbi, functionName: 'mintActive' } as never),
      false,
    );

    // A refusal is said next to the button, as a sentence (the contract's error explained, no
    // status code); the next success replaces it.
    await page().selectOption('#admin-form [name=action]', 'setMaxSupply');
    await page().fill('#admin-form [name=value]', '1');
    await page().click('#admin-form button[type=submit]');
    await waitFeedback(
      page(),
      '#admin-result',
      /^setMaxSupply refused by the contract: max supply can't be below the 3 tokens already minted\.$/,
      'bad',
    );
    await page().selectOption('#admin-form [name=action]', 'setMintActive');
    await page().selectOption('#admin-form [name=value]', 'true');
    await page().click('#admin-form button[type=submit]');
    await waitFeedback(page(), '#admin-result', /^setMintActive\(true\) succeeded/);
    await page().locator('[data-field=state-mint]', { hasText: 'active' }).waitFor();
    await screenshot(page(), 'collection-contract');

    await page().reload();
    await page().locator('#admin-form').waitFor();
    assert.equal(new URL(page().url()).hash, `#/collections/${id}/admin`);
  });

  test('the Sale tab sets the on-chain sale and reads it back from the contract', async (t) => {
    if (!ready(t)) return;
    await page().goto(`${p!.adminUrl}/#/collections/${id}/sale`);
    await page().locator('#sale-state', { hasText: 'No sale is set' }).waitFor();
    await page().fill('#sale-form [name=price]', '1000000000000000');
    await page().fill('#sale-form [name=max_per_wallet]', '2');
    // a bad line is named before anything is sent
    await page().fill('#sale-form [name=payouts]', `${RECIPIENT} seventy`);
    await page().click('#sale-form button[type=submit]');
    await waitFeedback(page(), '#sale-feedback', /payouts, line 1: write an address/i, 'bad');
    await page().fill('#sale-form [name=payouts]', `${RECIPIENT} 10000`);
    await page().click('#sale-form button[type=submit]');
    await waitFeedback(page(), '#sale-feedback', /Set by the platform wallet/);
    await page().locator('#sale-state', { hasText: '1000000000000000 (smallest unit)' }).waitFor();
    // the contract says the same
    const read = await admin(`/api/nft/collections/sale?collectionId=${id}`);
    assert.equal(read.status, 200, JSON.stringify(read.body));
    assert.equal(read.body.configured, true);
    assert.equal(read.body.max_per_wallet, 2);
    assert.deepEqual(read.body.payouts, [{ address: RECIPIENT, bps: 10000 }]);
    await screenshot(page(), 'collection-sale');
  });

  test('the collections list shows the cover, status and supply', async (t) => {
    if (!ready(t)) return;
    await page().click('#nav [data-nav=collections]');
    const card = page().locator(`#collection-list [data-collection="${id}"]`);
    await card.waitFor();
    assert.equal(await card.locator('[data-field=status]').innerText(), 'deployed');
    assert.equal(await card.locator('[data-field=supply]').innerText(), '3 / 25');
    await page().waitForFunction((cid) => {
      const img = document.querySelector<HTMLImageElement>(`[data-collection="${cid}"] img`);
      return !!img && img.complete && img.naturalWidth > 0;
    }, id);
    await screenshot(page(), 'collections');
  });

  test('on a narrow (390 px) screen nothing overflows sideways', async (t) => {
    if (!ready(t)) return;
    await page().setViewportSize({ width: 390, height: 844 });
    for (const [hash, name] of [
      ['#/collections', 'narrow-collections'],
      [`#/collections/${id}`, 'narrow-collection-overview'],
      [`#/collections/${id}/tokens`, 'narrow-collection-tokens'],
      [`#/collections/${id}/settings`, null],
      [`#/collections/${id}/mint`, null],
      [`#/collections/${id}/sale`, null],
      [`#/collections/${id}/admin`, null],
      [`#/collections/${id}/tokens/1`, 'narrow-token'],
    ] as const) {
      await page().goto(`${p!.adminUrl}/${hash}`);
      await page().locator('.page').waitFor();
      await page().waitForFunction(() => !document.querySelector('[aria-busy=true]'));
      const width = await page().evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 390, `${hash}: the page is ${width} px wide`);
      if (name) await screenshot(page(), name);
    }
    await page().setViewportSize({ width: 1280, height: 800 });
  });

  test('no script errors or CSP violations in the page', (t) => {
    if (!ready(t)) return;
    assert.deepEqual(unexpectedErrors(b!.errors), []);
  });
});

/**
 * The console's live parts in chromium: the activity feed over socket.io (a transfer sent on
 * chain with viem from the recipient's own anvil account appears without a reload), a failed
 * generation with its error and a Retry that completes it (from the job stream), the indexer panel
 * refreshing itself, and a rejected credential locking the console again.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test, type TestContext } from 'node:test';
import { collectionAbi } from '../../contracts/abi/index.ts';
import { walletFor } from '../helpers/kit.ts';
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

/** anvil account #1 (the recipient, who later sends the token on); #2 receives it. */
const RECIPIENT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const OTHER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';

describe('console: live activity, failed generations, a rejected credential', () => {
  let p: UiPlatform | undefined;
  let b: Browser | undefined;
  let foxes = { id: '', address: '' };
  let glitch = { id: '', address: '' };
  const indexerReads: number[] = [];

  const admin = (route: string, body?: unknown) =>
    call(`${p!.adminUrl}${route}`, { headers: asService(), ...(body ? { method: 'POST', body } : {}) });

  async function deployedCollection(title: string, intent: string) {
    const created = await admin('/api/nft/collections/create', {
      title,
      editions: 10,
      data: { version: 'v2', steps: [{ id: 1, nodeName: 'image', nodePayload: { intent } }], variables: [] },
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const id = created.body.collection.id as string;
    const deployed = await admin('/api/nft/collections/deploy', { collectionId: id });
    assert.equal(deployed.status, 200, JSON.stringify(deployed.body));
    return { id, address: deployed.body.contract_address as string };
  }

  before(async () => {
    if (!hasChromium()) return;
    p = await startUiPlatform();
    assert.equal((await admin('/api/nft/deploy', { chainId: 31337 })).status, 200);
    await p.startIndexer();
    foxes = await deployedCollection('Live Foxes', 'a calm fox by the river');
    glitch = await deployedCollection('Glitch Owls', 'a glitch owl at night');
    b = await launchBrowser();
    b.page.on('response', (res) => {
      if (new URL(res.url()).pathname === '/api/nft/ownership/indexer-status') indexerReads.push(Date.now());
    });
    await b.page.goto(`${p.adminUrl}/#/collections`);
    await signInWithKey(b.page);
    await b.page.locator('[data-field=caller-kind]', { hasText: 'Operator' }).waitFor();
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

  test('a transfer sent on chain appears in the activity feed, live over socket.io', async (t) => {
    if (!ready(t)) return;
    const minted = await admin('/api/nft/mint', { collectionId: foxes.id, recipient: RECIPIENT });
    assert.equal(minted.status, 201, JSON.stringify(minted.body));
    await page().goto(`${p!.adminUrl}/#/collections/${foxes.id}/activity`);
    await page().locator('#live-state[data-state=live]').waitFor();
    // The mint, indexed (read when the page opened, or announced live if it came later).
    await page().locator(`#activity tr[data-tx="${minted.body.mint.txHash}"]`).waitFor();
    await page().evaluate(() => {
      (window as unknown as { stayed: boolean }).stayed = true;
    });

    // The recipient sends the token on, from their own account.
    const wallet = walletFor(p!.anvil.rpcUrl, 1);
    const hash = await wallet.writeContract({
      address: foxes.address as `0x${string}`,
      abi: collectionAbi,
      functionName: 'transferFrom',
      args: [RECIPIENT, OTHER, 1n],
    } as never);
    const row = page().locator(`#activity tr[data-tx="${hash}"]`);
    await row.waitFor();
    assert.equal(await row.getAttribute('class'), 'fresh', 'the new row is marked');
    assert.match(await row.innerText(), /transfer/);
    assert.equal(await row.locator('td:nth-child(4) code').getAttribute('title'), OTHER);
    assert.equal(await page().evaluate(() => (window as unknown as { stayed?: boolean }).stayed), true, 'no reload happened');
    await screenshot(page(), 'collection-activity');

    // The token page tells the same story.
    await page().goto(`${p!.adminUrl}/#/collections/${foxes.id}/tokens/1`);
    await page().locator(`#token-transfers tr[data-tx="${hash}"]`).waitFor();
    assert.equal(await page().locator('[data-field=owner] code').getAttribute('title'), OTHER);
  });

  test('the indexer panel refreshes itself and shows lag, warnings and the last error', async (t) => {
    if (!ready(t)) return;
    await page().goto(`${p!.adminUrl}/#/collections/${foxes.id}/activity`);
    await page().locator('[data-field=indexer-lag]').waitFor();
    const start = indexerReads.length;
    await waitFor('two more indexer reads without a click', async () => (indexerReads.length >= start + 2 ? true : undefined), 20_000);
    assert.match(await page().locator('[data-field=indexer-lag]').innerText(), /^\d+ \/ \d+ blocks$/);
    assert.equal(await page().locator('[data-field=indexer-warnings]').innerText(), 'none');
    assert.equal(await page().locator('[data-field=indexer-error]').innerText(), 'none');
  });

  test('a failed generation shows its error; Retry runs it again to completed', async (t) => {
    if (!ready(t)) return;
    await page().goto(`${p!.adminUrl}/#/collections/${glitch.id}/mint`);
    await page().fill('#mint-form [name=recipient]', RECIPIENT);
    await page().click('#mint-form button[type=submit]');
    await waitFeedback(page(), '#mint-feedback', /^Minted token #1;/);
    const row = page().locator('[data-token-row="1"]');
    await row.locator('[data-field=job-state]', { hasText: 'failed' }).waitFor();
    assert.match(await row.locator('[data-field=job-error]').innerText(), /the fake generator failed this prompt once/);
    await screenshot(page(), 'collection-mint-failed');
    await row.locator('[data-action=retry]').click();
    await row.locator('[data-field=job-state]', { hasText: 'completed' }).waitFor();
    await page().waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>('[data-token-row="1"] img');
      return !!img && img.complete && img.naturalWidth > 0;
    });
    assert.equal(await row.locator('[data-field=job-error]').innerText(), '', 'the error is gone with the success');
  });

  test('a credential refused mid-session locks the console again', async (t) => {
    if (!ready(t)) return;
    await page().goto(`${p!.adminUrl}/#/collections/${foxes.id}`);
    await page().locator('#collection-head').waitFor();
    // The overview's own reads (the gas card) finish first: the click below is the request refused.
    await page().waitForFunction(() => !document.querySelector('#gas-spent > p.muted'));
    // The credential goes stale and the address moves to the Tokens tab in one task: the refused
    // request is the tab's read or a live refresh that comes first (the page re-renders or locks
    // under a click, which made a click flaky); either way the console locks and keeps the address.
    await page().evaluate((hash) => {
      sessionStorage.setItem('atelier.credential', 'no-longer-valid-0123456789');
      location.hash = hash;
    }, `#/collections/${foxes.id}/tokens`);
    await page()
      .locator('#signin-reason', { hasText: /^Signed out: / })
      .waitFor();
    assert.equal(await page().evaluate(() => sessionStorage.getItem('atelier.credential')), null);
    assert.ok(await page().locator('#who').isHidden(), 'the header no longer names a caller');
    // The address is kept: signing in again opens the same page.
    await signInWithKey(page());
    await page().locator('#token-grid').waitFor();
    assert.equal(new URL(page().url()).hash, `#/collections/${foxes.id}/tokens`);

    // A wrong key on the sign-in page is refused there, with the server's message as a sentence
    // (no status code: docs/admin-ui.md "Errors are sentences").
    await page().click('#sign-out');
    await signInWithKey(page(), 'wrong-key-0123456789');
    await waitFeedback(page(), '#key-feedback', /^Invalid credentials\.$/, 'bad');
    assert.equal(await page().evaluate(() => sessionStorage.getItem('atelier.credential')), null);
  });

  test('no script errors or CSP violations in the page', (t) => {
    if (!ready(t)) return;
    assert.deepEqual(unexpectedErrors(b!.errors), []);
  });
});

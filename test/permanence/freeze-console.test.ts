/**
 * The console's "Make permanent" (docs/permanence.md "Freezing", docs/admin-ui.md) in chromium,
 * against the real backend, admin proxy and anvil: on the Contract tab of a sold-out collection it
 * exports, waits until the bundle is ready and freezes. A platform-owned contract is frozen by the
 * platform; a creator-owned one shows the three calls, sends them from the browser wallet (a fake
 * EIP-1193 `window.ethereum` whose requests go to anvil, where the owner account is unlocked), and
 * "Record the freeze" records it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { encodeFunctionData, type Address } from 'viem';
import { collectionAbi } from '../../contracts/abi/index.ts';
import { collections } from '../../src/db/schema/index.ts';
import { asService, call } from '../helpers/platform.ts';
import { hasChromium, launchBrowser, NO_CHROMIUM, signInWithKey, unexpectedErrors, waitFeedback, type Browser } from '../ui/console-kit.ts';
import { startMintingPlatform, waitFor, type MintingPlatform } from '../minting/helpers.ts';

let mp: MintingPlatform;
let b: Browser;
const sentByWallet: Array<{ from: string; to: string; data: string }> = [];
/** A bundle export runs as a job; the full suite on PostgreSQL has been seen to need over a minute. */
const EXPORT_WAIT_MS = 180_000;

/** window.ethereum in the page; every request goes to `__walletRpc` on the Node side. */
const FAKE_WALLET_SCRIPT = `window.ethereum = { request: ({ method, params }) => window.__walletRpc(method, params ?? []).then((r) => {
  if (r.error) throw Object.assign(new Error(r.error.message), { code: r.error.code });
  return r.result;
}) };`;

before(async () => {
  if (!hasChromium()) return;
  mp = await startMintingPlatform();
  b = await launchBrowser();
  const owner = mp.wallet(2).account.address;
  await b.page.exposeFunction('__walletRpc', async (method: string, params: unknown[]) => {
    if (method === 'eth_requestAccounts' || method === 'eth_accounts') return { result: [owner] };
    if (method === 'eth_sendTransaction') sentByWallet.push(params[0] as { from: string; to: string; data: string });
    const res = await fetch(mp.anvil.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
    return body.error ? { error: body.error } : { result: body.result };
  });
  await b.page.addInitScript({ content: FAKE_WALLET_SCRIPT });
});
after(async () => {
  await b?.close();
  await mp?.close();
});

/** A sold-out one-token collection, its artwork done. */
async function soldOut(title: string): Promise<{ id: string; address: Address }> {
  const { id, address } = await mp.deployedCollection({ title, editions: 1 });
  const minted = await call(`${mp.backendUrl}/nft/collections/${id}/mint`, {
    headers: { ...asService(), 'idempotency-key': `${title}-mint` },
    body: { recipient_address: mp.wallet(3).account.address, quantity: 1 },
  });
  assert.equal(minted.status, 201, JSON.stringify(minted.body));
  await waitFor(
    `${title} artwork`,
    async () => ((await call(`${mp.backendUrl}/collections/${id}/tokens/1/receipt`)).status === 200 ? true : undefined),
    120_000,
    100,
  );
  return { id, address };
}

const frozenRow = async (id: string) => (await mp.database.db.select().from(collections).where(eq(collections.id, id)))[0]!;

async function openContractTab(id: string) {
  await b.page.goto(`${mp.adminUrl}/#/collections/${id}/admin`);
  if (
    await b.page
      .locator('#key-form')
      .isVisible()
      .catch(() => false)
  )
    await signInWithKey(b.page);
  await b.page.locator('#make-permanent').waitFor();
}

test('Make permanent: a platform-owned contract is exported and frozen from the Contract tab', { timeout: 300_000 }, async (t) => {
  if (!hasChromium()) return t.skip(NO_CHROMIUM);
  const { id, address } = await soldOut('ConsolePlatform');
  await b.page.goto(`${mp.adminUrl}/#/collections/${id}/admin`);
  await b.page.locator('#key-form').waitFor();
  await signInWithKey(b.page);
  await b.page.locator('#make-permanent').waitFor();

  // Unconfirmed: refused next to the button, nothing sent.
  await b.page.click('#make-permanent');
  await waitFeedback(b.page, '#permanent-feedback', /tick the box/, 'bad');
  await b.page.check('[name=permanent-confirm]');
  await b.page.click('#make-permanent');
  // Exporting builds the bundle on a worker: under a loaded full suite it takes longer than a click.
  await waitFeedback(b.page, '#permanent-feedback', /Frozen for good at ipfs:\/\/bafy/, 'good', EXPORT_WAIT_MS);
  const row = await frozenRow(id);
  assert.ok(row.frozen_at && row.frozen_root_cid);
  assert.equal(
    await mp.client.readContract({ address, abi: collectionAbi, functionName: 'tokenURI', args: [1n] }),
    `ipfs://${row.frozen_root_cid}/metadata/1`,
  );
  assert.deepEqual(sentByWallet, [], 'the platform sent them, not the wallet');
});

test('Make permanent: a creator-owned contract shows the three calls, the wallet sends them, Record the freeze records it', {
  timeout: 300_000,
}, async (t) => {
  if (!hasChromium()) return t.skip(NO_CHROMIUM);
  const { id, address } = await soldOut('ConsoleCreator');
  await mp.chain.sender(31337).send({
    purpose: 'test_transfer_ownership',
    to: address,
    data: encodeFunctionData({ abi: collectionAbi, functionName: 'transferOwnership', args: [mp.wallet(2).account.address] }),
  });
  await openContractTab(id);
  await b.page.check('[name=permanent-confirm]');
  await b.page.click('#make-permanent');
  await waitFeedback(b.page, '#permanent-feedback', /owner signs these/, 'good', EXPORT_WAIT_MS);
  assert.equal(await b.page.locator('#permanent-owner-calls [data-field=call-data]').count(), 3);
  await b.page.click('#permanent-sign');
  await waitFeedback(b.page, '#permanent-sign-feedback', /^Sent: 0x/);
  assert.equal(sentByWallet.length, 3);
  for (const tx of sentByWallet) assert.equal(tx.to.toLowerCase(), address.toLowerCase());
  await waitFor('frozen on chain', async () =>
    (await mp.client.readContract({ address, abi: collectionAbi, functionName: 'metadataFrozen' })) ? true : undefined,
  );
  assert.equal((await frozenRow(id)).frozen_at, null, 'not recorded before Record the freeze');
  await b.page.click('#permanent-record');
  await waitFeedback(b.page, '#permanent-sign-feedback', /Frozen for good at ipfs:\/\/bafy/);
  assert.ok((await frozenRow(id)).frozen_at);
  assert.deepEqual(unexpectedErrors(b.errors), []);
});

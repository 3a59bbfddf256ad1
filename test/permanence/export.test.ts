/**
 * Permanence (docs/permanence.md): a sold-out 10-token collection with generated artwork is
 * exported through the API (202, then ready), its CAR downloaded and read with an independent
 * implementation — Helia's UnixFS (`@helia/unixfs`) over the blocks `@helia/car` imports, each
 * block's sha2-256 checked here with node:crypto — and the files by path from the root CID are
 * the bytes the backend serves. The backend's gateway serves the same bytes. An open sale is 409
 * naming why (and turning minting off closes it); another user cannot export.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { car } from '@helia/car';
import { unixfs } from '@helia/unixfs';
import * as dagPb from '@ipld/dag-pb';
import { CarReader } from '@ipld/car';
import { defaultLogger } from '@libp2p/logger';
import { MemoryBlockstore } from 'blockstore-core';
import { eq } from 'drizzle-orm';
import { SignJWT } from 'jose';
import { CID } from 'multiformats/cid';
import * as raw from 'multiformats/codecs/raw';
import { chromium } from 'playwright-core';
import { encodeFunctionData } from 'viem';
import { collectionAbi } from '../../contracts/abi/index.ts';
import { collections } from '../../src/db/schema/index.ts';
import { runExportCommand } from '../../src/processes/export.ts';
import { JWT_SECRET, SERVICE_KEY, asService, call } from '../helpers/platform.ts';
import { startMintingPlatform, waitFor, type MintingPlatform } from '../minting/helpers.ts';

let mp: MintingPlatform;
let owner: { authorization: string };
let other: { authorization: string };
let ownerId: string;
/** The first test's ready export and CAR, for the viewer test. */
let exported: { root: string; car: Buffer } | undefined;
const CHROMIUM = process.env.ATELIER_TEST_CHROMIUM ?? '/usr/bin/chromium';

const sign = (sub: string) =>
  new SignJWT({ sub, name: sub }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('30m').sign(new TextEncoder().encode(JWT_SECRET));

before(async () => {
  mp = await startMintingPlatform();
  owner = { authorization: `Bearer ${await sign('export-owner')}` };
  other = { authorization: `Bearer ${await sign('export-other')}` };
  ownerId = (await call(`${mp.backendUrl}/api/me`, { headers: owner })).body.data.id as string;
  await call(`${mp.backendUrl}/api/me`, { headers: other });
});
after(() => mp.close());

/** A deployed collection of `editions` owned by the owner user, with `mint` tokens minted and their artwork done. */
async function collectionWithTokens(title: string, editions: number, mint: number) {
  const { id, address } = await mp.deployedCollection({ title, editions });
  await mp.database.db.update(collections).set({ user_id: ownerId }).where(eq(collections.id, id));
  const minted = await call(`${mp.backendUrl}/nft/collections/${id}/mint`, {
    headers: { ...asService(), 'idempotency-key': `${title}-mint` },
    body: { recipient_address: mp.wallet(3).account.address, quantity: mint },
  });
  assert.equal(minted.status, 201, JSON.stringify(minted.body));
  const tokenIds = minted.body.data.token_ids as number[];
  assert.equal(tokenIds.length, mint);
  for (const tokenId of tokenIds) {
    await waitFor(
      `${title} token ${tokenId} artwork`,
      async () => {
        const d = await call(`${mp.backendUrl}/collections/${id}/tokens/${tokenId}/receipt`);
        return d.status === 200 ? true : undefined;
      },
      120_000,
      100,
    );
  }
  return { id, address, tokenIds };
}

async function bytesOf(url: string): Promise<Buffer> {
  const r = await fetch(url);
  assert.equal(r.status, 200, `GET ${url}`);
  return Buffer.from(await r.arrayBuffer());
}

/** The CAR's blocks in a plain blockstore, each checked here against its CID; Helia's UnixFS reads them. */
async function heliaOver(carBytes: Uint8Array) {
  const reader = await CarReader.fromBytes(carBytes);
  let blocks = 0;
  for await (const { cid, bytes } of reader.blocks()) {
    assert.equal(cid.multihash.code, 0x12, `block ${cid} is sha2-256`);
    assert.deepEqual(createHash('sha256').update(bytes).digest(), Buffer.from(cid.multihash.digest), `block ${cid} matches its CID`);
    blocks += 1;
  }
  const blockstore = new MemoryBlockstore();
  const codecs: Record<number, unknown> = { [dagPb.code]: dagPb, [raw.code]: raw };
  const importer = car({ blockstore, logger: defaultLogger(), getCodec: async (code: number) => codecs[code] } as never);
  await importer.import(reader as never);
  const fs = unixfs({ blockstore });
  const cat = async (root: CID, path: string) => {
    const parts: Uint8Array[] = [];
    for await (const part of fs.cat(root, { path })) parts.push(part);
    return Buffer.concat(parts);
  };
  return { roots: await reader.getRoots(), blocks, cat, fs };
}

test('a sold-out collection exports as a CAR whose files, read by Helia from the root CID, are what the backend serves', {
  timeout: 600_000,
}, async () => {
  const { id, tokenIds } = await collectionWithTokens('Permanent', 10, 10);
  assert.deepEqual(
    [...tokenIds].sort((a, b) => a - b),
    Array.from({ length: 10 }, (_, i) => tokenIds.reduce((m, x) => Math.min(m, x)) + i),
  );
  assert.ok(tokenIds.includes(3), `token 3 is among ${tokenIds}`);
  const [row] = await mp.database.db.select().from(collections).where(eq(collections.id, id));
  assert.equal(row!.tokens_minted, 10, 'sold out');

  const started = await call(`${mp.backendUrl}/nft/collections/${id}/export`, { method: 'POST', headers: owner });
  assert.equal(started.status, 202, JSON.stringify(started.body));
  assert.equal(started.body.data.closed_reason, 'sold_out');
  assert.ok(['building', 'ready'].includes(started.body.data.status));

  const ready = await waitFor(
    'export ready',
    async () => {
      const r = await call(`${mp.backendUrl}/nft/collections/${id}/export`, { headers: owner });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.notEqual(r.body.data.status, 'failed', JSON.stringify(r.body.data));
      return r.body.data.status === 'ready' ? r.body.data : undefined;
    },
    120_000,
    100,
  );
  assert.equal(ready.id, started.body.data.id);
  assert.equal(ready.token_count, 10);
  assert.match(ready.root_cid, /^bafy/);
  assert.match(ready.car_url, /^http/);

  const carBytes = await bytesOf(ready.car_url);
  assert.equal(carBytes.length, ready.car_bytes);
  const helia = await heliaOver(carBytes);
  assert.deepEqual(
    helia.roots.map((r) => r.toString()),
    [ready.root_cid],
  );
  assert.ok(helia.blocks > 30, `blocks: ${helia.blocks}`);
  const root = CID.parse(ready.root_cid);

  // metadata/3: the backend's document, image pointing into the images directory by its CID.
  const served = await call(`${mp.backendUrl}/collections/${id}/tokens/3`);
  assert.equal(served.status, 200);
  const bundled = JSON.parse((await helia.cat(root, 'metadata/3')).toString('utf8'));
  assert.equal(bundled.image, `ipfs://${ready.images_cid}/3.png`);
  assert.deepEqual({ ...bundled, image: served.body.image }, served.body);
  assert.equal(bundled.name, 'Permanent #3');
  assert.ok(bundled.attributes.length > 0);

  // images/3.png: the bytes of the token's image URL, also under the images directory's own CID.
  const image = await bytesOf(served.body.image);
  assert.deepEqual(await helia.cat(root, 'images/3.png'), image);
  assert.deepEqual(await helia.cat(CID.parse(ready.images_cid), '3.png'), image);

  // receipts/3.json: the receipt route's bytes; contract.json: the contractURI document.
  assert.deepEqual(await helia.cat(root, 'receipts/3.json'), await bytesOf(`${mp.backendUrl}/collections/${id}/tokens/3/receipt`));
  assert.equal(
    createHash('sha256').update(image).digest('hex'),
    JSON.parse((await helia.cat(root, 'receipts/3.json')).toString()).output.sha256,
    "the receipt's sha256 is the bundled image's",
  );
  assert.deepEqual(await helia.cat(root, 'contract.json'), await bytesOf(`${mp.backendUrl}/collections/${id}/metadata.json`));

  // index.html and the viewer: relative URLs only.
  const index = (await helia.cat(root, 'index.html')).toString('utf8');
  assert.match(index, /<title>Permanent<\/title>/);
  assert.match(index, /src="viewer\.js"/);
  assert.doesNotMatch(index, /(src|href)="(\/|https?:)/, 'no absolute URL in index.html');
  const listing: string[] = [];
  for await (const e of helia.fs.ls(root)) listing.push(e.name);
  assert.deepEqual(listing.sort(), [
    'bundle-data.js',
    'contract.json',
    'images',
    'index.html',
    'metadata',
    'receipts',
    'viewer.css',
    'viewer.js',
  ]);
  const data = (await helia.cat(root, 'bundle-data.js')).toString('utf8');
  assert.match(data, /"image":"images\/3\.png"/);

  // The backend's gateway: the same bytes, by root CID and path.
  const viaGateway = await fetch(`${mp.backendUrl}/ipfs/${ready.root_cid}/metadata/3`);
  assert.equal(viaGateway.status, 200);
  assert.equal(viaGateway.headers.get('content-type'), 'application/json');
  assert.deepEqual(Buffer.from(await viaGateway.arrayBuffer()), await helia.cat(root, 'metadata/3'));
  const gwImage = await fetch(`${mp.backendUrl}/ipfs/${ready.images_cid}/3.png`);
  assert.equal(gwImage.headers.get('content-type'), 'image/png');
  assert.deepEqual(Buffer.from(await gwImage.arrayBuffer()), image);
  const bare = await fetch(`${mp.backendUrl}/ipfs/${ready.root_cid}`, { redirect: 'manual' });
  assert.equal(bare.status, 301);
  assert.equal(bare.headers.get('location'), `/ipfs/${ready.root_cid}/`);
  const page = await fetch(`${mp.backendUrl}/ipfs/${ready.root_cid}/`);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  assert.equal(await page.text(), index);
  // Unknown CID 404, not a CID 400, a path the bundle lacks 404.
  const unknown = await call(`${mp.backendUrl}/ipfs/bafybeihkoviema7g3gxyt6la7vd5ho32ictqbilu3wnlo3rs7ewhnp7lly/index.html`);
  assert.equal(unknown.status, 404);
  assert.equal((await call(`${mp.backendUrl}/ipfs/not-a-cid/index.html`)).status, 400);
  assert.equal((await call(`${mp.backendUrl}/ipfs/${ready.root_cid}/metadata/999`)).status, 404);

  // `atelier export <id> --car <file>`: the API again (a new build of the same content: the same root).
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-export-')), 'bundle.car');
  const cli = await runExportCommand({ backendUrl: mp.backendUrl, apiKey: SERVICE_KEY, collectionId: id, carPath: file, pollMs: 100 });
  assert.equal(cli.root_cid, ready.root_cid);
  assert.deepEqual(fs.readFileSync(file), carBytes);
  exported = { root: ready.root_cid, car: carBytes };
});

test('the viewer shows the gallery and a receipt at /ipfs/<root>/ on the backend, and the gallery from the unpacked folder (file://)', {
  skip: !fs.existsSync(CHROMIUM) && 'chromium not installed: apt-get install chromium',
  timeout: 300_000,
}, async () => {
  assert.ok(exported, 'the export test ran first');
  // The bundle unpacked into a plain folder by Helia's UnixFS, file by file.
  const helia = await heliaOver(exported.car);
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-bundle-'));
  const root = CID.parse(exported.root);
  const unpack = async (dir: string) => {
    for await (const e of helia.fs.ls(root, { path: dir })) {
      const rel = dir ? `${dir}/${e.name}` : e.name;
      if ((await helia.fs.stat(e.cid)).type === 'directory') {
        fs.mkdirSync(path.join(folder, rel), { recursive: true });
        await unpack(rel);
      } else fs.writeFileSync(path.join(folder, rel), await helia.cat(root, rel));
    }
  };
  await unpack('');
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const errors: string[] = [];
    const page = await browser.newPage();
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(`${mp.backendUrl}/ipfs/${exported.root}/`);
    await page.locator('.card').nth(9).waitFor();
    assert.equal(await page.locator('.card').count(), 10);
    assert.equal(
      await page
        .locator('.card img')
        .first()
        .evaluate((img) => (img as HTMLImageElement).naturalWidth > 0),
      true,
      'image loads',
    );
    await page.locator('.card', { hasText: 'Permanent #3' }).click();
    await page.locator('#detail pre', { hasText: '"token_id": 3' }).waitFor();
    assert.deepEqual(errors, []);

    const local = await browser.newPage();
    await local.goto(`file://${path.join(folder, 'index.html')}`);
    await local.locator('.card').nth(9).waitFor();
    assert.equal(
      await local
        .locator('.card img')
        .first()
        .evaluate((img) => (img as HTMLImageElement).naturalWidth > 0),
      true,
    );
  } finally {
    await browser.close();
  }
});

test('an open sale is 409 naming why; turning minting off closes it', { timeout: 600_000 }, async () => {
  const { id, address } = await collectionWithTokens('StillOpen', 10, 1);
  const refused = await call(`${mp.backendUrl}/nft/collections/${id}/export`, { method: 'POST', headers: owner });
  assert.equal(refused.status, 409, JSON.stringify(refused.body));
  assert.equal(refused.body.code, 'SALE_OPEN');
  assert.match(JSON.stringify(refused.body), /the contract has minted 1 of its maxSupply 10/);
  assert.match(JSON.stringify(refused.body), /mintActive\(\) is true/);
  assert.equal((await call(`${mp.backendUrl}/nft/collections/${id}/export`, { headers: owner })).status, 404, 'no export was made');
  // The route takes no body: an unknown field is refused naming it (as on the sale route); `{}` is
  // no body; the admin proxy's forward (the console's {collectionId}) sends none.
  const extra = await call(`${mp.backendUrl}/nft/collections/${id}/export`, { method: 'POST', headers: owner, body: { foo: 1 } });
  assert.equal(extra.status, 400, JSON.stringify(extra.body));
  assert.equal(extra.body.error, 'body: Unrecognized key: "foo"');
  const empty = await call(`${mp.backendUrl}/nft/collections/${id}/export`, { method: 'POST', headers: owner, body: {} });
  assert.equal(empty.status, 409, JSON.stringify(empty.body));
  assert.equal(empty.body.code, 'SALE_OPEN');
  const viaConsole = await call(`${mp.adminUrl}/api/nft/collections/export`, {
    method: 'POST',
    headers: owner,
    body: { collectionId: id },
  });
  assert.equal(viaConsole.status, 409, JSON.stringify(viaConsole.body));
  assert.equal(viaConsole.body.code, 'SALE_OPEN');

  await mp.chain.sender(31337).send({
    purpose: 'test_mint_off',
    to: address,
    data: encodeFunctionData({ abi: collectionAbi, functionName: 'setMintActive', args: [false] }),
  });
  // Two requests at once: one build, both answered with it.
  const [started, again] = await Promise.all(
    [0, 1].map(() => call(`${mp.backendUrl}/nft/collections/${id}/export`, { method: 'POST', headers: owner })),
  );
  assert.equal(started!.status, 202, JSON.stringify(started!.body));
  assert.equal(again!.status, 202, JSON.stringify(again!.body));
  assert.equal(again!.body.data.id, started!.body.data.id);
  assert.equal(started!.body.data.closed_reason, 'minting_off');
  await waitFor('one-token export ready', async () => {
    const r = await call(`${mp.backendUrl}/nft/collections/${id}/export`, { headers: owner });
    assert.notEqual(r.body.data.status, 'failed', JSON.stringify(r.body.data));
    return r.body.data.status === 'ready' ? true : undefined;
  });
});

test("another user cannot export or read the export of someone else's collection; anonymous callers are asked to sign in", async () => {
  const { id } = await mp.deployedCollection({ title: 'Theirs', editions: 10 });
  await mp.database.db.update(collections).set({ user_id: ownerId, tokens_minted: 10 }).where(eq(collections.id, id));
  const post = await call(`${mp.backendUrl}/nft/collections/${id}/export`, { method: 'POST', headers: other });
  assert.equal(post.status, 403, JSON.stringify(post.body));
  assert.equal((await call(`${mp.backendUrl}/nft/collections/${id}/export`, { headers: other })).status, 403);
  assert.equal((await call(`${mp.backendUrl}/nft/collections/${id}/export`, { method: 'POST' })).status, 401);
  const [none] = await mp.database.db.select().from(collections).where(eq(collections.id, id));
  assert.equal(none!.tokens_minted, 10);
});

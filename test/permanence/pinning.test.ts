/**
 * Pinning (docs/permanence.md "Pinning"): an export that becomes ready is pinned on the configured
 * target and read back from it, against two FAKES that follow the documented protocols —
 * test/fakes/kubo-rpc-fake.ts (Kubo's RPC API: dag/import really imports the CAR, cat and
 * block/get answer from its own blocks) and test/fakes/pinning-service-fake.ts (the Pinning
 * Service API with Bearer auth; it fetches the DAG from the origin we name, i.e. our backend's
 * `/ipfs/<root>?format=car`, and serves a gateway). A target answering other bytes for one path
 * is refused naming the path, and POST …/export/pin retries; bad settings stop the start naming
 * the variable; another user cannot pin (403), nobody without credentials (401).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { SignJWT } from 'jose';
import { CID } from 'multiformats/cid';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { collectionExports, collections } from '../../src/db/schema/index.ts';
import { buildBundle, CarBundle } from '../../src/storage/car-bundle.ts';
import { checkPinned, createPinTarget, httpMultiaddr, type PinTarget } from '../../src/storage/pinning/index.ts';
import { S3Storage } from '../../src/storage/s3.ts';
// @ts-expect-error s3rver ships no type declarations
import S3rver from 's3rver';
import { startCarBucketGatewayFake, type CarBucketGatewayFake } from '../fakes/car-bucket-gateway-fake.ts';
import { startKuboRpcFake, type KuboRpcFake } from '../fakes/kubo-rpc-fake.ts';
import { startPinningServiceFake, type PinningServiceFake } from '../fakes/pinning-service-fake.ts';
import { CLI } from '../helpers/cli.ts';
import { JWT_SECRET, asService, call } from '../helpers/platform.ts';
import { startMintingPlatform, waitFor } from '../minting/helpers.ts';

const sign = (sub: string) =>
  new SignJWT({ sub, name: sub }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('30m').sign(new TextEncoder().encode(JWT_SECRET));

/** A platform with a pin target, and an owner and another user. */
async function platformWith(env: Record<string, string>) {
  const mp = await startMintingPlatform({ env });
  const owner = { authorization: `Bearer ${await sign('pin-owner')}` };
  const other = { authorization: `Bearer ${await sign('pin-other')}` };
  const ownerId = (await call(`${mp.backendUrl}/api/me`, { headers: owner })).body.data.id as string;
  await call(`${mp.backendUrl}/api/me`, { headers: other });
  return { mp, owner, other, ownerId };
}
type Platform = Awaited<ReturnType<typeof platformWith>>;

/** A sold-out collection of `editions` tokens owned by the owner, artwork done. */
async function soldOut(p: Platform, title: string, editions: number) {
  const { mp } = p;
  const { id } = await mp.deployedCollection({ title, editions });
  await mp.database.db.update(collections).set({ user_id: p.ownerId }).where(eq(collections.id, id));
  const minted = await call(`${mp.backendUrl}/nft/collections/${id}/mint`, {
    headers: { ...asService(), 'idempotency-key': `${title}-mint` },
    body: { recipient_address: mp.wallet(3).account.address, quantity: editions },
  });
  assert.equal(minted.status, 201, JSON.stringify(minted.body));
  const tokenIds = (minted.body.data.token_ids as number[]).sort((a, b) => a - b);
  for (const tokenId of tokenIds) {
    await waitFor(
      `${title} token ${tokenId} artwork`,
      async () => ((await call(`${mp.backendUrl}/collections/${id}/tokens/${tokenId}/receipt`)).status === 200 ? true : undefined),
      120_000,
      100,
    );
  }
  return { id, tokenIds };
}

/** The export once its pin ended (pinned or failed). */
async function pinEnded(p: Platform, id: string) {
  return waitFor(
    'pin ended',
    async () => {
      const r = await call(`${p.mp.backendUrl}/nft/collections/${id}/export`, { headers: p.owner });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.notEqual(r.body.data.status, 'failed', JSON.stringify(r.body.data));
      return ['pinned', 'failed'].includes(r.body.data.pin_status) ? r.body.data : undefined;
    },
    120_000,
    100,
  );
}

async function exportAndPin(p: Platform, id: string) {
  const started = await call(`${p.mp.backendUrl}/nft/collections/${id}/export`, { method: 'POST', headers: p.owner });
  assert.equal(started.status, 202, JSON.stringify(started.body));
  return pinEnded(p, id);
}

const bytesOf = async (url: string) => {
  const r = await fetch(url);
  assert.equal(r.status, 200, `GET ${url}`);
  return Buffer.from(await r.arrayBuffer());
};

describe('Kubo RPC target', () => {
  let kubo: KuboRpcFake;
  let p: Platform;
  before(async () => {
    kubo = await startKuboRpcFake({ authorization: 'Basic cGluOnNlY3JldA==' });
    p = await platformWith({ IPFS_PIN_TARGET: 'kubo', IPFS_KUBO_RPC_URL: kubo.url, IPFS_KUBO_RPC_AUTH: 'Basic cGluOnNlY3JldA==' });
  });
  after(async () => {
    await p?.mp.close();
    await kubo?.close();
  });

  test('an export that becomes ready is imported into Kubo, pinned, read back and shows pinned', { timeout: 600_000 }, async () => {
    const { id, tokenIds } = await soldOut(p, 'Pinned', 3);
    const done = await exportAndPin(p, id);
    assert.equal(done.status, 'ready');
    assert.equal(done.pin_status, 'pinned', JSON.stringify(done));
    assert.equal(done.pin_error, null);
    assert.match(done.pin_target, /^kubo 127\.0\.0\.1:\d+$/);
    assert.ok(Date.parse(done.pinned_at) >= Date.parse(done.finished_at));
    // The node holds and pins the root, and got there by the documented calls (POST only).
    assert.ok(kubo.pins.has(done.root_cid), `pinned roots: ${[...kubo.pins]}`);
    assert.equal(kubo.blocks.missingUnder(CID.parse(done.root_cid)), undefined);
    assert.ok(kubo.calls.includes('POST dag/import'));
    assert.ok(kubo.calls.filter((c) => c === 'POST cat').length >= 5, kubo.calls.join(', '));
    assert.ok(kubo.calls.includes('POST block/get'));
    assert.ok(kubo.calls.every((c) => c.startsWith('POST ')));
    // The node's copy is our bundle: a token document and image by path, as our gateway serves them.
    const last = tokenIds[tokenIds.length - 1]!;
    const fromNode = await kubo.blocks.cat(`${done.root_cid}/metadata/${last}`);
    assert.ok(fromNode.ok);
    assert.deepEqual(fromNode.bytes, await bytesOf(`${p.mp.backendUrl}/ipfs/${done.root_cid}/metadata/${last}`));
    // Pinned already: a retry is refused.
    const again = await call(`${p.mp.backendUrl}/nft/collections/${id}/export/pin`, { method: 'POST', headers: p.owner });
    assert.equal(again.status, 409, JSON.stringify(again.body));
    assert.equal(again.body.code, 'ALREADY_PINNED');
  });

  test('a target answering other bytes for one path fails the pin naming it; POST …/export/pin pins it again', {
    timeout: 600_000,
  }, async () => {
    const { id, tokenIds } = await soldOut(p, 'Tampered', 2);
    const first = tokenIds[0]!;
    // The root is known only after the build; the fake alters the path under any root meanwhile.
    kubo.blocks.alterEverywhere(`metadata/${first}`);
    const failed = await exportAndPin(p, id);
    assert.equal(failed.status, 'ready', 'the export itself stays ready');
    assert.equal(failed.pin_status, 'failed');
    assert.match(failed.pin_error, new RegExp(`different bytes for metadata/${first}\\b`));
    assert.equal(failed.pinned_at, null);

    kubo.blocks.alterNothing();
    const retried = await call(`${p.mp.backendUrl}/nft/collections/${id}/export/pin`, { method: 'POST', headers: p.owner });
    assert.equal(retried.status, 202, JSON.stringify(retried.body));
    assert.equal(retried.body.data.pin_status, 'pinning');
    assert.equal(retried.body.data.pin_error, null);
    const pinned = await pinEnded(p, id);
    assert.equal(pinned.pin_status, 'pinned', JSON.stringify(pinned));
    assert.equal(pinned.id, failed.id, 'the same export, pinned again');
  });

  test('a build and a pin whose process died (the rows kill -9 leaves) are taken over by a backend and finished', {
    timeout: 600_000,
  }, async () => {
    const { id } = await soldOut(p, 'Orphaned', 2);
    const db = p.mp.database.db;
    const longAgo = new Date(Date.now() - 5 * 60_000);
    // What a backend killed mid-build leaves: a `building` row nobody touches any more.
    const [orphan] = await db
      .insert(collectionExports)
      .values({ collection_id: id, closed_reason: 'sold_out', status: 'building', heartbeat_at: longAgo, created_at: longAgo })
      .returning();
    const asked = await call(`${p.mp.backendUrl}/nft/collections/${id}/export`, { method: 'POST', headers: p.owner });
    assert.equal(asked.status, 202);
    assert.equal(asked.body.data.id, orphan!.id, 'a request meanwhile answers the one export building');
    const done = await pinEnded(p, id);
    assert.equal(done.id, orphan!.id, 'the same export, built by the backend that took it over');
    assert.equal(done.status, 'ready');
    assert.equal(done.pin_status, 'pinned', JSON.stringify(done));
    assert.ok(kubo.pins.has(done.root_cid));

    // What a backend killed mid-pin leaves: `pinning` with a stopped heartbeat.
    kubo.pins.delete(done.root_cid);
    await db
      .update(collectionExports)
      .set({ pin_status: 'pinning', pinned_at: null, heartbeat_at: longAgo })
      .where(eq(collectionExports.id, orphan!.id));
    const repinned = await pinEnded(p, id);
    assert.equal(repinned.pin_status, 'pinned', JSON.stringify(repinned));
    assert.ok(kubo.pins.has(done.root_cid), 'pinned on the target again');
  });

  test('another user cannot pin (403), nobody without credentials (401); the operator can ask', async () => {
    const { id } = await p.mp.deployedCollection({ title: 'NotYours', editions: 2 });
    await p.mp.database.db.update(collections).set({ user_id: p.ownerId }).where(eq(collections.id, id));
    const url = `${p.mp.backendUrl}/nft/collections/${id}/export/pin`;
    const forbidden = await call(url, { method: 'POST', headers: p.other });
    assert.equal(forbidden.status, 403, JSON.stringify(forbidden.body));
    assert.equal((await call(url, { method: 'POST' })).status, 401);
    // Allowed to the operator; this collection has no export yet.
    const none = await call(url, { method: 'POST', headers: asService() });
    assert.equal(none.status, 404, JSON.stringify(none.body));
    // The route takes no body: an unknown field is refused naming it (as on the sale route); `{}` is no body.
    const extra = await call(url, { method: 'POST', headers: asService(), body: { foo: 1 } });
    assert.equal(extra.status, 400, JSON.stringify(extra.body));
    assert.equal(extra.body.error, 'body: Unrecognized key: "foo"');
    assert.equal((await call(url, { method: 'POST', headers: asService(), body: {} })).status, 404);
    assert.equal(
      (await call(`${p.mp.backendUrl}/nft/collections/not-a-uuid/export/pin`, { method: 'POST', headers: p.owner })).status,
      400,
    );
  });
});

/** A port free right now (the backend's, known before it starts, for the pin's origin). */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

describe('IPFS Pinning Service API target', () => {
  let psa: PinningServiceFake;
  let p: Platform;
  let port: number;
  before(async () => {
    psa = await startPinningServiceFake({ pollsBeforePinned: 2 });
    port = await freePort();
    p = await platformWith({
      PORT: String(port),
      IPFS_PIN_TARGET: 'psa',
      IPFS_PSA_ENDPOINT: psa.endpoint,
      IPFS_PSA_TOKEN: psa.token,
      IPFS_PIN_GATEWAY_URL: psa.gateway,
      IPFS_PSA_ORIGINS: httpMultiaddr(`http://127.0.0.1:${port}`),
      IPFS_PSA_POLL_MS: '20',
    });
  });
  after(async () => {
    await p?.mp.close();
    await psa?.close();
  });

  test('the service is asked to pin the root, fetches it from our backend, and the copy read through its gateway shows pinned', {
    timeout: 600_000,
  }, async () => {
    const { id, tokenIds } = await soldOut(p, 'ServicePinned', 2);
    const done = await exportAndPin(p, id);
    assert.equal(done.pin_status, 'pinned', JSON.stringify(done));
    assert.match(done.pin_target, /^psa 127\.0\.0\.1:\d+$/);
    const [request, ...more] = [...psa.requests.values()];
    assert.equal(more.length, 0);
    assert.equal(request!.pin.cid, done.root_cid);
    assert.deepEqual(request!.pin.origins, [`/ip4/127.0.0.1/tcp/${port}/http`]);
    assert.equal(request!.status, 'pinned');
    assert.ok(request!.polls >= 2, `polled ${request!.polls} times`);
    // Every API call carried the token; the gateway reads were of the root block and the sample paths.
    const api = psa.calls.filter((c) => c.line.includes('/pins'));
    assert.ok(api.length >= 3);
    assert.ok(api.every((c) => c.authorization === `Bearer ${psa.token}`));
    const reads = psa.calls.filter((c) => c.line.startsWith('GET /ipfs/')).map((c) => c.line);
    assert.ok(reads.includes(`GET /ipfs/${done.root_cid}`), reads.join(', '));
    assert.ok(reads.includes(`GET /ipfs/${done.root_cid}/metadata/${tokenIds[0]}`), reads.join(', '));
    assert.ok(reads.includes(`GET /ipfs/${done.root_cid}/contract.json`));
    // The token never reaches the export record.
    assert.ok(!JSON.stringify(done).includes(psa.token));
    // What the service fetched from us: the stored CAR of the root (a Trustless Gateway answer).
    const car = await fetch(`${p.mp.backendUrl}/ipfs/${done.root_cid}?format=car`);
    assert.equal(car.status, 200);
    assert.match(car.headers.get('content-type') ?? '', /^application\/vnd\.ipld\.car/);
    assert.deepEqual(Buffer.from(await car.arrayBuffer()), await bytesOf(done.car_url));
    assert.equal((await call(`${p.mp.backendUrl}/ipfs/${done.images_cid}?format=car`)).status, 404, 'a CAR of the root only');
    assert.equal((await call(`${p.mp.backendUrl}/ipfs/${done.root_cid}/index.html?format=car`)).status, 400);
  });

  test('a service whose gateway answers other bytes for the image is refused naming the path', { timeout: 600_000 }, async () => {
    const { id, tokenIds } = await soldOut(p, 'ServiceTampered', 2);
    psa.blocks.alterEverywhere(`images/${tokenIds[0]}.png`);
    try {
      const failed = await exportAndPin(p, id);
      assert.equal(failed.pin_status, 'failed');
      assert.match(failed.pin_error, new RegExp(`different bytes for images/${tokenIds[0]}\\.png`));
    } finally {
      psa.blocks.alterNothing();
    }
  });
});

describe('S3 bucket importing CARs (s3car)', () => {
  const BUCKET = 'ipfs-cars';
  let server: { run(): Promise<{ port: number }>; close(): Promise<void> };
  let dir: string;
  let gateway: CarBucketGatewayFake;
  let target: PinTarget;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-s3car-'));
    server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir, configureBuckets: [{ name: BUCKET }] });
    const { port } = await server.run();
    const env = {
      IPFS_PIN_TARGET: 's3car',
      IPFS_S3CAR_BUCKET: BUCKET,
      IPFS_S3CAR_ENDPOINT: `http://127.0.0.1:${port}`,
      IPFS_S3CAR_ACCESS_KEY_ID: 'S3RVER',
      IPFS_S3CAR_SECRET_ACCESS_KEY: 'S3RVER',
      IPFS_S3CAR_PREFIX: 'atelier/',
    };
    // The gateway reads the bucket with its own client, as the service does.
    const reader = new S3Storage({
      bucket: BUCKET,
      region: 'us-east-1',
      endpoint: env.IPFS_S3CAR_ENDPOINT,
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      publicUrl: 'http://unused.test',
    });
    gateway = await startCarBucketGatewayFake(reader.client, BUCKET);
    target = createPinTarget(loadConfig({ ...env, IPFS_PIN_GATEWAY_URL: gateway.url }), 'http://backend.test')!;
  });
  after(async () => {
    target?.close?.();
    await gateway?.close();
    await server?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('the CAR is put with `import: car`, and the check passes through the gateway only when it serves our bytes', async () => {
    const enc = (text: string) => Buffer.from(text);
    const built = await buildBundle(
      [
        { path: '1.png', bytes: enc('one') },
        { path: '2.png', bytes: enc('two') },
      ],
      () => [
        { path: 'metadata/1', bytes: enc('{"name":"#1"}') },
        { path: 'metadata/2', bytes: enc('{"name":"#2"}') },
        { path: 'index.html', bytes: enc('<!doctype html>') },
        { path: 'contract.json', bytes: enc('{}') },
      ],
    );
    assert.equal(target.kind, 's3car');
    await target.pin(built.car, built.root, { name: 'Bucket test' });
    assert.deepEqual([...gateway.imported], []);
    const bundle = await CarBundle.open(built.car);
    const checked = await checkPinned(target, bundle, built.root);
    assert.deepEqual(checked, ['', 'index.html', 'contract.json', 'metadata/1', 'images/1.png', 'metadata/2']);
    assert.deepEqual([...gateway.imported], [`atelier/${built.root}.car`]);
    gateway.blocks.alter(built.root, 'images/1.png');
    await assert.rejects(checkPinned(target, bundle, built.root), /different bytes for images\/1\.png/);
  });
});

describe('configuration', () => {
  const refused = (env: Record<string, string>, variable: string) =>
    assert.throws(
      () => loadConfig(env),
      (err: unknown) => err instanceof ConfigError && err.variable === variable,
      `${JSON.stringify(env)} names ${variable}`,
    );

  test('a pin target without its settings is refused naming the variable; none needs nothing', () => {
    refused({ IPFS_PIN_TARGET: 'kubo' }, 'IPFS_KUBO_RPC_URL');
    refused({ IPFS_PIN_TARGET: 'ipfs' }, 'IPFS_PIN_TARGET');
    refused(
      { IPFS_PIN_TARGET: 'psa', IPFS_PSA_ENDPOINT: 'https://psa.example/api', IPFS_PIN_GATEWAY_URL: 'https://gw.example' },
      'IPFS_PSA_TOKEN',
    );
    refused({ IPFS_PIN_TARGET: 'psa', IPFS_PSA_ENDPOINT: 'https://psa.example/api', IPFS_PSA_TOKEN: 'secret' }, 'IPFS_PIN_GATEWAY_URL');
    refused({ IPFS_PIN_TARGET: 's3car', IPFS_PIN_GATEWAY_URL: 'https://gw.example' }, 'IPFS_S3CAR_BUCKET');
    refused({ IPFS_PIN_TARGET: 'kubo', IPFS_KUBO_RPC_URL: 'not a url' }, 'IPFS_KUBO_RPC_URL');
    refused({ IPFS_PSA_ORIGINS: 'http://127.0.0.1:3000' }, 'IPFS_PSA_ORIGINS');
    assert.equal(loadConfig({}).IPFS_PIN_TARGET, 'none');
    assert.equal(httpMultiaddr('https://atelier.example'), '/dns/atelier.example/tcp/443/https');
    assert.equal(httpMultiaddr('http://[::1]:3000/x'), '/ip6/::1/tcp/3000/http');
  });

  test('`atelier backend` stops at start naming the missing variable, and never prints the token', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-pin-config-'));
    const { DATABASE_URL: _d, API_KEY: _k, ...base } = process.env;
    const run = spawnSync(process.execPath, [CLI, 'backend'], {
      env: {
        ...base,
        DEV_CHAIN: 'false',
        DATA_DIR: dataDir,
        IPFS_PIN_TARGET: 'psa',
        IPFS_PSA_ENDPOINT: 'https://psa.example/api',
        IPFS_PSA_TOKEN: 'psa-token-never-printed',
      },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, /configuration error: IPFS_PIN_GATEWAY_URL: required when IPFS_PIN_TARGET is psa/);
    assert.doesNotMatch(run.stdout + run.stderr, /psa-token-never-printed/);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
});

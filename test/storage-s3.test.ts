/**
 * The S3 storage against a local S3-compatible server (s3rver, started here on an ephemeral
 * port, path-style addressing, signatures checked by the SDK's requests only). Then the whole
 * upload → serve → thumbnail path with the backend on S3.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { GetObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
// @ts-expect-error s3rver ships no type declarations
import S3rver from 's3rver';
import sharp from 'sharp';
import { testConfig } from '../src/config.ts';
import { createStorage } from '../src/storage/index.ts';
import { S3Storage } from '../src/storage/s3.ts';
import { bearer, client, makeCollection, png, svc, userToken } from './helpers/content.ts';
import { startTestPlatform, type TestPlatform } from './helpers/platform.ts';

const BUCKET = 'atelier-test';
let server: { run(): Promise<{ port: number }>; close(): Promise<void> };
let dir: string;
let endpoint: string;

const s3Env = (extra: Record<string, string> = {}) => ({
  STORAGE_DRIVER: 's3',
  S3_ENDPOINT: endpoint,
  S3_BUCKET: BUCKET,
  S3_REGION: 'us-east-1',
  S3_ACCESS_KEY_ID: 'S3RVER',
  S3_SECRET_ACCESS_KEY: 'S3RVER',
  ...extra,
});

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-s3rver-'));
  server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir, configureBuckets: [{ name: BUCKET }] });
  const { port } = await server.run();
  endpoint = `http://127.0.0.1:${port}`;
});
after(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('S3Storage', () => {
  let storage: S3Storage;
  before(() => {
    storage = createStorage(testConfig(s3Env()), 'http://backend.test') as S3Storage;
  });
  after(() => storage.destroy());

  test('createStorage picks S3 from the environment', () => {
    assert.equal(storage.kind, 's3');
    assert.ok(storage instanceof S3Storage);
  });

  test('put, get (bytes and content type), overwrite, delete; missing keys are null', async () => {
    const bytes = await png();
    const put = await storage.put('user-uploads/user-id/u1/a.png', bytes, 'image/png');
    assert.deepEqual(put, { key: 'user-uploads/user-id/u1/a.png', url: 'http://backend.test/files/user-uploads/user-id/u1/a.png' });
    const got = await storage.get('user-uploads/user-id/u1/a.png');
    assert.ok(got);
    assert.deepEqual(got.bytes, bytes);
    assert.equal(got.contentType, 'image/png');
    // The object really is in the bucket, with its content type.
    const head = await storage.client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'user-uploads/user-id/u1/a.png' }));
    assert.equal(head.ContentType, 'image/png');
    assert.equal(head.ContentLength, bytes.length);
    await storage.put('user-uploads/user-id/u1/a.png', Buffer.from('GIF89a...'), 'image/gif');
    assert.equal((await storage.get('user-uploads/user-id/u1/a.png'))?.contentType, 'image/gif');
    await storage.delete('user-uploads/user-id/u1/a.png');
    assert.equal(await storage.get('user-uploads/user-id/u1/a.png'), null);
    assert.equal(await storage.get('never/was.png'), null);
    await storage.delete('never/was.png'); // no error
  });

  test('keys that could escape are refused before any request', async () => {
    for (const key of ['../x', 'a/../b', '/abs', 'a//b', '']) {
      await assert.rejects(storage.put(key, Buffer.from('x'), 'text/plain'), /invalid storage key/, key);
      await assert.rejects(storage.get(key), /invalid storage key/, key);
    }
  });

  test('public URLs: S3_PUBLIC_URL when set, else the backend files route; both recognised as ours', () => {
    const cdn = createStorage(testConfig(s3Env({ S3_PUBLIC_URL: 'https://cdn.example/media' })), 'http://backend.test') as S3Storage;
    try {
      assert.equal(cdn.publicUrl('a/b.png'), 'https://cdn.example/media/a/b.png');
      assert.equal(cdn.keyFromUrl('https://cdn.example/media/a/b.png'), 'a/b.png');
      assert.equal(cdn.keyFromUrl('http://backend.test/files/a/b.png'), 'a/b.png');
      assert.equal(cdn.keyFromUrl('a/b.png'), 'a/b.png');
      assert.equal(cdn.keyFromUrl('https://elsewhere.example/a/b.png'), null);
    } finally {
      cdn.destroy();
    }
    assert.equal(storage.publicUrl('a/b.png'), 'http://backend.test/files/a/b.png');
  });
});

describe('backend on S3', () => {
  let p: TestPlatform;
  let storage: S3Storage;
  let backendUrl = '';
  before(async () => {
    storage = new S3Storage({
      bucket: BUCKET,
      region: 'us-east-1',
      endpoint,
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      // The backend's port is known only after it listens.
      publicUrl: () => `${backendUrl}/files`,
    });
    p = await startTestPlatform({}, { storage });
    backendUrl = p.backendUrl;
  });
  after(async () => {
    await p.close();
    storage.destroy();
  });

  test('upload-base64 stores into the bucket; GET /files serves it; a completed image gets its thumbnail in S3', async () => {
    const api = client(p);
    const bytes = await png(800, 800, '#123456');
    const up = await api('/upload-base64', bearer(await userToken('s3-user')), {
      body: { base64Data: bytes.toString('base64'), create_flat_file: true },
    });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    const key = up.body.data.path as string;
    const obj = await storage.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    assert.equal(obj.ContentType, 'image/png');
    assert.deepEqual(Buffer.from(await obj.Body!.transformToByteArray()), bytes);
    const served = await fetch(`${backendUrl}/files/${key}`);
    assert.equal(served.status, 200);
    assert.equal(served.headers.get('content-type'), 'image/png');
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), bytes);

    const collectionId = await makeCollection(p);
    const o = (await api('/outputs', svc('s3-user'), { body: { collection_id: collectionId } })).body.data;
    const done = await api(`/outputs/${o.id}/complete`, svc('s3-user'), { method: 'PATCH', body: { url: key } });
    assert.equal(done.status, 200);
    assert.equal(done.body.data.thumbnail_url, `${backendUrl}/files/thumbnails/${o.id}.webp`);
    const thumb = await storage.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: `thumbnails/${o.id}.webp` }));
    assert.equal(thumb.ContentType, 'image/webp');
    const meta = await sharp(Buffer.from(await thumb.Body!.transformToByteArray())).metadata();
    assert.equal(meta.format, 'webp');
    assert.equal(meta.width, 512);
  });
});

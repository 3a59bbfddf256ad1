/** POST /upload-base64 (docs/api/content.md §4.6, §8), GET /files/*, admin POST /api/nft/upload-image. */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { createApiKey } from '../src/db/api-keys.ts';
import { flatFiles } from '../src/db/schema/index.ts';
import { MAX_UPLOAD_BYTES } from '../src/domain/uploads.ts';
import { LocalStorage } from '../src/storage/local.ts';
import { sniffType } from '../src/storage/mime.ts';
import { bearer, client, ebml, gif, jpeg, mp4, png, svc, userToken, webp } from './helpers/content.ts';
import { SignJWT } from 'jose';
import { JWT_SECRET, asService, startTestPlatform, type TestPlatform } from './helpers/platform.ts';

let p: TestPlatform;
let api: ReturnType<typeof client>;
let adminApi: ReturnType<typeof client>;
const UUID_RE = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

before(async () => {
  p = await startTestPlatform();
  api = client(p);
  adminApi = client(p, 'admin');
});
after(() => p.close());

const upload = (body: Record<string, unknown>, headers: Record<string, string> = svc('uploader')) =>
  api('/upload-base64', headers, { body });
const b64 = (b: Buffer) => b.toString('base64');
/** A file of exactly n bytes whose magic number says PNG. */
const pngOfSize = (n: number) => {
  const b = Buffer.alloc(n);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b);
  return b;
};

describe('accepted types', () => {
  const cases: Array<[string, () => Promise<Buffer> | Buffer, string]> = [
    ['image/png', () => png(), 'png'],
    ['image/jpeg', () => jpeg(), 'jpg'],
    ['image/webp', () => webp(), 'webp'],
    ['image/gif', () => gif(), 'gif'],
    ['video/mp4', () => mp4(), 'mp4'],
    ['video/webm', () => ebml('webm'), 'webm'],
  ];
  for (const [type, make, ext] of cases) {
    test(`${type}: stored, answered, served back with its content type`, async () => {
      const bytes = await make();
      const res = await upload({ base64Data: b64(bytes), mimeType: type });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const d = res.body.data;
      assert.match(d.url, new RegExp(`^user-uploads/user-id/uploader/${UUID_RE}\\.${ext}$`));
      assert.equal(d.path, d.url);
      assert.equal(d.size, bytes.length);
      assert.equal(d.mimeType, type);
      assert.equal('flatFileId' in d, false);
      assert.equal(d.public_url, `${p.backendUrl}/files/${d.path}`);
      const file = await fetch(d.public_url);
      assert.equal(file.status, 200);
      assert.equal(file.headers.get('content-type'), type);
      assert.equal(file.headers.get('x-content-type-options'), 'nosniff');
      assert.match(file.headers.get('cache-control') ?? '', /max-age=\d+/);
      assert.deepEqual(Buffer.from(await file.arrayBuffer()), bytes);
    });
  }

  test('mimeType defaults to image/png; a data URL is accepted', async () => {
    const bytes = await png();
    assert.equal((await upload({ base64Data: b64(bytes) })).body.data.mimeType, 'image/png');
    const j = await jpeg();
    const res = await upload({ base64Data: `data:image/jpeg;base64,${b64(j)}` });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.mimeType, 'image/jpeg');
    assert.equal(res.body.data.size, j.length);
  });
});

describe('limits', () => {
  test('exactly 10 MB of decoded bytes is accepted', async () => {
    const res = await upload({ base64Data: b64(pngOfSize(MAX_UPLOAD_BYTES)) });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.size, 10 * 1024 * 1024);
  });

  test('10 MB + 1 byte is refused with 413, and no flat file is recorded', async () => {
    const count = async () => (await p.database.db.select({ id: flatFiles.id }).from(flatFiles)).length;
    const before = await count();
    const res = await upload({ base64Data: b64(pngOfSize(MAX_UPLOAD_BYTES + 1)), create_flat_file: true });
    assert.equal(res.status, 413);
    assert.equal(res.body.data, null);
    assert.match(res.body.error, /10485761 bytes.*10485760/);
    assert.equal(await count(), before);
  });

  test('wrong magic bytes are refused whatever mimeType says', async () => {
    const text = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"></svg>');
    const cases: Array<[Buffer, string | undefined, RegExp]> = [
      [text, 'image/png', /body\.base64Data: the content is not one of/],
      [Buffer.from('GIF8'), 'image/gif', /not one of/], // truncated magic
      [ebml('matroska'), 'video/webm', /not one of/],
      [Buffer.concat([Buffer.from([0, 0, 0, 0x14]), Buffer.from('ftypqt  \0\0\0\0qt  ')]), 'video/mp4', /not one of/],
      [Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypheic\0\0\0\0mif1heic')]), 'video/mp4', /not one of/],
      [Buffer.from('MZ\x90\x00 windows exe'), undefined, /not one of/],
      [await jpeg(), 'image/png', /body\.mimeType: declared image\/png, but the content is image\/jpeg/],
      [await png(), 'video/mp4', /body\.mimeType: declared video\/mp4, but the content is image\/png/],
    ];
    for (const [bytes, mimeType, message] of cases) {
      const res = await upload({ base64Data: b64(bytes), ...(mimeType ? { mimeType } : {}) });
      assert.equal(res.status, 400, `${mimeType} ${bytes.subarray(0, 12).toString('hex')}`);
      assert.match(res.body.error, message);
    }
  });

  test('types outside the allowlist are refused by name too', async () => {
    for (const mimeType of ['image/svg+xml', 'text/html', 'application/pdf', 'image/jpg']) {
      const res = await upload({ base64Data: b64(await png()), mimeType });
      assert.equal(res.status, 400, mimeType);
      assert.match(res.body.error, /body\.mimeType/);
    }
    const dataUrl = await upload({ base64Data: `data:text/html;base64,${b64(await png())}` });
    assert.equal(dataUrl.status, 400);
  });

  test('400 on missing, empty or invalid base64 and on bad fields', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{}, /body\.base64Data/],
      [{ base64Data: '' }, /body\.base64Data/],
      [{ base64Data: '!!!not base64!!!' }, /body\.base64Data: not valid base64/],
      [{ base64Data: 'data:image/png,abc' }, /base64/],
      [{ base64Data: 'A' }, /body\.base64Data/],
      [{ base64Data: 'iVBO', create_flat_file: 'yes' }, /body\.create_flat_file/],
      [{ base64Data: 'iVBO', rel_type: 'Bad Type!' }, /body\.rel_type/],
      [{ base64Data: 'iVBO', miniapp_user_id: 'not-a-uuid' }, /body\.miniapp_user_id/],
      [{ base64Data: 'iVBO', fid: '12ab' }, /body\.fid/],
    ];
    for (const [body, message] of cases) {
      const res = await upload(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.match(res.body.error, message);
    }
  });
});

describe('paths and identity', () => {
  test('pathType follows the identifier used: miniapp_user_id, fid, user_id', async () => {
    const data = b64(await png());
    const miniapp = '3f1c2a9e-8a9b-4c2d-9e0f-1a2b3c4d5e6f';
    const a = await upload({ base64Data: data, miniapp_user_id: miniapp, fid: '99' });
    assert.match(a.body.data.path, new RegExp(`^user-uploads/miniapp-userid/${miniapp}/${UUID_RE}\\.png$`));
    const b = await upload({ base64Data: data, fid: '99' });
    assert.match(b.body.data.path, new RegExp(`^user-uploads/fid/99/${UUID_RE}\\.png$`));
    const c = await upload({ base64Data: data, fid: 12345 });
    assert.match(c.body.data.path, /^user-uploads\/fid\/12345\//);
    const d = await upload({ base64Data: data });
    assert.match(d.body.data.path, /^user-uploads\/user-id\/uploader\//);
  });

  test('authentication: Bearer JWT, user API key in X-Api-Key, service key with or without user_id; 401 otherwise', async () => {
    const data = b64(await png());
    const jwt = await upload({ base64Data: data }, bearer(await userToken('uploader-jwt')));
    assert.equal(jwt.status, 200);
    assert.match(jwt.body.data.path, new RegExp(`^user-uploads/user-id/${UUID_RE}/${UUID_RE}\\.png$`));
    const key = await createApiKey(p.database.db, 'key-owner', 'uploads');
    const viaKey = await upload({ base64Data: data }, { 'X-Api-Key': key.key });
    assert.equal(viaKey.status, 200);
    assert.match(viaKey.body.data.path, /^user-uploads\/user-id\/key-owner\//);
    const viaBearerKey = await upload({ base64Data: data }, bearer(key.key));
    assert.equal(viaBearerKey.status, 200);
    // The service key naming nobody uploads a platform file (no owner, its own path).
    const platformFile = await upload({ base64Data: data, create_flat_file: true }, asService());
    assert.equal(platformFile.status, 200, JSON.stringify(platformFile.body));
    assert.match(platformFile.body.data.path, new RegExp(`^user-uploads/platform/${UUID_RE}\\.png$`));
    const [flat] = await p.database.db.select().from(flatFiles).where(eq(flatFiles.id, platformFile.body.data.flatFileId));
    assert.equal(flat!.user_id, null);
    // With the service key, miniapp_user_id alone identifies the owner.
    assert.equal((await upload({ base64Data: data, fid: '5' }, asService())).status, 200);
    // A user uploads for themselves only: another miniapp user or fid is the service key's (upload.for_other).
    const forOther = await upload({ base64Data: data, fid: '5' }, bearer(await userToken('uploader-jwt')));
    assert.equal(forOther.status, 403);
    assert.match(forOther.body.error, /upload\.for_other/);
    const miniappOther = await upload(
      { base64Data: data, miniapp_user_id: '3f1c2a9e-8a9b-4c2d-9e0f-1a2b3c4d5e6f' },
      { 'X-Api-Key': key.key },
    );
    assert.equal(miniappOther.status, 403);
    // An account whose fid identity (provider_e) is 777 uploads under fid 777.
    const fidToken = await new SignJWT({ sub: '777', provider: 'provider_e' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(JWT_SECRET));
    const ownFid = await upload({ base64Data: data, fid: '777' }, bearer(fidToken));
    assert.equal(ownFid.status, 200, JSON.stringify(ownFid.body));
    assert.match(ownFid.body.data.path, /^user-uploads\/fid\/777\//);
    // A user_id header without a credential proves nothing.
    assert.equal((await upload({ base64Data: data }, { user_id: 'uploader' })).status, 401);
  });

  test('a client filename never becomes a path component; traversal attempts are refused', async () => {
    const data = b64(await png());
    for (const filename of ['../../etc/passwd', '..', 'a/b.png', 'a\\b.png', 'x\u0000.png']) {
      const res = await upload({ base64Data: data, filename });
      assert.equal(res.status, 400, filename);
      assert.match(res.body.error, /body\.filename/);
    }
    const named = await upload({ base64Data: data, filename: 'holiday photo.png' });
    assert.equal(named.status, 200);
    assert.ok(!named.body.data.path.includes('holiday'));
    assert.equal(named.body.data.filename, 'holiday photo.png');
    // A user id that is not a plain segment is hashed, never used as a path.
    const evil = await upload({ base64Data: data }, svc('../../../etc'));
    assert.equal(evil.status, 200);
    assert.match(evil.body.data.path, /^user-uploads\/user-id\/h_[0-9a-f]{32}\/[^/]+\.png$/);
    assert.ok(!evil.body.data.path.includes('..'));
  });

  test('GET /files refuses traversal and answers 404 for missing files', async () => {
    for (const p2 of [
      '/files/..%2f..%2fetc%2fpasswd',
      '/files/user-uploads/%2e%2e/%2e%2e/etc/passwd',
      '/files/%2fetc%2fpasswd',
      '/files/a//b.png',
    ]) {
      const res = await fetch(`${p.backendUrl}${p2}`);
      // 401: the URL normalized the dots away and left the public files route altogether.
      assert.ok([400, 401, 404].includes(res.status), `${p2}: ${res.status}`);
    }
    // Encoded slashes reach the route, whose key check refuses them.
    const encoded = await fetch(`${p.backendUrl}/files/..%2f..%2fetc%2fpasswd`);
    assert.equal(encoded.status, 400);
    assert.match(((await encoded.json()) as { error: string }).error, /path: dot segments/);
    // A raw request line with dot segments (fetch would normalize them away).
    const raw = await new Promise<number>((resolve, reject) => {
      const port = new URL(p.backendUrl).port;
      const req = http.request({ host: '127.0.0.1', port, path: '/files/../../../../etc/passwd', method: 'GET' }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    assert.ok([400, 401, 404].includes(raw), String(raw));
    const missing = await fetch(`${p.backendUrl}/files/user-uploads/user-id/nobody/none.png`);
    assert.equal(missing.status, 404);
  });

  test('LocalStorage refuses keys that escape its root', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-local-'));
    try {
      const s = new LocalStorage({ root, baseUrl: 'http://x.test/files' });
      for (const key of ['../x', 'a/../../x', '/etc/passwd', 'a\\..\\x', '', 'a//b', '.hidden']) {
        await assert.rejects(s.put(key, Buffer.from('x'), 'text/plain'), /invalid storage key/, key);
        await assert.rejects(s.get(key), /invalid storage key/, key);
      }
      await s.put('ok/file.png', Buffer.from('x'), 'image/png');
      assert.equal((await s.get('ok/file.png'))?.contentType, 'image/png');
      assert.equal(await s.get('ok/none.png'), null);
      assert.equal(s.keyFromUrl('http://x.test/files/ok/file.png'), 'ok/file.png');
      assert.equal(s.keyFromUrl('http://other.test/files/ok/file.png'), null);
      assert.equal(s.keyFromUrl('http://x.test/files/../secret'), null);
      await s.delete('ok/file.png');
      assert.equal(await s.get('ok/file.png'), null);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test('sniffType agrees with the generated fixtures', async () => {
    assert.equal(sniffType(await png()), 'image/png');
    assert.equal(sniffType(await gif()), 'image/gif');
    assert.equal(sniffType(Buffer.alloc(0)), null);
  });
});

describe('flat files', () => {
  test('create_flat_file records the file with owner, size, mime_type and rel_type', async () => {
    const bytes = await png();
    const res = await upload({ base64Data: b64(bytes), create_flat_file: true });
    assert.equal(res.status, 200);
    assert.equal(typeof res.body.data.flatFileId, 'number');
    const [row] = await p.database.db.select().from(flatFiles).where(eq(flatFiles.id, res.body.data.flatFileId));
    assert.equal(row!.url, res.body.data.path);
    assert.equal(row!.mime_type, 'image/png');
    assert.equal(row!.size, bytes.length);
    assert.equal(row!.user_id, 'uploader');
    assert.equal(row!.rel_type, 'upload');
    const ref = await upload({ base64Data: b64(bytes), create_flat_file: true, rel_type: 'nft_ref_image', fid: '314' });
    const [refRow] = await p.database.db.select().from(flatFiles).where(eq(flatFiles.id, ref.body.data.flatFileId));
    assert.equal(refRow!.rel_type, 'nft_ref_image');
    assert.equal(refRow!.user_id, '314');
  });
});

describe('admin POST /api/nft/upload-image', () => {
  const userId = '6b0e7a52-1d1c-4c1e-9b7e-0c6f5d7a8e90';

  test('forwards with create_flat_file true: url, path, flatFileId', async () => {
    const bytes = await png();
    const res = await adminApi('/api/nft/upload-image', asService(), {
      body: { base64Data: b64(bytes), mimeType: 'image/png', filename: 'ref.png', userId },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.success, true);
    assert.match(res.body.path, new RegExp(`^user-uploads/user-id/${userId}/${UUID_RE}\\.png$`));
    assert.equal(res.body.url, res.body.path);
    assert.equal(typeof res.body.flatFileId, 'number');
    const [row] = await p.database.db.select().from(flatFiles).where(eq(flatFiles.id, res.body.flatFileId));
    assert.equal(row!.user_id, userId);
    assert.equal(row!.rel_type, 'nft_ref_image');
    const served = await fetch(`${p.backendUrl}/files/${res.body.path}`);
    assert.equal(served.status, 200);
  });

  test('errors keep the success:false shape: 400 bad body or non-image, 401 without the service key; no user is a platform file', async () => {
    const bytes = await png();
    const missing = await adminApi('/api/nft/upload-image', asService(), { body: { userId } });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.success, false);
    assert.match(missing.body.error, /body\.base64Data/);
    const video = await adminApi('/api/nft/upload-image', asService(), { body: { base64Data: b64(mp4()), mimeType: 'video/mp4', userId } });
    assert.equal(video.status, 400);
    assert.match(video.body.error, /body\.mimeType/);
    const lying = await adminApi('/api/nft/upload-image', asService(), { body: { base64Data: b64(mp4()), mimeType: 'image/png', userId } });
    assert.equal(lying.status, 400);
    assert.equal(lying.body.success, false);
    const badUser = await adminApi('/api/nft/upload-image', asService(), { body: { base64Data: b64(bytes), userId: 'x' } });
    assert.equal(badUser.status, 400);
    assert.match(badUser.body.error, /body\.userId/);
    const noUser = await adminApi('/api/nft/upload-image', asService(), { body: { base64Data: b64(bytes) } });
    assert.equal(noUser.status, 200, JSON.stringify(noUser.body));
    assert.match(noUser.body.path, /^user-uploads\/platform\//);
    const big = await adminApi('/api/nft/upload-image', asService(), {
      body: { base64Data: b64(pngOfSize(MAX_UPLOAD_BYTES + 1)), userId },
    });
    assert.equal(big.status, 413);
    const noKey = await adminApi('/api/nft/upload-image', {}, { body: { base64Data: b64(bytes), userId } });
    assert.equal(noKey.status, 401);
  });
});

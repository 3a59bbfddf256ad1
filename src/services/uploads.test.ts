import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { NewFlatFile } from '../db/flat-files.ts';
import { AppError } from '../domain/errors.ts';
import type { Caller } from '../domain/policy.ts';
import { PayloadTooLarge } from '../domain/uploads.ts';
import { createUploadService } from './uploads.ts';

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(16)]);
const png64 = PNG.toString('base64');
const MINIAPP = '3f1c2a9e-8a9b-4c2d-9e0f-1a2b3c4d5e6f';
const alice: Caller = { kind: 'user', userId: 'alice' };
const operator: Caller = { kind: 'service', userId: null };

function fakes() {
  const stored = new Map<string, Buffer>();
  const flatFiles: NewFlatFile[] = [];
  const service = createUploadService({
    storage: {
      put: async (key, bytes) => {
        stored.set(key, bytes);
        return { key, url: `https://files.test/${key}` };
      },
      get: async (key) => (stored.has(key) ? { bytes: stored.get(key)!, contentType: 'image/png' } : null),
    },
    flatFiles: {
      create: async (f) => {
        flatFiles.push(f);
        return { id: flatFiles.length };
      },
    },
    fidOf: async (userId) => (userId === 'alice' ? '314' : null),
  });
  return { service, stored, flatFiles };
}

const input = (over: Record<string, unknown> = {}) => ({ base64Data: png64, createFlatFile: false, relType: 'upload', ...over });
const rejectsKind = (p: Promise<unknown>, kind: string, message?: RegExp) =>
  assert.rejects(p, (e: unknown) => e instanceof AppError && e.kind === kind && (!message || message.test(e.message)));

test("a user's upload goes under their own id; the flat file is theirs", async () => {
  const { service, stored, flatFiles } = fakes();
  const r = await service.upload(alice, input({ createFlatFile: true, relType: 'nft_ref_image', filename: 'cat.png' }));
  assert.match(r.path, /^user-uploads\/user-id\/alice\/[0-9a-f-]{36}\.png$/);
  assert.equal(r.url, r.path);
  assert.equal(r.public_url, `https://files.test/${r.path}`);
  assert.equal(r.size, PNG.length);
  assert.equal(r.filename, 'cat.png');
  assert.equal(r.flatFileId, 1);
  assert.deepEqual(flatFiles, [{ url: r.path, mime_type: 'image/png', size: PNG.length, user_id: 'alice', rel_type: 'nft_ref_image' }]);
  assert.deepEqual(stored.get(r.path), PNG);
});

test("for another miniapp user or fid only the operator uploads; a user's own fid or id is fine", async () => {
  const { service, stored } = fakes();
  await rejectsKind(service.upload(alice, input({ miniappUserId: MINIAPP })), 'forbidden', /upload\.for_other/);
  await rejectsKind(service.upload(alice, input({ fid: '99' })), 'forbidden');
  assert.equal(stored.size, 0, 'nothing is stored for a refused upload');
  assert.match((await service.upload(alice, input({ fid: '314' }))).path, /^user-uploads\/fid\/314\//);
  assert.match(
    (await service.upload({ kind: 'user', userId: MINIAPP }, input({ miniappUserId: MINIAPP }))).path,
    /^user-uploads\/miniapp-userid\//,
  );
  assert.match(
    (await service.upload(operator, input({ miniappUserId: MINIAPP, fid: '99' }))).path,
    new RegExp(`^user-uploads/miniapp-userid/${MINIAPP}/`),
  );
  assert.match((await service.upload(operator, input({ fid: '99' }))).path, /^user-uploads\/fid\/99\//);
});

test('the operator naming nobody uploads a platform file: its own path, no owner', async () => {
  const f = fakes();
  const r = await f.service.upload(operator, input({ createFlatFile: true }));
  assert.match(r.path, /^user-uploads\/platform\/[0-9a-f-]{36}\.png$/);
  assert.equal(f.flatFiles[0]!.user_id, null);
});

test('the type is what the bytes are: a declared type that disagrees, or bytes of no allowed type, are 400s', async () => {
  const { service } = fakes();
  await rejectsKind(
    service.upload(alice, input({ mimeType: 'image/jpeg' })),
    'invalid',
    /^body\.mimeType: declared image\/jpeg, but the content is image\/png/,
  );
  await rejectsKind(
    service.upload(alice, input({ base64Data: Buffer.from('plain text!').toString('base64') })),
    'invalid',
    /checked by its bytes/,
  );
  await rejectsKind(
    service.upload(alice, input({ base64Data: `data:text/plain;base64,${png64}` })),
    'invalid',
    /data URL type text\/plain/,
  );
  assert.equal((await service.upload(alice, input({ base64Data: `data:image/png;base64,${png64}` }))).mimeType, 'image/png');
});

test('over 10 MB is a 413 before decoding', async () => {
  const big = 'A'.repeat(Math.ceil(((10 * 1024 * 1024 + 1) * 4) / 3) + 4);
  await assert.rejects(fakes().service.upload(alice, input({ base64Data: big })), (e: unknown) => e instanceof PayloadTooLarge);
});

test('reading a file: 400 for a key that is not one, 404 when nothing is there', async () => {
  const { service } = fakes();
  const r = await service.upload(alice, input());
  assert.deepEqual((await service.read(r.path)).bytes, PNG);
  await rejectsKind(service.read('../etc/passwd'), 'invalid', /^path: /);
  await rejectsKind(service.read('user-uploads/none.png'), 'not_found');
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from './errors.ts';
import { assertUploadSize, decodeBase64, decodedLength, MAX_UPLOAD_BYTES, PayloadTooLarge, pathSegment } from './uploads.ts';

const invalidField = (fn: () => unknown, message: RegExp) =>
  assert.throws(fn, (e: unknown) => e instanceof AppError && e.kind === 'invalid' && message.test(e.message));

test('base64: bare, URL-safe, with line breaks, or a data URL with its declared type', () => {
  const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x10, 0x20]);
  assert.deepEqual(decodeBase64(bytes.toString('base64')).bytes, bytes);
  assert.deepEqual(decodeBase64(bytes.toString('base64url')).bytes, bytes);
  assert.deepEqual(decodeBase64(`${bytes.toString('base64').slice(0, 4)}\n${bytes.toString('base64').slice(4)}`).bytes, bytes);
  const url = decodeBase64(`data:Image/PNG;base64,${bytes.toString('base64')}`);
  assert.deepEqual(url.bytes, bytes);
  assert.equal(url.declaredType, 'image/png');
});

test('base64 mistakes are 400s naming body.base64Data', () => {
  invalidField(() => decodeBase64('data:image/png,abcd'), /^body\.base64Data: a data URL must be ;base64/);
  invalidField(() => decodeBase64('   '), /^body\.base64Data: empty/);
  invalidField(() => decodeBase64('ab$d'), /^body\.base64Data: not valid base64/);
  invalidField(() => decodeBase64('abcde'), /^body\.base64Data: not valid base64/);
});

test('the decoded size is known before decoding', () => {
  for (const n of [0, 1, 2, 3, 4, 1000, 1001]) {
    const b = Buffer.alloc(n, 7);
    assert.equal(decodedLength(b.toString('base64')), n);
    assert.equal(decodedLength(`data:image/png;base64,${b.toString('base64')}`), n);
  }
});

test('10 MB of decoded bytes is the limit; above it a 413', () => {
  assert.equal(MAX_UPLOAD_BYTES, 10_485_760);
  assertUploadSize(MAX_UPLOAD_BYTES);
  assert.throws(
    () => assertUploadSize(MAX_UPLOAD_BYTES + 1),
    (e: unknown) => e instanceof PayloadTooLarge && e.statusCode === 413,
  );
});

test('an owner id is a path segment only when plain; otherwise a stable hash', () => {
  assert.equal(pathSegment('user-42'), 'user-42');
  assert.equal(pathSegment('3f1c2a9e-8a9b-4c2d-9e0f-1a2b3c4d5e6f'), '3f1c2a9e-8a9b-4c2d-9e0f-1a2b3c4d5e6f');
  for (const id of ['../etc', 'a/b', '.hidden', 'x'.repeat(200), 'sp ace']) {
    const s = pathSegment(id);
    assert.match(s, /^h_[0-9a-f]{32}$/);
    assert.equal(pathSegment(id), s);
  }
  assert.notEqual(pathSegment('a/b'), pathSegment('a/c'));
});

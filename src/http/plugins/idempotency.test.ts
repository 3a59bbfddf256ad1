import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../domain/errors.ts';
import { idempotencyScope, parseIdempotencyKey, requestHash } from './idempotency.ts';

test('the key is 1 to 200 visible ASCII characters; absent is undefined', () => {
  assert.equal(parseIdempotencyKey(undefined), undefined);
  assert.equal(parseIdempotencyKey('order-42'), 'order-42');
  assert.equal(parseIdempotencyKey(['first', 'second']), 'first');
  for (const bad of ['', 'has space', 'é', 'x'.repeat(201)]) {
    assert.throws(
      () => parseIdempotencyKey(bad),
      (err) => err instanceof AppError && err.kind === 'invalid' && /header\.idempotency-key/.test(err.message),
    );
  }
});

test('the scope separates routes, auth methods and users', () => {
  assert.equal(idempotencyScope('mint', { method: 'service_key', userId: null }), 'mint:service_key:-');
  assert.notEqual(
    idempotencyScope('mint', { method: 'api_key', userId: 'a' }),
    idempotencyScope('mint', { method: 'api_key', userId: 'b' }),
  );
  assert.notEqual(idempotencyScope('mint', { method: 'jwt', userId: 'a' }), idempotencyScope('token-mint', { method: 'jwt', userId: 'a' }));
});

test('the request hash binds path parameters and body', () => {
  const a = requestHash({ params: { collectionId: 'c1' }, body: { recipient: '0x1' } });
  assert.equal(a, requestHash({ params: { collectionId: 'c1' }, body: { recipient: '0x1' } }));
  assert.notEqual(a, requestHash({ params: { collectionId: 'c2' }, body: { recipient: '0x1' } }));
  assert.notEqual(a, requestHash({ params: { collectionId: 'c1' }, body: { recipient: '0x2' } }));
  assert.match(requestHash({ params: undefined, body: undefined }), /^[0-9a-f]{64}$/);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { AppError } from './errors.ts';

const rejectsAsCursor = (cursor: string, keys: Record<string, 'string' | 'number'>) =>
  assert.throws(
    () => decodeCursor(cursor, keys),
    (e: unknown) => e instanceof AppError && e.kind === 'invalid' && e.message.startsWith('query.after: '),
  );

test('a cursor round-trips its position and is opaque base64url', () => {
  const c = encodeCursor({ r: 12, id: '9f0c…/+' });
  assert.match(c, /^[A-Za-z0-9_-]+$/);
  assert.deepEqual(decodeCursor(c, { r: 'number', id: 'string' }), { r: 12, id: '9f0c…/+' });
});

test('microsecond timestamps survive as text', () => {
  const t = '2030-01-01 10:00:00.123456+00';
  assert.equal(decodeCursor(encodeCursor({ t, id: 'x' }), { t: 'string', id: 'string' }).t, t);
});

test('only the expected keys are returned', () => {
  assert.deepEqual(decodeCursor(encodeCursor({ r: 1, id: 'a', extra: 'x' }), { r: 'number', id: 'string' }), { r: 1, id: 'a' });
});

test('anything that is not a cursor of the expected shape is a 400 naming query.after', () => {
  rejectsAsCursor('%%%not-base64', { r: 'number' });
  rejectsAsCursor(Buffer.from('not json').toString('base64url'), { r: 'number' });
  rejectsAsCursor(Buffer.from('null').toString('base64url'), { r: 'number' });
  rejectsAsCursor(encodeCursor({ r: 'twelve', id: 'a' }), { r: 'number', id: 'string' });
  rejectsAsCursor(encodeCursor({ id: 'a' }), { r: 'number', id: 'string' });
  rejectsAsCursor(Buffer.from(JSON.stringify({ r: null })).toString('base64url'), { r: 'number' });
});

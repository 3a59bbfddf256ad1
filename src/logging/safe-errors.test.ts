import assert from 'node:assert/strict';
import { test } from 'node:test';
import { safeErrorSerializer, withoutParams } from './safe-errors.ts';

test('a failed query keeps its statement and loses its parameters', () => {
  const cause = Object.assign(new Error('duplicate key value violates unique constraint "users_email_unique"'), {
    code: '23505',
    constraint: 'users_email_unique',
    detail: 'Key (email)=(alice@example.com) already exists.',
  });
  const err = new Error('Failed query: insert into users (email) values ($1)\nparams: alice@example.com', { cause });
  const out = safeErrorSerializer(err) as Record<string, any>;
  const text = JSON.stringify(out);
  assert.doesNotMatch(text, /alice@example\.com/);
  assert.match(out.message, /^Failed query: insert into users/);
  assert.equal(out.cause.code, '23505');
  assert.equal(out.cause.constraint, 'users_email_unique');
});

test('messages without parameters pass unchanged; non-errors pass through', () => {
  assert.equal(withoutParams('connection refused'), 'connection refused');
  assert.deepEqual(safeErrorSerializer({ a: 1 } as unknown as Error), { a: 1 });
});

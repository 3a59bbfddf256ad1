import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BackendClient } from './backend-client.ts';
import { createCallerLookup } from './caller-lookup.ts';

/** A fake backend answering POST /api/auth/introspect from a table of valid credentials. */
function fakeBackend(valid: Map<string, string>) {
  const asked: string[] = [];
  const backend: BackendClient = {
    async call<T>(method: string, path: string, opts: { body?: unknown } = {}) {
      assert.equal(`${method} ${path}`, 'POST api/auth/introspect');
      const credential = (opts.body as { credential: string }).credential;
      asked.push(credential);
      const userId = valid.get(credential);
      return (userId ? { active: true, user_id: userId, kind: 'jwt' } : { active: false, reason: 'token expired' }) as T;
    },
    open: () => Promise.reject(new Error('not used')),
  };
  return { backend, asked };
}

test('answers are kept for the window, then asked again: a revoked credential stops within it', async () => {
  const valid = new Map([['tok-a', 'user-a']]);
  const { backend, asked } = fakeBackend(valid);
  let now = 1_000;
  const lookup = createCallerLookup(backend, { ttlMs: 5_000, now: () => now });
  assert.deepEqual(await lookup.whoIs('tok-a'), { userId: 'user-a' });
  assert.deepEqual(await lookup.whoIs('tok-a'), { userId: 'user-a' });
  assert.equal(asked.length, 1);
  valid.delete('tok-a'); // revoked at the backend
  now += 4_999;
  assert.deepEqual(await lookup.whoIs('tok-a'), { userId: 'user-a' });
  now += 2;
  assert.deepEqual(await lookup.whoIs('tok-a'), { refused: 'token expired' });
  assert.equal(asked.length, 2);
});

test('refusals are not kept; forget drops an answer at once', async () => {
  const valid = new Map<string, string>();
  const { backend, asked } = fakeBackend(valid);
  const lookup = createCallerLookup(backend, { ttlMs: 5_000 });
  assert.deepEqual(await lookup.whoIs('tok-b'), { refused: 'token expired' });
  valid.set('tok-b', 'user-b');
  assert.deepEqual(await lookup.whoIs('tok-b'), { userId: 'user-b' });
  valid.delete('tok-b');
  lookup.forget('tok-b');
  assert.deepEqual(await lookup.whoIs('tok-b'), { refused: 'token expired' });
  assert.equal(asked.length, 3);
});

test('fresh asks the backend even within the window, and a refusal drops the kept answer', async () => {
  const valid = new Map([['tok-c', 'user-c']]);
  const { backend, asked } = fakeBackend(valid);
  const lookup = createCallerLookup(backend, { ttlMs: 5_000, now: () => 1_000 });
  assert.deepEqual(await lookup.whoIs('tok-c'), { userId: 'user-c' });
  valid.delete('tok-c'); // revoked at the backend, within the window
  assert.deepEqual(await lookup.whoIs('tok-c', { fresh: true }), { refused: 'token expired' });
  assert.deepEqual(await lookup.whoIs('tok-c'), { refused: 'token expired' });
  assert.equal(asked.length, 3);
});

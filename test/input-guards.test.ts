/**
 * Input every route refuses before a handler runs (NUL characters, unpaired surrogates, JSON
 * deeper than 64 levels, prototype keys) with a 400 naming the field; an empty body with a JSON
 * content type on a bodiless route is accepted; failed authentication is rate limited (429 with
 * Retry-After) per address and per credential.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { asService, call, sampleData, startTestPlatform, type TestPlatform } from './helpers/platform.ts';

let p: TestPlatform;
before(async () => {
  p = await startTestPlatform({ AUTH_FAILURE_LIMIT: '5', RATE_LIMIT_WINDOW_MS: '1500' });
});
after(() => p.close());

const create = (body: unknown) => call(`${p.backendUrl}/nft/collections`, { headers: asService({ user_id: 'u1' }), body });

test('a NUL character or an unpaired surrogate anywhere in the body is a 400 naming the field', async () => {
  const nul = await create({ title: 'a\u0000b', data: sampleData() });
  assert.equal(nul.status, 400);
  assert.match(nul.body.error, /^body\.title: contains a NUL character/);
  const lone = await call(`${p.backendUrl}/nft/collections`, {
    headers: asService({ user_id: 'u1' }),
    raw: '{"title":"ok","data":{"version":"v2","steps":[],"variables":[{"name":"x\\ud800"}]}}',
  });
  assert.equal(lone.status, 400);
  assert.match(lone.body.error, /^body\.data\.variables\.0\.name: contains an unpaired UTF-16 surrogate/);
  // A valid pair (an emoji) is text like any other.
  const emoji = await create({ title: 'cats 🐈', data: sampleData() });
  assert.equal(emoji.status, 201, JSON.stringify(emoji.body));
});

test('JSON nested deeper than 64 levels is a 400, at any size', async () => {
  const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
  const res = await call(`${p.backendUrl}/nft/collections`, { headers: asService({ user_id: 'u1' }), raw: `{"title":"t","data":${deep}}` });
  assert.equal(res.status, 400);
  assert.match(res.body.error, /nested deeper than 64 levels/);
});

test('a __proto__ key is refused', async () => {
  const res = await call(`${p.backendUrl}/nft/collections`, {
    headers: asService({ user_id: 'u1' }),
    raw: '{"title":"t","data":{"__proto__":{"polluted":true}}}',
  });
  assert.equal(res.status, 400);
  assert.match(res.body.error, /__proto__/);
});

test('a NUL in a path id or a query value is a 400 naming it', async () => {
  const path = await call(`${p.backendUrl}/nft/collections/abc%00def`, { headers: asService() });
  assert.equal(path.status, 400);
  assert.match(path.body.error, /^path\.collectionId: contains a NUL character/);
  const query = await call(`${p.adminUrl}/api/nft/collections/lookup?collectionId=%00`, { headers: asService() });
  assert.equal(query.status, 400);
  assert.match(query.body.error, /^query\.collectionId: contains a NUL character/);
});

test('an empty body with content-type application/json is read as no body', async () => {
  const made = await create({ title: 'reset me', data: sampleData() });
  const id = made.body.data.collection.id;
  const res = await fetch(`${p.backendUrl}/nft/collections/${id}/reset`, {
    method: 'POST',
    headers: { ...asService({ user_id: 'u1' }), 'content-type': 'application/json' },
  });
  assert.equal(res.status, 200, await res.clone().text());
  // A route that needs a body still says which field is missing.
  const missing = await fetch(`${p.backendUrl}/nft/collections`, {
    method: 'POST',
    headers: { ...asService(), 'content-type': 'application/json' },
  });
  assert.equal(missing.status, 400);
  assert.match(((await missing.json()) as { error: string }).error, /^body/);
});

test('failed authentication: 401 until the limit, then 429 with Retry-After for every credential from that address', async () => {
  const bad = (n: number) => call(`${p.backendUrl}/decks`, { headers: { 'x-api-key': `bad-key-${n}` } });
  for (let i = 0; i < 5; i++) assert.equal((await bad(i)).status, 401);
  const limited = await bad(99);
  assert.equal(limited.status, 429);
  assert.match(limited.body.error, /too many failed authentication attempts/);
  const retryAfter = Number(limited.headers.get('retry-after'));
  assert.ok(retryAfter >= 1 && retryAfter <= 2, `retry-after ${retryAfter}`);
  // The valid key from the same address waits too: the limit must not tell valid keys apart.
  assert.equal((await call(`${p.backendUrl}/nft/collections/00000000-0000-4000-8000-000000000000`, { headers: asService() })).status, 429);
  // Public routes are not authentication attempts.
  assert.notEqual((await call(`${p.backendUrl}/healthz`)).status, 429);
  await new Promise((r) => setTimeout(r, retryAfter * 1000 + 200));
  assert.equal((await call(`${p.backendUrl}/nft/collections/00000000-0000-4000-8000-000000000000`, { headers: asService() })).status, 404);
});

/**
 * Profile pictures and display names (docs/api/content.md §2.8; docs/api/nft.md §2.3 rule 2;
 * docs/auth.md "Profile"): taken from the identity provider's `name` and `picture` claims at
 * resolution (filling blanks only), changed by the user with PATCH /api/me, and shown as the
 * creator's `username` and `pfp` in the feed.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SignJWT } from 'jose';
import { decks, outputs } from '../src/db/schema/index.ts';
import { JWT_SECRET, call, sampleData, startTestPlatform, type TestPlatform } from './helpers/platform.ts';

let p: TestPlatform;
before(async () => {
  p = await startTestPlatform();
});
after(() => p.close());

const token = (claims: Record<string, unknown>) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('5m').sign(new TextEncoder().encode(JWT_SECRET));
const as = async (claims: Record<string, unknown>) => ({ authorization: `Bearer ${await token(claims)}` });

test('name and picture claims fill the profile; PATCH /api/me changes it and later claims do not overwrite it; the feed shows the creator', async () => {
  const first = await as({ sub: 'ada-1', name: 'Ada\u0000 Lovelace', picture: 'https://pfp.test/ada.png' });
  const me = await call(`${p.backendUrl}/api/me`, { headers: first });
  assert.equal(me.status, 200, JSON.stringify(me.body));
  assert.equal(me.body.data.display_name, 'Ada Lovelace', 'control characters are dropped');
  assert.equal(me.body.data.avatar_url, 'https://pfp.test/ada.png');

  // A picture that is not an http(s) URL is not taken.
  const other = await call(`${p.backendUrl}/api/me`, { headers: await as({ sub: 'bob-1', name: 'Bob', picture: 'javascript:alert(1)' }) });
  assert.equal(other.body.data.display_name, 'Bob');
  assert.equal(other.body.data.avatar_url, null);

  const patched = await call(`${p.backendUrl}/api/me`, {
    method: 'PATCH',
    headers: first,
    body: { display_name: 'Countess', avatar_url: 'https://pfp.test/countess.png' },
  });
  assert.equal(patched.status, 200, JSON.stringify(patched.body));
  assert.equal(patched.body.data.display_name, 'Countess');
  const later = await call(`${p.backendUrl}/api/me`, {
    headers: await as({ sub: 'ada-1', name: 'Someone Else', picture: 'https://pfp.test/other.png' }),
  });
  assert.equal(later.body.data.display_name, 'Countess', 'what the user set is kept');
  assert.equal(later.body.data.avatar_url, 'https://pfp.test/countess.png');

  for (const [body, field] of [
    [{ avatar_url: 'javascript:alert(1)' }, 'avatar_url'],
    [{ avatar_url: 'ftp://x.test/a.png' }, 'avatar_url'],
    [{ display_name: '' }, 'display_name'],
    [{ is_blocked: false }, 'is_blocked'],
  ] as const) {
    const bad = await call(`${p.backendUrl}/api/me`, { method: 'PATCH', headers: first, body });
    assert.equal(bad.status, 400, JSON.stringify(body));
    assert.match(bad.body.error, new RegExp(field));
  }
  assert.equal((await call(`${p.backendUrl}/api/me`, { method: 'PATCH', headers: first, body: {} })).status, 400);
  assert.equal((await call(`${p.backendUrl}/api/me`, { method: 'PATCH', body: { display_name: 'x' } })).status, 401);

  // The feed's creator: the collection owner's display name and picture.
  const created = await call(`${p.backendUrl}/nft/collections`, { headers: first, body: { title: 'By Ada', data: sampleData() } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const collectionId = created.body.data.collection.id as string;
  const [d] = await p.database.db
    .insert(decks)
    .values({ collection_id: collectionId, name: 'first', output_count: 1, user_id: me.body.data.id })
    .returning();
  await p.database.db.insert(outputs).values({
    collection_id: collectionId,
    deck_id: d!.id,
    status: 'completed',
    url: 'https://cdn.test/a.png',
    mime_type: 'image/png',
    completed_at: new Date(),
  });
  const feed = await call(`${p.backendUrl}/miniapp/decks/${d!.id}/outputs`);
  assert.equal(feed.status, 200, JSON.stringify(feed.body));
  const creator = feed.body.data.creator ?? feed.body.data.outputs[0].creator;
  assert.equal(creator.username, 'Countess');
  assert.equal(creator.pfp, 'https://pfp.test/countess.png');
});

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { asService, call, sampleData, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { decks, outputs } from '../../src/db/schema/index.ts';

describe('public metadata', () => {
  let p: TestPlatform;
  let collectionId: string;
  let deckId: string;
  let outputId: string;

  before(async () => {
    p = await startTestPlatform();
    const c = await call(`${p.backendUrl}/nft/collections`, {
      body: { title: 'Night Foxes', description: 'Foxes at night', editions: 10, data: sampleData() },
      headers: asService(),
    });
    assert.equal(c.status, 201, JSON.stringify(c.body));
    collectionId = c.body.data.collection.id;
    const db = p.database.db;
    const [d] = await db
      .insert(decks)
      .values({
        collection_id: collectionId,
        name: 'Night Foxes #1',
        token_id: 1,
        mint_status: 'minted',
        mint_recipient: '0x' + '11'.repeat(20),
      })
      .returning();
    deckId = d!.id;
    const [o] = await db
      .insert(outputs)
      .values({
        collection_id: collectionId,
        deck_id: deckId,
        status: 'pending',
        input_metadata: { traits: [{ trait_type: 'Color', value: 'Blue' }] },
      })
      .returning();
    outputId = o!.id;
    await db.update(decks).set({ cover_output_id: outputId }).where(eq(decks.id, deckId));
  });
  after(() => p.close());

  test('token document while pending: traits, no image yet, short cache, no auth', async () => {
    for (const path of [
      `/nft/metadata/${collectionId}/1`,
      `/collections/${collectionId}/tokens/1`,
      `/nft/collections/${collectionId}/metadata/1`,
    ]) {
      const r = await call(`${p.backendUrl}${path}`);
      assert.equal(r.status, 200, path);
      assert.match(r.headers.get('content-type')!, /^application\/json/);
      assert.deepEqual(r.body, {
        name: 'Night Foxes #1',
        description: 'Foxes at night',
        image: '',
        external_url: `http://meta.test/collections/${collectionId}/tokens/1`,
        attributes: [{ trait_type: 'Color', value: 'Blue' }],
      });
      assert.match(r.headers.get('cache-control')!, /max-age=10/);
      assert.ok(r.headers.get('etag'));
    }
  });

  test('completed artwork: image, long-lived cache, ETag revalidation gives 304', async () => {
    await p.database.db
      .update(outputs)
      .set({ status: 'completed', url: 'http://files.test/a.png', token_metadata: { attributes: [{ trait_type: 'Color', value: 'Red' }] } })
      .where(eq(outputs.id, outputId));
    const r = await call(`${p.backendUrl}/nft/metadata/${collectionId}/1`);
    assert.equal(r.status, 200);
    assert.equal(r.body.image, 'http://files.test/a.png');
    assert.deepEqual(r.body.attributes, [{ trait_type: 'Color', value: 'Red' }]);
    assert.equal(r.headers.get('cache-control'), 'public, max-age=300, stale-while-revalidate=3600');
    const etag = r.headers.get('etag')!;
    const again = await fetch(`${p.backendUrl}/collections/${collectionId}/tokens/1`, { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
    assert.equal(again.headers.get('etag'), etag);
  });

  test('collection document (ERC-7572) at both paths', async () => {
    // external_link is the collection's public mint page (the page the console shares), not this document.
    const overview = await call(`${p.backendUrl}/nft/collections/${collectionId}/overview`, { headers: asService() });
    const page = overview.body.data.share.page_url as string;
    assert.match(page, new RegExp(`^https?://[^/]+/mint/${collectionId}$`));
    // The page exists for every collection, this undeployed one too.
    const html = await fetch(`${p.backendUrl}${new URL(page).pathname}`);
    assert.equal(html.status, 200);
    assert.match(html.headers.get('content-type')!, /^text\/html/);
    for (const path of [`/nft/metadata/${collectionId}/collection.json`, `/collections/${collectionId}/metadata.json`]) {
      const r = await call(`${p.backendUrl}${path}`);
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-type')!, /^application\/json/);
      assert.deepEqual(r.body, {
        name: 'Night Foxes',
        description: 'Foxes at night',
        image: '',
        external_link: page,
      });
      assert.ok(r.headers.get('etag'));
    }
  });

  test('absent documents are 404 JSON; malformed ids are 400', async () => {
    const none = await call(`${p.backendUrl}/nft/metadata/${collectionId}/2`);
    assert.equal(none.status, 404);
    assert.match(none.headers.get('content-type')!, /^application\/json/);
    assert.match(none.body.error, /token 2/);
    const noCollection = await call(`${p.backendUrl}/nft/metadata/00000000-0000-4000-8000-000000000000/collection.json`);
    assert.equal(noCollection.status, 404);
    const noCollectionToken = await call(`${p.backendUrl}/collections/00000000-0000-4000-8000-000000000000/tokens/1`);
    assert.equal(noCollectionToken.status, 404);
    assert.match(noCollectionToken.body.error, /collection/);
    const bad = await call(`${p.backendUrl}/nft/metadata/${collectionId}/abc`);
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /tokenId/);
    const badUuid = await call(`${p.backendUrl}/nft/metadata/nope/1`);
    assert.equal(badUuid.status, 400);
  });
});

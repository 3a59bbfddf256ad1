import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../domain/errors.ts';
import { CACHE_FINAL, CACHE_PENDING } from '../domain/metadata.ts';
import { createMetadataDocuments, MetadataCache, type MetadataStore } from './metadata-documents.ts';

const collection = { id: 'c1', title: 'Cats', description: 'many cats', cover_image_url: null };

function world() {
  let output: { id: string; status: string; url: string | null; token_metadata: unknown; input_metadata: unknown } | null = {
    id: 'o1',
    status: 'processing',
    url: null,
    token_metadata: { attributes: [{ trait_type: 'Color', value: 'Red' }] },
    input_metadata: null,
  };
  let reads = 0;
  const store: MetadataStore = {
    async tokenForMetadata(cid, tokenId) {
      reads++;
      return cid === 'c1' && tokenId === 1 ? { collection, output } : undefined;
    },
    collectionHeader: async (cid) => (cid === 'c1' ? collection : undefined),
  };
  return {
    docs: createMetadataDocuments(store, 'http://meta', new MetadataCache()),
    complete: () => {
      output = { ...output!, status: 'completed', url: 'http://files/1.png' };
    },
    reads: () => reads,
  };
}

test('a pending token is read fresh every time; a final one is served from the cache', async () => {
  const w = world();
  const pending = await w.docs.token('c1', 1);
  assert.equal(pending.cacheControl, CACHE_PENDING);
  assert.deepEqual(JSON.parse(pending.body), {
    name: 'Cats #1',
    description: 'many cats',
    image: '',
    external_url: 'http://meta/collections/c1/tokens/1',
    attributes: [{ trait_type: 'Color', value: 'Red' }],
  });
  w.complete();
  const final = await w.docs.token('c1', 1);
  assert.equal(final.cacheControl, CACHE_FINAL);
  assert.equal(JSON.parse(final.body).image, 'http://files/1.png');
  assert.notEqual(final.etag, pending.etag);
  await w.docs.token('c1', 1);
  assert.equal(w.reads(), 2, 'the final document came from the cache');
  w.docs.cache.invalidate('c1', 1);
  await w.docs.token('c1', 1);
  assert.equal(w.reads(), 3);
});

test('unknown collection and unknown token are distinct 404s; the collection document', async () => {
  const w = world();
  await assert.rejects(w.docs.token('zz', 1), (e) => e instanceof AppError && e.kind === 'not_found' && /collection zz/.test(e.message));
  await assert.rejects(w.docs.token('c1', 2), (e) => e instanceof AppError && /token 2 of collection c1/.test(e.message));
  const doc = await w.docs.collection('c1');
  assert.equal(doc.cacheControl, 'public, max-age=300');
  assert.deepEqual(JSON.parse(doc.body), {
    name: 'Cats',
    description: 'many cats',
    image: '',
    external_link: 'http://meta/collections/c1/metadata.json',
  });
});

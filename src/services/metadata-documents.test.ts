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
  const calls: Array<{ cid: string; tokenIds: number[] }> = [];
  let gate: Promise<void> | undefined;
  let failing = false;
  const store: MetadataStore = {
    async tokensForMetadata(cid, tokenIds) {
      reads++;
      calls.push({ cid, tokenIds });
      // Tokens 1..5 of c1 exist; token 1 has the output above.
      const rows =
        cid === 'c1'
          ? tokenIds.filter((t) => t >= 1 && t <= 5).map((t) => ({ token_id: t, collection, output: t === 1 ? output : null }))
          : [];
      await gate;
      if (failing) throw new Error('database down');
      return rows;
    },
    collectionHeader: async (cid) => (cid === 'c1' ? collection : undefined),
  };
  return {
    // The backend's public pages on another host than the metadata: the collection links its mint page there.
    docs: createMetadataDocuments(store, 'http://meta', new MetadataCache(), undefined, undefined, 'http://pages'),
    complete: () => {
      output = { ...output!, status: 'completed', url: 'http://files/1.png' };
    },
    regenerate: () => {
      output = { ...output!, url: 'http://files/1-v2.png' };
    },
    reads: () => reads,
    calls,
    /** Holds the store's answers until the returned function is called. */
    hold: () => {
      let open!: () => void;
      gate = new Promise((r) => (open = r));
      return () => {
        gate = undefined;
        open();
      };
    },
    fail: (on: boolean) => {
      failing = on;
    },
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
  await assert.rejects(w.docs.token('c1', 9), (e) => e instanceof AppError && /token 9 of collection c1/.test(e.message));
  const doc = await w.docs.collection('c1');
  assert.equal(doc.cacheControl, 'public, max-age=300');
  assert.deepEqual(JSON.parse(doc.body), {
    name: 'Cats',
    description: 'many cats',
    image: '',
    // its web page, the public mint page (every collection has one), not this document itself
    external_link: 'http://pages/mint/c1',
  });
});

test('the token reads of one turn are one query per collection; a read in flight is joined', async () => {
  const w = world();
  w.complete();
  const docs = await Promise.all([w.docs.token('c1', 1), w.docs.token('c1', 2), w.docs.token('c1', 3), w.docs.token('c1', 2)]);
  assert.deepEqual(w.calls, [{ cid: 'c1', tokenIds: [1, 2, 3] }]);
  assert.deepEqual(
    docs.map((d) => JSON.parse(d.body).name),
    ['Cats #1', 'Cats #2', 'Cats #3', 'Cats #2'],
  );
  // Token 4 asked for in two turns while the first read is in flight: one read.
  const open = w.hold();
  const first = w.docs.token('c1', 4);
  await new Promise((r) => setImmediate(r));
  const second = w.docs.token('c1', 4);
  open();
  assert.equal((await first).body, (await second).body);
  assert.deepEqual(w.calls.slice(1), [{ cid: 'c1', tokenIds: [4] }]);
  // Two collections in one turn: one query each, and each miss is its own 404.
  await Promise.allSettled([w.docs.token('c1', 9), w.docs.token('zz', 1)]);
  assert.deepEqual(w.calls.slice(2), [
    { cid: 'c1', tokenIds: [9] },
    { cid: 'zz', tokenIds: [1] },
  ]);
});

test('a failed batch fails each of its reads; the next read tries again', async () => {
  const w = world();
  w.fail(true);
  const results = await Promise.allSettled([w.docs.token('c1', 1), w.docs.token('c1', 2)]);
  assert.deepEqual(
    results.map((r) => r.status === 'rejected' && (r.reason as Error).message),
    ['database down', 'database down'],
  );
  w.fail(false);
  assert.equal(JSON.parse((await w.docs.token('c1', 2)).body).name, 'Cats #2');
});

test('a read in flight when the token is invalidated does not refill the cache with the old document', async () => {
  const w = world();
  w.complete();
  const open = w.hold();
  const before = w.docs.token('c1', 1);
  await new Promise((r) => setImmediate(r)); // the read is in flight, holding the old document
  w.regenerate();
  w.docs.cache.invalidate('c1', 1);
  const after = w.docs.token('c1', 1); // asked after the invalidation: not joined to the old read
  open();
  assert.equal(JSON.parse((await before).body).image, 'http://files/1.png');
  assert.equal(JSON.parse((await after).body).image, 'http://files/1-v2.png');
  assert.equal(JSON.parse((await w.docs.token('c1', 1)).body).image, 'http://files/1-v2.png', 'the cache holds the new document');
});

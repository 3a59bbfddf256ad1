import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { WorkflowForJob } from '../db/workflows.ts';
import { GenerationCatalog, type CatalogSource } from './generation-catalog.ts';

/** A source that counts its reads; each read of a collection returns the current version. */
function source() {
  const reads: string[] = [];
  const versions = new Map<string, number>();
  let gate: Promise<void> | undefined;
  const src: CatalogSource = {
    async collection(id) {
      reads.push(`c:${id}`);
      await gate;
      if (id === 'missing') throw new Error('collection missing not found');
      return { id, title: id, description: '', cover_image_url: null, data: {}, component: null, version: String(versions.get(id) ?? 1) };
    },
    async workflow(name) {
      reads.push(`w:${name}`);
      await gate;
      return name === 'none' ? null : ({ id: name, name, type: 'basic', models: [], custom_nodes: [], version: '1' } as WorkflowForJob);
    },
  };
  return {
    src,
    reads,
    bump: (id: string) => versions.set(id, (versions.get(id) ?? 1) + 1),
    hold() {
      let open!: () => void;
      gate = new Promise((r) => (open = r));
      return () => {
        gate = undefined;
        open();
      };
    },
  };
}

describe('generation catalog', () => {
  test('a hit is not read again; fresh reads again and keeps the new version', async () => {
    const s = source();
    const c = new GenerationCatalog(s.src);
    await c.collection('a');
    await c.collection('a');
    assert.deepEqual(s.reads, ['c:a']);
    s.bump('a');
    assert.equal((await c.collection('a')).version, '1', 'the cached copy until the statement says it is stale');
    assert.equal((await c.collection('a', true)).version, '2');
    assert.equal((await c.collection('a')).version, '2');
    assert.deepEqual(s.reads, ['c:a', 'c:a']);
  });

  test('concurrent misses share one read; a fresh read does not join one under way', async () => {
    const s = source();
    const c = new GenerationCatalog(s.src);
    const release = s.hold();
    const burst = Promise.all([c.collection('a'), c.collection('a'), c.workflow('w'), c.workflow('w')]);
    const fresh = c.collection('a', true);
    release();
    await Promise.all([burst, fresh]);
    assert.deepEqual(s.reads.sort(), ['c:a', 'c:a', 'w:w']);
  });

  test('misses and failures are not kept; the least recently used entry goes first', async () => {
    const s = source();
    const c = new GenerationCatalog(s.src, { collections: 2, workflows: 2 });
    assert.equal(await c.workflow('none'), null);
    assert.equal(await c.workflow('none'), null);
    await assert.rejects(c.collection('missing'), /not found/);
    await assert.rejects(c.collection('missing'), /not found/);
    assert.deepEqual(s.reads, ['w:none', 'w:none', 'c:missing', 'c:missing']);
    s.reads.length = 0;
    await c.collection('a');
    await c.collection('b');
    await c.collection('a'); // a is now the most recent
    await c.collection('c'); // drops b
    await c.collection('a');
    await c.collection('b');
    assert.deepEqual(s.reads, ['c:a', 'c:b', 'c:c', 'c:b']);
  });
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BadBlock, buildBundle, CarBundle, parseCid, type BundleFile } from './car-bundle.ts';

const enc = (s: string) => new TextEncoder().encode(s);
const images = (n: number, changed?: number): BundleFile[] =>
  Array.from({ length: n }, (_, i) => ({ path: `${i}.png`, bytes: enc(`image ${i}${i === changed ? '!' : ''}`.repeat(100)) }));
const rest = (imagesCid: string): BundleFile[] => [
  { path: 'metadata/0', bytes: enc(JSON.stringify({ image: `ipfs://${imagesCid}/0.png` })) },
  { path: 'index.html', bytes: enc('<!doctype html>') },
];

test('bundle: the root names images/, metadata/ and index.html; the images directory is its own CID; the CAR reads back', async () => {
  const built = await buildBundle(images(3), rest);
  assert.match(built.root, /^bafy/);
  assert.notEqual(built.root, built.imagesCid);
  const car = await CarBundle.open(built.car);
  assert.deepEqual(car.roots, [built.root]);
  const img = await car.resolve(built.root, 'images/2.png');
  assert.equal(img.kind, 'file');
  assert.equal(Buffer.from(img.kind === 'file' ? img.bytes : []).toString(), 'image 2'.repeat(100));
  const same = await car.resolve(built.imagesCid, '2.png');
  assert.equal(same.kind === 'file' && same.cid, img.kind === 'file' && img.cid);
  const meta = await car.resolve(built.root, 'metadata/0');
  assert.equal(JSON.parse(Buffer.from(meta.kind === 'file' ? meta.bytes : []).toString()).image, `ipfs://${built.imagesCid}/0.png`);
  const dir = await car.resolve(built.root, '');
  assert.deepEqual(dir.kind === 'directory' && dir.entries.sort(), ['images', 'index.html', 'metadata']);
  assert.deepEqual(await car.resolve(built.root, 'images/9.png'), { kind: 'missing' });
  // The same input gives the same CAR, byte for byte.
  assert.deepEqual((await buildBundle(images(3), rest)).car, built.car);
});

test('bundle: one changed byte of one image changes the images CID and the root', async () => {
  const a = await buildBundle(images(3), rest);
  const b = await buildBundle(images(3, 1), rest);
  assert.notEqual(a.imagesCid, b.imagesCid);
  assert.notEqual(a.root, b.root);
});

test('bundle: a CAR with a block whose bytes do not match its CID is refused', async () => {
  const built = await buildBundle(images(1), rest);
  const text = Buffer.from(built.car);
  const at = text.indexOf(Buffer.from('image 0image 0'));
  assert.ok(at > 0);
  text[at] = 'X'.charCodeAt(0);
  await assert.rejects(CarBundle.open(text), BadBlock);
});

test('parseCid: a CID or null', () => {
  assert.equal(
    parseCid('bafybeid2uqcbylfgeivf736cnfgfb4mgcttlhlyzefqcupdvfx7wq76v6m'),
    'bafybeid2uqcbylfgeivf736cnfgfb4mgcttlhlyzefqcupdvfx7wq76v6m',
  );
  assert.equal(parseCid('not-a-cid'), null);
  assert.equal(parseCid(''), null);
});

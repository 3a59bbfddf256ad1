import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bundledTokenDocument, extensionFor, saleClosed, type SaleFacts } from './permanence.ts';

const open: SaleFacts = {
  editions: 10,
  tokens_minted: 3,
  mint_status: 'deployed',
  deployed: true,
  mintActive: true,
  saleEnd: 0n,
  now: 1_800_000_000,
};

test('saleClosed: sold out, minting off, the on-chain sale ended; else open naming why', () => {
  assert.deepEqual(saleClosed({ ...open, tokens_minted: 10 }), { closed: 'sold_out' });
  assert.deepEqual(saleClosed({ ...open, mintActive: false }), { closed: 'minting_off' });
  assert.deepEqual(saleClosed({ ...open, mint_status: 'paused' }), { closed: 'minting_off' });
  assert.deepEqual(saleClosed({ ...open, saleEnd: 1_700_000_000n }), { closed: 'sale_ended' });
  const still = saleClosed({ ...open, saleEnd: 1_900_000_000n });
  assert.ok('open' in still);
  assert.match(still.open, /3 of 10 editions/);
  assert.match(still.open, /mintActive\(\) is true/);
  assert.match(still.open, /ends at 2030/);
  const draft = saleClosed({ ...open, deployed: false, mintActive: undefined, saleEnd: undefined });
  assert.ok('open' in draft && /not deployed/.test(draft.open));
});

test('saleClosed: with the contract read, its supply decides sold out, not the record (a purchase mints up to maxSupply)', () => {
  // The record's 10 editions are minted, but the contract can still sell up to 20.
  const more = saleClosed({ ...open, tokens_minted: 10, chainSupply: { total: 10, max: 20 } });
  assert.ok('open' in more);
  assert.match(more.open, /minted 10 of its maxSupply 20/);
  assert.deepEqual(saleClosed({ ...open, tokens_minted: 20, chainSupply: { total: 20, max: 20 } }), { closed: 'sold_out' });
  // Minting off still closes it (purchase() checks the switch).
  assert.deepEqual(saleClosed({ ...open, tokens_minted: 10, mintActive: false, chainSupply: { total: 10, max: 20 } }), {
    closed: 'minting_off',
  });
});

test('bundledTokenDocument: the served document with image pointing into the images directory', () => {
  const served = JSON.stringify({ name: 'A #3', image: 'http://x/files/a.png', attributes: [{ trait_type: 'C', value: 'R' }] });
  assert.deepEqual(JSON.parse(bundledTokenDocument(served, 'bafyimages', 3, 'png')), {
    name: 'A #3',
    image: 'ipfs://bafyimages/3.png',
    attributes: [{ trait_type: 'C', value: 'R' }],
  });
  assert.equal(extensionFor('image/png'), 'png');
  assert.equal(extensionFor('application/octet-stream', 'a/b.webp'), 'webp');
  assert.equal(extensionFor('application/octet-stream'), 'bin');
});

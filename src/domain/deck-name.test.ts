import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_DECK_NAME, tokenDeckName } from './deck-name.ts';

test('tokenDeckName: title #id, shortened by code points to fit the column', () => {
  assert.equal(tokenDeckName('Night Foxes', 3), 'Night Foxes #3');
  const long = tokenDeckName('ü'.repeat(200), 1_000_000);
  assert.equal(Array.from(long).length, MAX_DECK_NAME);
  assert.ok(long.endsWith(' #1000000'));
  // Astral characters are never split into lone surrogates.
  const astral = tokenDeckName('🦊'.repeat(200), 12);
  assert.equal(Array.from(astral).length, MAX_DECK_NAME);
  assert.ok(!/[\ud800-\udbff](?![\udc00-\udfff])/.test(astral));
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deriveContractParams, deriveName, deriveSymbol } from './contract-params.ts';

test('name is ASCII, whitespace-collapsed and bounded', () => {
  assert.equal(deriveName('  Café   Crème  '), 'Cafe Creme');
  assert.equal(deriveName('Straße 🚀 Øre'), 'Strasse Ore');
  assert.equal(deriveName('🚀🚀'), 'Atelier Collection');
  assert.equal(deriveName('x'.repeat(200)).length, 64);
});

test('symbol uses initials of three or more words, else the leading letters', () => {
  assert.equal(deriveSymbol('Bored Ape Yacht Club'), 'BAYC');
  assert.equal(deriveSymbol('Moonbirds'), 'MOONBIRD');
  assert.equal(deriveSymbol('Cool Cats'), 'COOLCATS');
  assert.equal(deriveSymbol('A B'), 'ABX');
  assert.equal(deriveSymbol('日本'), 'ATLR');
  assert.match(deriveSymbol('one two three four five six seven eight nine ten'), /^[A-Z0-9]{3,8}$/);
});

test('contract params point at the metadata host', () => {
  const p = deriveContractParams({ id: 'abc', title: 'Neon Dreams', editions: 42 }, 'https://meta.example/');
  assert.deepEqual(p, {
    name: 'Neon Dreams',
    symbol: 'NEONDREA',
    baseURI: 'https://meta.example/collections/abc/tokens/',
    contractURI: 'https://meta.example/collections/abc/metadata.json',
    maxSupply: 42,
  });
});

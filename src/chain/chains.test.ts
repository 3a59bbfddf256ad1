import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chainName } from '../domain/chain-names.ts';
import { CHAINS } from './chains.ts';

test('every chain Atelier can write to has its name from the one table in src/domain/chain-names.ts', () => {
  for (const c of Object.values(CHAINS)) assert.equal(c.name, chainName(c.id));
});

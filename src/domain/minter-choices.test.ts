import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { GenerationData } from './generation-data.ts';
import { checkMinterChoices } from './minter-choices.ts';
import { resolveVariables } from './variables.ts';

const data = {
  steps: [{ id: 1, nodeName: 'image', nodePayload: { intent: 'a $color fox', seed: null } }],
  variables: [
    {
      name: 'color',
      type: 'string',
      is_selectable: true,
      is_user_customizable: false,
      is_feature: true,
      feature_name: 'Color',
      value: [
        { value: 'red', display_name: 'Red', weight: 1 },
        { value: 'gold', display_name: 'Gold', weight: 1 },
      ],
    },
    {
      name: 'sky',
      type: 'string',
      is_selectable: false,
      is_user_customizable: false,
      is_feature: true,
      feature_name: 'Sky',
      value: [{ value: 'night', display_name: 'Night', weight: 1 }],
    },
  ],
} as unknown as GenerationData;

test('a public minter may not set the seed, not even a blank-looking one; nor a platform-picked variable', () => {
  for (const seed of [' ', '\t', '\u00a0\u2003', '', 7, '42']) {
    assert.throws(() => checkMinterChoices(data, { seed }), /may not choose the seed/, JSON.stringify(seed));
  }
  assert.throws(() => checkMinterChoices(data, { sky: 'night' }), /picked by the platform/);
  assert.doesNotThrow(() => checkMinterChoices(data, { color: 'gold', sky: '' }));
});

test('a blank seed override is no override: the resolver keeps the given seed', () => {
  const base = resolveVariables(data, {}, { seed: 12345 } as never);
  const blank = resolveVariables(data, { seed: '   ' }, { seed: 12345 } as never);
  assert.deepEqual(blank.values, base.values);
  assert.equal(blank.seed, base.seed);
});

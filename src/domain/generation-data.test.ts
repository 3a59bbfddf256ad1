import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ZodError } from 'zod';
import { BLANK_IMAGE, isBlankImage, normalizeGenerationData, REF_IMAGE_NAMES, SOCIAL_PFP } from './generation-data.ts';

test('defaults are filled and every built-in image variable exists with a blank default', () => {
  const d = normalizeGenerationData({ version: 'v2' });
  assert.deepEqual(d.steps, []);
  assert.deepEqual(d.generations, { hashes: [], generations: 0, use_custom_hashes: false });
  assert.deepEqual(
    d.variables.map((v) => v.name),
    [SOCIAL_PFP, ...REF_IMAGE_NAMES],
  );
  for (const v of d.variables) assert.deepEqual(v.value, [{ value: BLANK_IMAGE, display_name: 'blank', weight: 1 }]);
});

test('columnar (design-stage) options become option lists with display names and weights', () => {
  const d = normalizeGenerationData({
    version: 'v2',
    variables: [{ name: 'color', value: { values: ['red', 'blue'], display_names: ['Crimson', 'Azure'], weights: [1, 3] } }],
  });
  assert.deepEqual(d.variables[0]!.value, [
    { value: 'red', display_name: 'Crimson', weight: 1 },
    { value: 'blue', display_name: 'Azure', weight: 3 },
  ]);
});

test('social_pfp is always customizable; required only counts for customizable variables', () => {
  const d = normalizeGenerationData({
    version: 'v2',
    variables: [
      { name: SOCIAL_PFP, is_user_customizable: false, value: [] },
      { name: 'pinned', required: true, value: [{ value: 'x' }] },
    ],
  });
  const pfp = d.variables.find((v) => v.name === SOCIAL_PFP)!;
  assert.equal(pfp.is_user_customizable, true);
  assert.equal(pfp.value[0]!.value, BLANK_IMAGE, 'an empty image variable gets the blank default');
  assert.equal(d.variables.find((v) => v.name === 'pinned')!.required, false);
});

test('steps get null image references and seeds when not given; extra payload fields are kept', () => {
  const d = normalizeGenerationData({ version: 'v2', steps: [{ id: 1, nodeName: 'image', nodePayload: { intent: 'x', width: 512 } }] });
  assert.deepEqual(d.steps[0]!.nodePayload, { intent: 'x', width: 512, user_image: null, optional_ref_image: null, seed: null });
});

test('bad input throws a ZodError naming the field: version, names, duplicates, mismatched columns', () => {
  const issuePath = (input: unknown) => {
    try {
      normalizeGenerationData(input);
    } catch (e) {
      assert.ok(e instanceof ZodError);
      return e.issues[0]!.path.join('.');
    }
    assert.fail('expected a ZodError');
  };
  assert.equal(issuePath({ version: 'v1' }), 'version');
  assert.equal(issuePath({ version: 'v2', variables: [{ name: '1bad' }] }), 'variables.0.name');
  assert.equal(issuePath({ version: 'v2', variables: [{ name: 'a' }, { name: 'a' }] }), 'variables');
  assert.equal(
    issuePath({ version: 'v2', variables: [{ name: 'a', value: { values: ['x'], weights: [1, 2] } }] }),
    'variables.0.value.weights',
  );
});

test('blank images: undefined, null, empty and the placeholder', () => {
  for (const b of [undefined, null, '', BLANK_IMAGE]) assert.equal(isBlankImage(b), true);
  assert.equal(isBlankImage('https://x/y.png'), false);
});

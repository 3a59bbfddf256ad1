import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { BLANK_IMAGE, normalizeGenerationData, type GenerationDataInput } from './generation-data.ts';
import {
  VariableError,
  createRng,
  deriveSeed,
  normalizeSeed,
  resolveSteps,
  resolveVariables,
  substituteIntent,
  weightedIndex,
} from './variables.ts';

function data(extra: Partial<GenerationDataInput> = {}) {
  return normalizeGenerationData({
    version: 'v2',
    steps: [
      {
        id: 1,
        nodeName: 'image',
        nodePayload: {
          intent: 'a $color cat wearing a $color_2 hat, $mood',
          user_image: '$social_pfp',
          optional_ref_image: '$ref_image_1',
        },
      },
      { id: 2, nodeName: 'upscale', nodePayload: { intent: 'upscale', seed: 7 } },
    ],
    variables: [
      {
        name: 'color',
        is_feature: true,
        feature_name: 'Color',
        is_selectable: true,
        value: [
          { value: 'red', display_name: 'Crimson', weight: 1 },
          { value: 'blue', display_name: 'Azure', weight: 3 },
        ],
      },
      { name: 'color_2', value: { values: ['green', 'gold'], weights: [0, 0] } },
      { name: 'mood', is_user_customizable: true, is_feature: true, feature_name: 'Mood', value: [{ value: 'calm' }] },
      { name: 'caption', is_user_customizable: true, required: true, value: [] },
    ],
    ...extra,
  });
}

function expectError(fn: () => unknown, field: string, code?: string) {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof VariableError, `expected VariableError, got ${String(e)}`);
    assert.equal(e.field, field);
    if (code) assert.equal(e.code, code);
    assert.ok(e.message.includes(field), `message names the field: ${e.message}`);
    return true;
  });
}

describe('PRNG', () => {
  test('same seed gives the same sequence, different seeds differ', () => {
    const a = createRng(42),
      b = createRng(42),
      c = createRng(43);
    const sa = [a(), a(), a()],
      sb = [b(), b(), b()],
      sc = [c(), c(), c()];
    assert.deepEqual(sa, sb);
    assert.notDeepEqual(sa, sc);
    for (const x of sa) assert.ok(x >= 0 && x < 1);
  });

  test('normalizeSeed: small integers kept, strings hashed, bad input rejected', () => {
    assert.equal(normalizeSeed(12345), 12345);
    assert.equal(normalizeSeed('12345'), 12345);
    assert.equal(normalizeSeed('token-7'), normalizeSeed('token-7'));
    assert.notEqual(normalizeSeed('token-7'), normalizeSeed('token-8'));
    assert.ok(normalizeSeed(2 ** 40) <= 0xffffffff);
    assert.ok(normalizeSeed(-1) >= 0);
    expectError(() => normalizeSeed(''), 'seed', 'INVALID_SEED');
    expectError(() => normalizeSeed(Number.NaN), 'seed', 'INVALID_SEED');
  });

  test('deriveSeed gives distinct unsigned streams', () => {
    const s = new Set([deriveSeed(1, 'a'), deriveSeed(1, 'b'), deriveSeed(2, 'a')]);
    assert.equal(s.size, 3);
    for (const x of s) assert.ok(Number.isInteger(x) && x >= 0 && x <= 0xffffffff);
  });

  test('weightedIndex follows weights, skips zero weights, uniform when all zero', () => {
    assert.equal(weightedIndex([1, 3], 0.2), 0);
    assert.equal(weightedIndex([1, 3], 0.3), 1);
    assert.equal(weightedIndex([0, 1, 0], 0), 1);
    assert.equal(weightedIndex([0, 1, 0], 0.9999), 1);
    assert.equal(weightedIndex([0, 0, 0, 0], 0.6), 2);
    assert.equal(weightedIndex([5, 0], 0.99999999), 0);
  });
});

describe('resolveVariables', () => {
  const base = { caption: 'hello' };

  test('same seed, same picks; values include every variable and nothing else', () => {
    const d = data();
    const a = resolveVariables(d, { ...base, junk: 'x' }, { seed: 'abc' });
    const b = resolveVariables(d, { ...base, junk: 'x' }, { seed: 'abc' });
    assert.deepEqual(a, b);
    assert.deepEqual(Object.keys(a.values).sort(), [
      'caption',
      'color',
      'color_2',
      'mood',
      'ref_image_1',
      'ref_image_2',
      'ref_image_3',
      'ref_image_4',
      'ref_image_5',
      'social_pfp',
    ]);
    assert.equal(a.values.caption, 'hello');
    assert.equal(a.values.social_pfp, BLANK_IMAGE);
    assert.equal(a.values.ref_image_3, BLANK_IMAGE);
    assert.equal(a.seed, normalizeSeed('abc'));
  });

  test('weighted picks follow weights over many seeds; all-zero weights pick uniformly', () => {
    const d = data();
    const counts: Record<string, number> = {};
    const counts2: Record<string, number> = {};
    for (let i = 0; i < 4000; i++) {
      const r = resolveVariables(d, base, { seed: i });
      counts[r.values.color!] = (counts[r.values.color!] ?? 0) + 1;
      counts2[r.values.color_2!] = (counts2[r.values.color_2!] ?? 0) + 1;
    }
    const blueShare = counts.blue! / 4000;
    assert.ok(blueShare > 0.7 && blueShare < 0.8, `blue share ${blueShare}`);
    const greenShare = counts2.green! / 4000;
    assert.ok(greenShare > 0.45 && greenShare < 0.55, `green share ${greenShare}`);
  });

  test('an override wins and does not disturb other picks', () => {
    const d = data();
    const free = resolveVariables(d, base, { seed: 99 });
    const other = free.values.color === 'red' ? 'blue' : 'red';
    const forced = resolveVariables(d, { ...base, color: other }, { seed: 99 });
    assert.equal(forced.values.color, other);
    assert.equal(forced.values.color_2, free.values.color_2);
  });

  test('selectable variable must be a preset value', () => {
    expectError(() => resolveVariables(data(), { ...base, color: 'purple' }, { seed: 1 }), 'variables.color', 'NOT_A_PRESET');
    // display names are not values
    expectError(() => resolveVariables(data(), { ...base, color: 'Crimson' }, { seed: 1 }), 'variables.color', 'NOT_A_PRESET');
  });

  test('customizable variable takes any string; required one must be supplied', () => {
    const r = resolveVariables(data(), { ...base, mood: 'stormy' }, { seed: 1 });
    assert.equal(r.values.mood, 'stormy');
    expectError(() => resolveVariables(data(), {}, { seed: 1 }), 'variables.caption', 'REQUIRED');
    expectError(() => resolveVariables(data(), { caption: '   ' }, { seed: 1 }), 'variables.caption', 'REQUIRED');
    expectError(() => resolveVariables(data(), { caption: { a: 1 } }, { seed: 1 }), 'variables.caption', 'INVALID_VALUE');
    expectError(() => resolveVariables(data(), { caption: 'x'.repeat(5000) }, { seed: 1 }), 'variables.caption', 'INVALID_VALUE');
    assert.equal(resolveVariables(data(), { caption: 12 }, { seed: 1 }).values.caption, '12');
  });

  test('samples (requiredMayBeOmitted): a required variable left out is resolved like any other (§4.1.2)', () => {
    // caption has no presets: the empty string of any customizable variable left out.
    assert.equal(resolveVariables(data(), {}, { seed: 1, requiredMayBeOmitted: true }).values.caption, '');
    assert.equal(resolveVariables(data(), { caption: 'mine' }, { seed: 1, requiredMayBeOmitted: true }).values.caption, 'mine');
  });

  test('social_pfp: blank, then the caller picture, then an override', () => {
    const d = data();
    assert.equal(resolveVariables(d, base, { seed: 1 }).values.social_pfp, BLANK_IMAGE);
    assert.equal(resolveVariables(d, base, { seed: 1, socialPfp: null }).values.social_pfp, BLANK_IMAGE);
    assert.equal(resolveVariables(d, base, { seed: 1, socialPfp: 'https://x/pfp.png' }).values.social_pfp, 'https://x/pfp.png');
    assert.equal(
      resolveVariables(d, { ...base, social_pfp: 'https://x/mine.png' }, { seed: 1, socialPfp: 'https://x/pfp.png' }).values.social_pfp,
      'https://x/mine.png',
    );
  });

  test('traits only from features, display name for presets, raw value otherwise', () => {
    const r = resolveVariables(data(), { ...base, color: 'red', mood: 'stormy' }, { seed: 1 });
    assert.deepEqual(r.traits, [
      { trait_type: 'Color', value: 'Crimson' },
      { trait_type: 'Mood', value: 'stormy' },
    ]);
  });

  test('override seed replaces the given seed', () => {
    const d = data();
    const a = resolveVariables(d, { ...base, seed: 5 }, { seed: 'ignored' });
    const b = resolveVariables(d, base, { seed: 5 });
    assert.equal(a.seed, 5);
    assert.deepEqual(a.values, b.values);
    assert.equal(a.values.seed, undefined);
    expectError(() => resolveVariables(d, { ...base, seed: [1] }, { seed: 1 }), 'variables.seed', 'INVALID_SEED');
  });

  test('a fixed variable with no presets is reported', () => {
    const d = normalizeGenerationData({ version: 'v2', variables: [{ name: 'empty', value: [] }] });
    expectError(() => resolveVariables(d, {}, { seed: 1 }), 'variables.empty', 'NO_OPTIONS');
  });
});

describe('substituteIntent', () => {
  test('longest names first, braces, unknown references kept, single pass', () => {
    const values = { color: 'red', color_2: 'blue', x: '$color', ref_image_1: BLANK_IMAGE };
    assert.equal(substituteIntent('$color and $color_2', values), 'red and blue');
    assert.equal(substituteIntent('${color}_2 and $colors', values), 'red_2 and reds');
    assert.equal(substituteIntent('$unknown $x', values), '$unknown $color');
    assert.equal(substituteIntent('ref:[$ref_image_1]', values), 'ref:[]');
    assert.equal(substituteIntent('cost $5', {}), 'cost $5');
  });

  test('names with regex characters cannot occur, but dollar values are inserted literally', () => {
    assert.equal(substituteIntent('price $p', { p: '$& $1' }), 'price $& $1');
  });
});

describe('resolveSteps', () => {
  test('intents substituted, images resolved, blanks skipped, reference list built', () => {
    const d = data();
    const { values, seed } = resolveVariables(
      d,
      { ...base2(), color: 'red', color_2: 'gold', ref_image_2: 'https://x/r2.png' },
      { seed: 3 },
    );
    const { steps, referenceImages } = resolveSteps(d, values, seed);
    assert.equal(steps[0]!.nodePayload.intent, 'a red cat wearing a gold hat, calm');
    assert.equal(steps[0]!.nodePayload.user_image, null); // social_pfp blank
    assert.equal(steps[0]!.nodePayload.optional_ref_image, null); // ref_image_1 blank
    assert.equal(steps[1]!.nodePayload.seed, 7); // a step's own seed is kept
    assert.equal(typeof steps[0]!.nodePayload.seed, 'number');
    assert.equal(steps[0]!.nodePayload.seed, resolveSteps(d, values, seed).steps[0]!.nodePayload.seed);
    assert.deepEqual(referenceImages, [{ name: 'ref_image_2', url: 'https://x/r2.png' }]);

    const withPfp = resolveVariables(d, base2(), { seed: 3, socialPfp: 'https://x/pfp.png' });
    const r2 = resolveSteps(d, withPfp.values);
    assert.equal(r2.steps[0]!.nodePayload.user_image, 'https://x/pfp.png');
    assert.equal(r2.steps[0]!.nodePayload.seed, null);
    assert.deepEqual(r2.referenceImages, [{ name: 'social_pfp', url: 'https://x/pfp.png' }]);
  });

  test('literal image URLs pass through; unknown references are reported', () => {
    const d = normalizeGenerationData({
      version: 'v2',
      steps: [{ id: 1, nodeName: 'n', nodePayload: { intent: 'x', user_image: 'https://x/a.png', optional_ref_image: '$nope' } }],
    });
    const { values } = resolveVariables(d, {}, { seed: 1 });
    expectError(() => resolveSteps(d, values), 'steps[0].nodePayload.optional_ref_image', 'UNKNOWN_REFERENCE');
    const d2 = normalizeGenerationData({
      version: 'v2',
      steps: [{ id: 1, nodeName: 'n', nodePayload: { intent: 'x', user_image: 'https://x/a.png' } }],
    });
    assert.equal(resolveSteps(d2, values).steps[0]!.nodePayload.user_image, 'https://x/a.png');
  });
});

function base2() {
  return { caption: 'hello', mood: 'calm' };
}

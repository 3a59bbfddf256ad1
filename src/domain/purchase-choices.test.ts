import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_CHOICES_BYTES, parseChoices } from './purchase-choices.ts';

const vars = [{ name: 'color', is_selectable: true }, { name: 'animal', is_user_customizable: true }, { name: 'mood' }];
const hex = (s: string) => `0x${Buffer.from(s, 'utf8').toString('hex')}`;

test('the buyer chooses selectable and customizable variables only', () => {
  assert.deepEqual(parseChoices(hex('{"color":"red","animal":"fox"}'), vars), {
    status: 'buyer',
    choices: { color: 'red', animal: 'fox' },
  });
  assert.deepEqual(parseChoices('0x', vars), { status: 'none', choices: {} });
  assert.deepEqual(parseChoices(hex('{}'), vars), { status: 'none', choices: {} });
  for (const [data, reason] of [
    [hex('{"mood":"calm"}'), /mood/],
    [hex('{"seed":1}'), /seed/],
    [hex('{"color":{"x":1}}'), /color/],
    [hex('[1]'), /object/],
    [hex('not json'), /JSON/],
    ['0xff', /UTF-8/],
  ] as const) {
    const r = parseChoices(data, vars);
    assert.equal(r.status, 'invalid', data);
    assert.deepEqual(r.choices, {});
    assert.match(r.reason ?? '', reason);
  }
  const big = parseChoices(hex(JSON.stringify({ color: 'r'.repeat(MAX_CHOICES_BYTES) })), vars);
  assert.equal(big.status, 'oversized');
});

test("the creator's reference images and the profile picture are never the buyer's, whatever their flags", () => {
  const vars = [
    { name: 'ref_image_1', is_user_customizable: true },
    { name: 'social_pfp', is_user_customizable: true },
  ];
  const hex = (o: unknown) => `0x${Buffer.from(JSON.stringify(o)).toString('hex')}`;
  for (const name of ['ref_image_1', 'social_pfp']) {
    const r = parseChoices(hex({ [name]: 'https://attacker.example/x.png' }), vars);
    assert.equal(r.status, 'invalid', name);
    assert.match(r.reason ?? '', new RegExp(`variables.${name}`));
  }
});

test('a NUL or an unpaired surrogate in a name or a value is invalid, and the reason quotes neither', () => {
  const vars = [
    { name: 'color', is_selectable: true },
    { name: 'motto', is_user_customizable: true },
  ];
  const bad = /[\u0000\ud800-\udfff]/;
  // The JSON texts as a collector sends them: escapes, which JSON.parse turns into the characters.
  for (const [data, reason] of [
    [String.raw`{"color":"red","motto":"\u0000"}`, /variables\.motto: a value with a NUL character or an unpaired surrogate/],
    [String.raw`{"motto":"a\u0000b"}`, /variables\.motto: a value/],
    [String.raw`{"motto":"\ud800"}`, /variables\.motto: a value/],
    [String.raw`{"motto":"\udc00x"}`, /variables\.motto: a value/],
    [String.raw`{"\u0000":1}`, /^variables\.\\u0000: a variable name with a NUL character or an unpaired surrogate$/],
    [String.raw`{"mo\u0000tto":"x"}`, /^variables\.mo\\u0000tto: a variable name/],
    [String.raw`{"\ud800":"x"}`, /^variables\.\\ud800: a variable name/],
    [String.raw`{"color":"red","\udfff":{"a":1}}`, /^variables\.\\udfff: a variable name/],
  ] as const) {
    const r = parseChoices(hex(data), vars);
    assert.equal(r.status, 'invalid', data);
    assert.deepEqual(r.choices, {}, data);
    assert.match(r.reason ?? '', reason, data);
    assert.doesNotMatch(r.reason ?? '', bad, data);
    assert.ok(r.reason?.isWellFormed(), data);
  }
  // A surrogate pair (an emoji), escaped or not, is text like any other.
  for (const data of [String.raw`{"motto":"\ud83e\udd8a fox"}`, '{"motto":"🦊 fox"}']) {
    assert.deepEqual(parseChoices(hex(data), vars), { status: 'buyer', choices: { motto: '🦊 fox' } }, data);
  }
});

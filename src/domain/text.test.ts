import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isStorableText, storableText } from './text.ts';

test('storable text has no NUL and no unpaired surrogate; a surrogate pair (an emoji) stays', () => {
  assert.equal(storableText('a\u0000b'), 'ab');
  assert.equal(storableText('x\ud800y'), 'x\ufffdy');
  assert.equal(storableText('x\udc00'), 'x\ufffd');
  assert.equal(storableText('fox 🦊'), 'fox 🦊');
  assert.equal(isStorableText('fox 🦊'), true);
  for (const bad of ['a\u0000', '\ud800', 'a\udfffb', '\udc00\ud800']) {
    assert.equal(isStorableText(bad), false, JSON.stringify(bad));
    assert.equal(isStorableText(storableText(bad)), true, JSON.stringify(bad));
  }
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TokenReceipt } from '../domain/receipt.ts';
import { ProceduralConnector } from '../generation/connectors/procedural.ts';
import { pixelsSha256 } from '../services/receipts.ts';
import { rerenderPixelsSha256 } from './render.ts';

const receipt = (over: Partial<TokenReceipt> = {}): TokenReceipt => ({
  version: 1,
  collection: { id: 'c', chain_id: 31337, address: null },
  token_id: 1,
  seed: { value: null, word: 7, chosen_by: 'owner', inputs: null },
  variables: [
    { name: 'color', value: 'red', chosen_by: 'minter' },
    { name: 'animal', value: 'fox', chosen_by: 'platform' },
  ],
  prompt: 'a red fox',
  steps: [
    { id: 1, node_name: 'image', prompt: 'a red fox', seed: 11, width: 64, height: 64, reference_images: [] },
    { id: 2, node_name: 'image', prompt: 'again', seed: 12, width: 64, height: 64, reference_images: [] },
  ],
  workflow: { id: 'w', name: 'procedural', type: 'basic', definition_sha256: null },
  connector: { name: 'procedural', models: [], version: null },
  renderer_version: 'atelier-procedural/1',
  output: { url: '', mime_type: 'image/png', sha256: '', pixels_sha256: null },
  ...over,
});

test('a procedural picture re-renders from its receipt: each step in order, the previous picture feeding the next', async () => {
  const c = new ProceduralConnector();
  const values = { color: 'red', animal: 'fox' };
  const first = await c.generate({ prompt: 'a red fox', seed: 11, width: 64, height: 64, values, referenceImages: [] }, () => undefined);
  const second = await c.generate(
    {
      prompt: 'again',
      seed: 12,
      width: 64,
      height: 64,
      values,
      referenceImages: [{ name: 'previous_step', bytes: first.bytes }],
    },
    () => undefined,
  );
  const none = async () => Buffer.alloc(0);
  assert.equal(await rerenderPixelsSha256(receipt(), none), await pixelsSha256(second.bytes));
  // Another value, another seed: other pixels.
  const changed = receipt({ variables: [{ name: 'color', value: 'blue', chosen_by: 'minter' }] });
  assert.notEqual(await rerenderPixelsSha256(changed, none), await pixelsSha256(second.bytes));
  const reseeded = receipt();
  reseeded.steps[1]!.seed = 13;
  assert.notEqual(await rerenderPixelsSha256(reseeded, none), await pixelsSha256(second.bytes));
});

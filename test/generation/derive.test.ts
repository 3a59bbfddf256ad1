/** The built-in derive renderers behind the built-in global collections (docs/jobs.md "Develop"). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import sharp from 'sharp';
import { createConnector, GeneratorError, type GenerateRequest } from '../../src/generation/connectors/index.ts';

const solid = (r: number, g: number, b: number, w: number, h: number) =>
  sharp({ create: { width: w, height: h, channels: 3, background: { r, g, b } } })
    .png()
    .toBuffer();

async function pixel(png: Buffer, x: number, y: number): Promise<[number, number, number]> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return [data[i]!, data[i + 1]!, data[i + 2]!];
}

async function rejectsGenerator(p: Promise<unknown>, check: (e: GeneratorError) => void) {
  await assert.rejects(p, (e) => {
    assert.ok(e instanceof GeneratorError, String(e));
    check(e);
    return true;
  });
}

describe('derive renderers (built-in global collections)', () => {
  const base = { prompt: 'x', seed: 5, values: {}, referenceImages: [] } as GenerateRequest;
  test('animate: a looping animated WebP of the reference; variation: a PNG of its size; no reference: a final error', async () => {
    const ref = await solid(200, 40, 40, 80, 60);
    const withRef = { ...base, referenceImages: [{ name: 'ref_image_1', bytes: ref }] };
    const anim = await createConnector('basic', {}, { workflowData: { renderer: 'animate' } }).generate(withRef, () => {});
    assert.equal(anim.mimeType, 'image/webp');
    const meta = await sharp(anim.bytes, { animated: true }).metadata();
    // The encoder may merge identical frames (a solid reference), keeping the loop's length.
    assert.ok((meta.pages ?? 1) > 1, `frames: ${meta.pages}`);
    assert.equal(
      (meta.delay ?? []).reduce((a, b) => a + b, 0),
      12 * 120,
    );
    assert.equal(meta.loop, 0);
    assert.deepEqual([meta.width, meta.pageHeight], [80, 60]);
    const vari = await createConnector('basic', {}, { workflowData: { renderer: 'variation' } }).generate(withRef, () => {});
    assert.equal(vari.mimeType, 'image/png');
    const vm = await sharp(vari.bytes).metadata();
    assert.deepEqual([vm.width, vm.height], [80, 60]);
    assert.notDeepEqual(await pixel(vari.bytes, 40, 30), [200, 40, 40], 'recoloured');
    await rejectsGenerator(
      createConnector('basic', {}, { workflowData: { renderer: 'animate' } }).generate(base, () => {}),
      (e) => assert.equal(e.retryable, false),
    );
  });
});

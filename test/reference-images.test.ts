/**
 * Reference images end to end: an uploaded image named in ref_image_1 is drawn into the generated
 * picture; a URL into our own network is never fetched (placeholder tile instead).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { outputs } from '../src/db/schema/index.ts';
import { isInternalHost } from '../src/generation/reference-images.ts';
import { startJobsPlatform, waitForJobEnd, type JobsPlatform } from './helpers/jobs.ts';
import { asService, call, sampleData } from './helpers/platform.ts';

test('internal hosts are recognised', () => {
  for (const h of [
    'localhost',
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '[::1]',
    'fd00::1',
    'api.internal',
    '0.0.0.0',
  ]) {
    assert.equal(isInternalHost(h), true, h);
  }
  for (const h of ['example.com', '8.8.8.8', '172.32.0.1', '2001:4860::8888']) assert.equal(isInternalHost(h), false, h);
});

let p: JobsPlatform;
before(async () => {
  p = await startJobsPlatform('in-process');
});
after(() => p.close());

test('an uploaded reference image is drawn into the picture; an internal URL is not fetched', async () => {
  const red = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#ff0000' } })
    .png()
    .toBuffer();
  const up = await call(`${p.backendUrl}/upload-base64`, {
    headers: asService({ user_id: 'ref-user' }),
    body: { base64Data: red.toString('base64'), mimeType: 'image/png', create_flat_file: true, rel_type: 'nft_ref_image' },
  });
  assert.equal(up.status, 200, JSON.stringify(up.body));
  const created = await call(`${p.backendUrl}/nft/collections`, {
    headers: asService({ user_id: 'ref-user' }),
    body: { title: 'Refs', data: sampleData() },
  });
  const id = created.body.data.collection.id;
  const gen = await call(`${p.backendUrl}/api/collections/${id}/generate`, {
    headers: asService({ user_id: 'ref-user' }),
    body: { variables: { ref_image_1: up.body.data.url, ref_image_2: 'http://127.0.0.1:9/private.png' } },
  });
  assert.ok([200, 202].includes(gen.status), JSON.stringify(gen.body));
  const jobId = gen.body.data.jobId;
  const job = await waitForJobEnd(p, jobId);
  assert.equal(job.status, 'completed', job.error_message ?? '');
  const [out] = await p.database.db.select().from(outputs).where(eq(outputs.job_id, jobId));
  const refs = (
    out!.output_metadata as { reference_images: Array<{ name: string; drawn: boolean; left: number; top: number; size: number }> }
  ).reference_images;
  const r1 = refs.find((r) => r.name === 'ref_image_1')!;
  const r2 = refs.find((r) => r.name === 'ref_image_2')!;
  assert.equal(r1.drawn, true);
  assert.equal(r2.drawn, false, 'a URL into our own network is never fetched');

  const key = p.storage.keyFromUrl(out!.url!) ?? out!.url!;
  const png = (await p.storage.get(key))!.bytes;
  const { data } = await sharp(png)
    .extract({ left: r1.left + Math.floor(r1.size / 2), top: r1.top + Math.floor(r1.size / 2), width: 1, height: 1 })
    .raw()
    .toBuffer({ resolveWithObject: true });
  assert.deepEqual([...data.subarray(0, 3)], [255, 0, 0], 'the red reference sits in its tile');
});

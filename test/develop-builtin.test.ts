/**
 * Develop on a fresh `atelier start` (docs/api/content.md §4.1; docs/jobs.md "Develop"): the
 * built-in global collections exist from the first start (and only once after a restart), a
 * completed output developed with "Animate" gives a completed animated WebP in the source's deck,
 * "Variation" a PNG; the operator marks other collections global through
 * PUT /nft/collections/:collectionId/global (users get 403).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import sharp from 'sharp';
import { freePort } from '../src/chain/anvil.ts';
import { startCli, stopAllClis, stopCli } from './helpers/cli.ts';
import { userToken } from './helpers/content.ts';
import { JWT_SECRET, SERVICE_KEY, call, sampleData } from './helpers/platform.ts';
import { waitFor } from './helpers/wait.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-develop-'));
after(async () => {
  await stopAllClis();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('fresh start: built-in global collections list, develop animates and varies a completed output', async () => {
  const [port, adminPort] = [await freePort(), await freePort()];
  const env = { DATA_DIR: dataDir, PORT: String(port), ADMIN_PORT: String(adminPort), API_KEY: SERVICE_KEY, JWT_SECRET };
  const base = `http://127.0.0.1:${port}`;
  const as = (user?: string) => ({ 'x-api-key': SERVICE_KEY, ...(user ? { user_id: user } : {}) });
  const first = await startCli(env);

  const listed = await call(`${base}/outputs/develop/collections?input_type=image`, { headers: as('dev') });
  assert.equal(listed.status, 200);
  const byTitle = Object.fromEntries(listed.body.data.map((c: any) => [c.title, c]));
  assert.deepEqual(Object.keys(byTitle).sort(), ['Animate', 'Variation']);
  assert.equal(byTitle.Animate.input_type, 'image');

  const src = (await call(`${base}/nft/collections`, { headers: as('dev'), body: { title: 'Source', data: sampleData() } })).body.data
    .collection.id;
  const job = (id: string) =>
    waitFor(`job ${id}`, async () => {
      const j = (await call(`${base}/api/jobs/${id}`, { headers: as() })).body.data;
      return ['completed', 'failed'].includes(j.status) ? j : undefined;
    });
  const gen = await call(`${base}/api/collections/${src}/generate`, { headers: as('dev'), body: { variables: {} } });
  assert.equal(gen.status, 202);
  const sourceJob = await job(gen.body.data.jobId);
  assert.equal(sourceJob.status, 'completed');
  const source = (await call(`${base}/outputs/${sourceJob.output_id}`, { headers: as('dev') })).body.data;

  for (const [title, mime, pages] of [
    ['Animate', 'image/webp', 12],
    ['Variation', 'image/png', 1],
  ] as const) {
    const dev = await call(`${base}/outputs/${source.id}/develop`, { headers: as('dev'), body: { collection_id: byTitle[title].id } });
    assert.equal(dev.status, 202, JSON.stringify(dev.body));
    const done = await job(dev.body.data.job_id);
    assert.equal(done.status, 'completed', `${title}: ${JSON.stringify(done.error_message ?? done)}`);
    const out = (await call(`${base}/outputs/${dev.body.data.output_id}`, { headers: as('dev') })).body.data;
    assert.equal(out.status, 'completed');
    assert.equal(out.deck_id, source.deck_id);
    assert.equal(out.collection_id, src);
    assert.equal(out.parent_output_id, source.id);
    assert.equal(out.mime_type, mime);
    const bytes = Buffer.from(await (await fetch(out.url)).arrayBuffer());
    const meta = await sharp(bytes, { animated: true }).metadata();
    if (pages > 1) {
      // Animated: several frames over the whole loop (the encoder may merge identical ones).
      assert.ok((meta.pages ?? 1) > 1, `${title} frames: ${meta.pages}`);
      assert.equal(
        (meta.delay ?? []).reduce((a, b) => a + b, 0),
        pages * 120,
      );
    } else assert.equal(meta.pages ?? 1, 1, `${title} is a still`);
  }

  // The operator marks a collection global; a user may not.
  const other = (await call(`${base}/nft/collections`, { headers: as('dev'), body: { title: 'Restyle', data: sampleData() } })).body.data
    .collection.id;
  const byUser = await call(`${base}/nft/collections/${other}/global`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${await userToken('dev')}` },
    body: { input_type: 'image', output_type: 'image' },
  });
  assert.equal(byUser.status, 403);
  const anonymous = await call(`${base}/nft/collections/${other}/global`, {
    method: 'PUT',
    body: { input_type: 'image', output_type: 'image' },
  });
  assert.equal(anonymous.status, 401);
  const missing = await call(`${base}/nft/collections/${other}/global`, { method: 'PUT', headers: as(), body: { input_type: 'image' } });
  assert.equal(missing.status, 400);
  assert.match(missing.body.error, /output_type/);
  const marked = await call(`${base}/nft/collections/${other}/global`, {
    method: 'PUT',
    headers: as(),
    body: { input_type: 'image', output_type: 'video' },
  });
  assert.equal(marked.status, 200, JSON.stringify(marked.body));
  assert.equal(marked.body.data.is_global, true);
  const withIt = (await call(`${base}/outputs/develop/collections?input_type=image`, { headers: as('dev') })).body.data;
  assert.ok(withIt.some((c: any) => c.id === other && c.output_type === 'video'));
  await call(`${base}/nft/collections/${other}/global`, { method: 'PUT', headers: as(), body: { is_global: false } });
  await stopCli(first.child);

  // A restart creates nothing twice.
  await startCli(env);
  const again = (await call(`${base}/outputs/develop/collections?input_type=image`, { headers: as('dev') })).body.data;
  assert.deepEqual(again.map((c: any) => c.title).sort(), ['Animate', 'Variation']);
});

/**
 * The video provider's signed webhook (docs/video.md): a Mux-style signed `video.asset.ready`
 * sets the stored file's asset and playback ids and the feed then plays the output through HLS;
 * a bad signature, a stale timestamp and a missing header change nothing (401); without a
 * configured secret the route answers 503.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { collections, decks, flatFiles, outputs } from '../src/db/schema/index.ts';
import { signWebhook } from '../src/domain/webhook-signature.ts';
import { call, startTestPlatform, type TestPlatform } from './helpers/platform.ts';

const SECRET = 'video-webhook-secret-0123456789';
let p: TestPlatform;
before(async () => {
  p = await startTestPlatform({ VIDEO_WEBHOOK_SECRET: SECRET, VIDEO_WEBHOOK_TOLERANCE_SECONDS: '300' });
});
after(() => p.close());

const send = (event: unknown, opts: { secret?: string; t?: number; header?: string | null } = {}) => {
  const raw = JSON.stringify(event);
  const t = opts.t ?? Math.floor(Date.now() / 1000);
  const header = opts.header === undefined ? `t=${t},v1=${signWebhook(opts.secret ?? SECRET, t, raw)}` : opts.header;
  return call(`${p.backendUrl}/webhooks/video`, {
    raw,
    headers: { 'content-type': 'application/json', ...(header !== null ? { 'mux-signature': header } : {}) },
  });
};

test('signed video.asset.ready sets the playback id; the feed item carries the HLS URL; bad, stale and unsigned calls change nothing', async () => {
  const [c] = await p.database.db
    .insert(collections)
    .values({ title: 'Clips', data: { version: 'v2' } })
    .returning();
  const [d] = await p.database.db.insert(decks).values({ collection_id: c!.id, name: 'clips', output_count: 1 }).returning();
  const [file] = await p.database.db
    .insert(flatFiles)
    .values({ url: 'generations/clip.mp4', mime_type: 'video/mp4', rel_type: 'output' })
    .returning();
  const [out] = await p.database.db
    .insert(outputs)
    .values({
      collection_id: c!.id,
      deck_id: d!.id,
      status: 'completed',
      url: 'https://cdn.test/clip.mp4',
      mime_type: 'video/mp4',
      flat_file_id: file!.id,
      completed_at: new Date(),
    })
    .returning();
  const feedItem = async () => (await call(`${p.backendUrl}/miniapp/decks/${d!.id}/outputs`)).body.data.outputs[0];
  assert.equal((await feedItem()).playback.type, 'direct');

  const ready = {
    type: 'video.asset.ready',
    id: 'evt-1',
    object: { type: 'asset', id: 'asset-abc' },
    data: { id: 'asset-abc', status: 'ready', passthrough: out!.id, playback_ids: [{ id: 'play-xyz', policy: 'public' }] },
  };
  // Refused: a wrong secret, a stale timestamp (a replay), no header, a malformed header.
  const wrong = await send(ready, { secret: 'another-secret-0123456789' });
  assert.equal(wrong.status, 401);
  assert.match(wrong.body.error, /does not match/);
  const stale = await send(ready, { t: Math.floor(Date.now() / 1000) - 301 });
  assert.equal(stale.status, 401);
  assert.match(stale.body.error, /replay/);
  assert.equal((await send(ready, { header: null })).status, 401);
  assert.equal((await send(ready, { header: 'garbage' })).status, 401);
  const [untouched] = await p.database.db.select().from(flatFiles).where(eq(flatFiles.id, file!.id));
  assert.equal(untouched!.stream_playback_id, null);
  assert.equal(untouched!.stream_asset_id, null);

  const res = await send(ready);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body.data, {
    applied: true,
    event: 'video.asset.ready',
    flat_file_id: file!.id,
    stream_asset_id: 'asset-abc',
    stream_playback_id: 'play-xyz',
  });
  const item = await feedItem();
  assert.equal(item.stream_playback_id, 'play-xyz');
  assert.equal(item.stream_asset_id, 'asset-abc');
  assert.deepEqual(item.playback, {
    type: 'hls',
    url: 'https://stream.mux.com/play-xyz.m3u8',
    thumbnail_url: 'https://image.mux.com/play-xyz/thumbnail.jpg',
  });

  // Other events are acknowledged and ignored; deletion by asset id (no passthrough) clears both.
  const other = await send({ type: 'video.upload.created', data: { id: 'u1' } });
  assert.equal(other.status, 200);
  assert.equal(other.body.data.applied, false);
  const deleted = await send({ type: 'video.asset.deleted', data: { id: 'asset-abc' } });
  assert.equal(deleted.body.data.applied, true);
  assert.equal((await feedItem()).playback.type, 'direct');
  // A passthrough number beyond a file id's range names no file (never a database error).
  const huge = await send({ type: 'video.asset.ready', data: { id: 'a-huge', passthrough: '9999999999' } });
  assert.equal(huge.status, 200, JSON.stringify(huge.body));
  assert.equal(huge.body.data.applied, false);
  const bad = await send({ type: 'video.asset.ready', data: {} });
  assert.equal(bad.status, 400);
  assert.match(bad.body.error, /data\.id/);
});

test('without VIDEO_WEBHOOK_SECRET the webhook answers 503', async () => {
  const bare = await startTestPlatform();
  try {
    const raw = JSON.stringify({ type: 'video.asset.ready', data: { id: 'a' } });
    const t = Math.floor(Date.now() / 1000);
    const res = await call(`${bare.backendUrl}/webhooks/video`, {
      raw,
      headers: { 'content-type': 'application/json', 'mux-signature': `t=${t},v1=${signWebhook('x', t, raw)}` },
    });
    assert.equal(res.status, 503);
    assert.match(res.body.error, /VIDEO_WEBHOOK_SECRET/);
  } finally {
    await bare.close();
  }
});

/**
 * SSE fan-out by notification (docs/jobs.md "SSE stream"): many streams of one job are fed by one
 * shared reader woken by the job_history NOTIFY. The job's events are written through a second
 * database handle (on PostgreSQL a second connection pool, as a worker process would), and the
 * safety read is set far beyond the test's patience, so only the notification can deliver them.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openDatabase, type Database } from '../src/db/client.ts';
import { applyJobEvent } from '../src/generation/job-store.ts';
import { InProcessQueue } from '../src/queue/index.ts';
import type { StepPayload } from '../src/generation/pipeline.ts';
import { bearer, client, svc, userToken } from './helpers/content.ts';
import { sampleData, startTestPlatform, type TestPlatform } from './helpers/platform.ts';

let p: TestPlatform;
let writer: Database;
const queue = new InProcessQueue<StepPayload>('generation');

before(async () => {
  // No worker: the job stays queued until this test writes its events.
  p = await startTestPlatform({ JOB_STREAMS_PER_USER: '3' }, { jobQueue: queue, sse: { heartbeatMs: 60_000, safetyReadMs: 600_000 } });
  writer = p.database.url ? await openDatabase({ url: p.database.url, poolSize: 2 }) : p.database;
});
after(async () => {
  if (writer !== p.database) await writer.close();
  await queue.close();
  await p.close();
});

/** Reads one SSE stream to its end, recording the time each `job_history` event arrived. */
async function openStream(jobId: string) {
  const res = await fetch(`${p.backendUrl}/api/jobs/${jobId}/stream`, { headers: svc() });
  assert.equal(res.status, 200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const seen: Array<{ id: number; at: number }> = [];
  let text = '';
  const done = (async () => {
    for (;;) {
      const { value, done: end } = await reader.read();
      if (end) return;
      text += decoder.decode(value, { stream: true });
      let cut = text.indexOf('\n\n');
      while (cut >= 0) {
        const block = text.slice(0, cut);
        text = text.slice(cut + 2);
        if (block.includes('event: job_history')) {
          const id = Number(/^id: (\d+)/m.exec(block)?.[1]);
          seen.push({ id, at: Date.now() });
        }
        cut = text.indexOf('\n\n');
      }
    }
  })();
  return { seen, done };
}

test('50 streams of one job each get every new entry once, woken by the notification of another connection', async () => {
  const api = client(p);
  const created = await api('/nft/collections', svc('creator'), { body: { title: 'Streams', data: sampleData() } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const gen = await api(`/api/collections/${created.body.data.collection.id}/generate`, svc('creator'), { body: { variables: {} } });
  assert.equal(gen.status, 202, JSON.stringify(gen.body));
  const jobId: string = gen.body.data.jobId;

  const streams = await Promise.all(Array.from({ length: 50 }, () => openStream(jobId)));
  await new Promise((r) => setTimeout(r, 300)); // every stream subscribed

  const t0 = Date.now();
  await applyJobEvent(writer.db, jobId, { type: 'node_started', stepOrder: 0, retryAttempt: 0, totalSteps: 1, stepName: 'image' });
  await applyJobEvent(writer.db, jobId, { type: 'error', message: 'stopped by the stream test', source: 'failsafe', force: true });

  await Promise.race([
    Promise.all(streams.map((s) => s.done)),
    new Promise((_, reject) => setTimeout(() => reject(new Error('streams did not end within 10 s')), 10_000)),
  ]);
  for (const s of streams) {
    const ids = s.seen.map((e) => e.id);
    assert.equal(ids.length, new Set(ids).size, `an entry was sent twice: ${ids}`);
    assert.ok(ids.length >= 2, `expected the started and failed entries, got ${ids}`);
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => a - b),
      'entries in order',
    );
  }
  const latest = Math.max(...streams.flatMap((s) => s.seen.map((e) => e.at - t0)));
  assert.ok(latest < 5_000, `delivery took ${latest} ms (the safety read is 10 minutes away)`);
});

test('a Last-Event-ID beyond any history id is a 400 naming it (not a stream that ends at once)', async () => {
  const res = await fetch(`${p.backendUrl}/api/jobs/00000000-0000-4000-8000-000000000000/stream`, {
    headers: { ...svc(), 'last-event-id': '99999999999999999999999' },
  });
  assert.equal(res.status, 400);
  assert.match(((await res.json()) as { error: string }).error, /Last-Event-ID/);
});

test('a job_update is never older than the history entries it travels with (one snapshot per read)', async () => {
  const api = client(p);
  const created = await api('/nft/collections', svc('creator'), { body: { title: 'Snapshot', data: sampleData() } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const gen = await api(`/api/collections/${created.body.data.collection.id}/generate`, svc('creator'), { body: { variables: {} } });
  const jobId: string = gen.body.data.jobId;

  // Every frame in arrival order: job_history entries carry the progress they recorded.
  const res = await fetch(`${p.backendUrl}/api/jobs/${jobId}/stream`, { headers: svc() });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const frames: Array<{ event: string; data: { progress: number | null; status: string } }> = [];
  const done = (async () => {
    let text = '';
    for (;;) {
      const { value, done: end } = await reader.read();
      if (end) return;
      text += decoder.decode(value, { stream: true });
      for (let cut = text.indexOf('\n\n'); cut >= 0; cut = text.indexOf('\n\n')) {
        const block = text.slice(0, cut);
        text = text.slice(cut + 2);
        const event = /^event: (.+)$/m.exec(block)?.[1];
        const data = /^data: (.+)$/m.exec(block)?.[1];
        if (event === 'job_update' || event === 'job_history') frames.push({ event, data: JSON.parse(data!) });
      }
    }
  })();
  await new Promise((r) => setTimeout(r, 200));

  // Progress written as fast as the writer can, while the stream's reader reads between writes.
  const step = { stepOrder: 0, retryAttempt: 0, totalSteps: 1 };
  await applyJobEvent(writer.db, jobId, { type: 'node_started', ...step, stepName: 'image' });
  for (let pct = 1; pct <= 60; pct++) await applyJobEvent(writer.db, jobId, { type: 'node_progress', ...step, progress: pct });
  await applyJobEvent(writer.db, jobId, { type: 'error', message: 'stopped by the snapshot test', source: 'failsafe', force: true });
  await Promise.race([done, new Promise((_, reject) => setTimeout(() => reject(new Error('the stream did not end within 10 s')), 10_000))]);

  let newestEntry = 0;
  for (const f of frames) {
    if (f.event === 'job_history') newestEntry = Math.max(newestEntry, f.data.progress ?? 0);
    else if (f.data.status === 'processing') {
      assert.ok((f.data.progress ?? 0) >= newestEntry, `job_update at ${f.data.progress} % after an entry at ${newestEntry} %`);
    }
  }
  assert.equal(frames.at(-1)?.event, 'job_update');
  assert.equal(frames.at(-1)?.data.status, 'failed', 'the stream ends on the terminal status');
});

test('a signed-in user holds at most JOB_STREAMS_PER_USER open streams (429 with Retry-After); a closed one frees its place', async () => {
  const api = client(p);
  const dana = bearer(await userToken('dana-streams'));
  const created = await api('/nft/collections', dana, { body: { title: 'Dana streams', data: sampleData() } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const gen = await api(`/api/collections/${created.body.data.collection.id}/generate`, dana, { body: { variables: {} } });
  assert.equal(gen.status, 202, JSON.stringify(gen.body));
  const url = `${p.backendUrl}/api/jobs/${gen.body.data.jobId}/stream`;

  const open = await Promise.all(
    Array.from({ length: 3 }, async () => {
      const ctl = new AbortController();
      const res = await fetch(url, { headers: dana, signal: ctl.signal });
      assert.equal(res.status, 200);
      return ctl;
    }),
  );
  const refused = await fetch(url, { headers: dana });
  assert.equal(refused.status, 429);
  assert.ok(Number(refused.headers.get('retry-after')) >= 1);
  assert.match(((await refused.json()) as { error: string }).error, /at most 3 per user/);
  // The operator is not counted.
  const operator = new AbortController();
  assert.equal((await fetch(url, { headers: svc(), signal: operator.signal })).status, 200);

  open[0]!.abort();
  let again: Response | undefined;
  for (let i = 0; i < 50 && again?.status !== 200; i++) {
    await new Promise((r) => setTimeout(r, 50));
    again = await fetch(url, { headers: dana });
  }
  assert.equal(again?.status, 200, 'a place is free again once a stream is closed');
  await again?.body?.cancel();
  for (const c of [...open, operator]) c.abort();
});

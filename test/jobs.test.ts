/**
 * Generation jobs end to end (docs/api/content.md §3 Job, §4.3, §6.1), on both queue
 * implementations: generate → worker → output completed with a stored PNG and thumbnail → job
 * completed with workflow_output; the SSE stream read by a real EventSource client.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { EventSource } from 'eventsource';
import { jobHistory } from '../src/db/schema/index.ts';
import { bearer, client, svc, userToken } from './helpers/content.ts';
import { readSteps, flakyConnector, startJobsPlatform, waitFor, type JobsPlatform, type QueueKind } from './helpers/jobs.ts';
import { SERVICE_KEY, sampleData } from './helpers/platform.ts';

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

interface SseEvent {
  type: string;
  data: any;
  id: string;
}

/** Reads the job stream with the `eventsource` package (headers through its fetch option) until the job ends. */
function readStream(p: JobsPlatform, jobId: string, headers: Record<string, string>, lastEventId?: string): Promise<SseEvent[]> {
  return new Promise((resolve, reject) => {
    const events: SseEvent[] = [];
    const es = new EventSource(`${p.backendUrl}/api/jobs/${jobId}/stream`, {
      fetch: (input, init) =>
        fetch(input, {
          ...init,
          headers: { ...(init?.headers as Record<string, string>), ...headers, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
        }),
    });
    const timer = setTimeout(() => {
      es.close();
      reject(new Error(`stream did not finish: ${JSON.stringify(events.map((e) => e.type))}`));
    }, 90_000);
    for (const type of ['history_init', 'job_update', 'job_history']) {
      es.addEventListener(type, (e) => {
        const ev = e as MessageEvent;
        events.push({ type, data: JSON.parse(ev.data), id: ev.lastEventId });
        if (type === 'job_update' && ['completed', 'failed'].includes(events.at(-1)!.data.status)) {
          clearTimeout(timer);
          es.close();
          resolve(events);
        }
      });
    }
    es.addEventListener('error', (e) => {
      if ((e as { code?: number }).code && (e as { code?: number }).code! >= 400) {
        clearTimeout(timer);
        es.close();
        reject(new Error(`stream error ${(e as { code?: number }).code}`));
      }
    });
  });
}

/** Raw stream text until the server ends it (for heartbeat and Last-Event-ID checks). */
async function rawStream(p: JobsPlatform, jobId: string, headers: Record<string, string>) {
  const res = await fetch(`${p.backendUrl}/api/jobs/${jobId}/stream`, { headers });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

function parseSse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((b) => b.includes('event:'))
    .map((block) => {
      const lines = block.split('\n');
      const get = (k: string) => lines.find((l) => l.startsWith(`${k}: `))?.slice(k.length + 2) ?? '';
      return { type: get('event'), data: JSON.parse(get('data')), id: get('id') };
    });
}

for (const kind of ['in-process', 'bullmq'] as QueueKind[]) {
  describe(`generation jobs (${kind} queue)`, () => {
    let p: JobsPlatform;
    let api: ReturnType<typeof client>;
    let collectionId: string;
    const failures = { left: 0 };

    before(async () => {
      p = await startJobsPlatform(kind, { env: { CREDITS_INITIAL_GRANT: '3' }, connectorFor: flakyConnector(failures) });
      api = client(p);
      const res = await api('/nft/collections', svc('creator'), { body: { title: 'Jobs', data: sampleData() } });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      collectionId = res.body.data.collection.id;
    });
    after(() => p.close());

    const generate = (body: Record<string, unknown>, headers: Record<string, string> = svc('creator'), id = collectionId) =>
      api(`/api/collections/${id}/generate`, headers, { body });
    const job = async (id: string) => (await api(`/api/jobs/${id}`, svc())).body.data;
    const _waitJob = (id: string, status: string) =>
      waitFor(`job ${id} ${status}`, async () => {
        const j = await job(id);
        return j.status === status ? j : undefined;
      });

    test('generate → worker → PNG output with thumbnail → job completed; the EventSource stream shows it in order', async () => {
      const res = await generate({ variables: { color: 'red', animal: 'otter' }, workflow_priority: 70 });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      assert.deepEqual(Object.keys(res.body.data), ['jobId']);
      assert.equal(res.body.error, null);
      const jobId = res.body.data.jobId as string;

      const events = await readStream(p, jobId, { 'x-api-key': SERVICE_KEY });
      assert.equal(events[0]!.type, 'history_init');
      assert.ok(Array.isArray(events[0]!.data));
      const history = [...events[0]!.data, ...events.filter((e) => e.type === 'job_history').map((e) => e.data)];
      const ids = history.map((h: any) => h.id);
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => a - b),
        'history in id order',
      );
      assert.equal(new Set(ids).size, ids.length, 'no duplicates');
      const statuses = history.map((h: any) => h.status);
      assert.equal(statuses[0], 'pending');
      assert.ok(statuses.includes('processing'));
      assert.ok(
        history.some((h: any) => h.data?.event === 'node_progress'),
        'progress entries',
      );
      assert.equal(statuses.at(-1), 'completed');
      assert.equal(statuses.filter((s: string) => s === 'completed').length, 1);
      const progress = history.map((h: any) => h.progress).filter((x: unknown) => typeof x === 'number');
      assert.deepEqual(
        progress,
        [...progress].sort((a, b) => a - b),
        'progress never goes back',
      );
      const last = events.at(-1)!;
      assert.equal(last.type, 'job_update');
      assert.equal(last.data.status, 'completed');
      for (const e of events.filter((x) => x.type === 'job_history')) assert.equal(e.id, String(e.data.id));

      const j = await job(jobId);
      for (const k of [
        'id',
        'name',
        'description',
        'status',
        'progress',
        'error_message',
        'created_at',
        'updated_at',
        'started_at',
        'completed_at',
        'job_type',
        'priority',
        'workflow_output',
        'retry_count',
        'data',
      ]) {
        assert.ok(k in j, k);
      }
      assert.equal(j.status, 'completed');
      assert.equal(j.progress, 100);
      assert.equal(j.priority, 70);
      assert.equal(j.retry_count, 0);
      assert.equal(j.data.collectionId, collectionId);
      assert.equal(j.data.variables.color, 'red');
      assert.equal(j.data.variables.animal, 'otter');
      assert.equal(j.data.outputs.length, 1);
      assert.ok(j.workflow_output);

      const out = (await api(`/outputs/${j.output_id}`, svc('creator'))).body.data;
      assert.equal(out.status, 'completed');
      assert.equal(out.url, j.workflow_output);
      assert.equal(out.mime_type, 'image/png');
      const image = Buffer.from(await (await fetch(out.url)).arrayBuffer());
      assert.deepEqual(image.subarray(0, 4), PNG_MAGIC);
      const full = await p.database.db.execute(sql`select thumbnail_url, flat_file_id, deck_id from outputs where id = ${j.output_id}`);
      const row = (full as unknown as { rows: any[] }).rows[0];
      assert.ok(row.thumbnail_url, 'thumbnail');
      const thumb = Buffer.from(await (await fetch(row.thumbnail_url)).arrayBuffer());
      assert.equal(thumb.subarray(8, 12).toString('ascii'), 'WEBP');
      assert.ok(row.flat_file_id);

      // Steps: one per collection step, with the submission fields of docs/api/content.md §4.3.
      const steps = await readSteps(p.database.db, jobId);
      assert.equal(steps.length, 1);
      assert.equal(steps[0]!.status, 'completed');
      const input = steps[0]!.input_data as any;
      assert.equal(input.type, 'basic');
      assert.equal(input.payload.prompt, 'a red otter');
      assert.deepEqual(Object.keys(input.requirements).sort(), ['custom_nodes', 'models']);
      assert.deepEqual(
        { ...input.workflow_context, workflow_id: 'x' },
        { workflow_id: 'x', workflow_name: 'procedural', workflow_priority: 70, total_steps: 1, current_step: 0 },
      );

      // Forensics: the job with payload._flat_files.
      const f = (await api(`/api/jobs/${jobId}/forensics`, svc())).body.data;
      assert.equal(f.id, jobId);
      assert.equal(f.payload._flat_files.length, 1);
      assert.deepEqual(Object.keys(f.payload._flat_files[0]).sort(), ['id', 'mime_type', 'stream_asset_id', 'stream_playback_id', 'url']);
      assert.equal(f.payload._flat_files[0].id, row.flat_file_id);
      assert.equal(f.payload._flat_files[0].mime_type, 'image/png');

      // Last-Event-ID: a reconnect gets only what came after, then the stream ends (job done).
      const mid = ids[Math.floor(ids.length / 2)];
      const again = await rawStream(p, jobId, { 'x-api-key': SERVICE_KEY, 'last-event-id': String(mid) });
      assert.equal(again.status, 200);
      assert.match(again.type ?? '', /text\/event-stream/);
      const evs = parseSse(again.text);
      assert.equal(evs[0]!.type, 'history_init');
      assert.deepEqual(
        evs[0]!.data.map((h: any) => h.id),
        ids.filter((i: number) => i > mid),
      );
      assert.equal(evs[0]!.id, String(ids.at(-1)));
      assert.equal(evs[1]!.type, 'job_update');
    });

    test('a stream opened at once receives heartbeats and every event once; other users get 404', async () => {
      failures.left = 0;
      const res = await generate({ variables: { animal: 'heron' } });
      const jobId = res.body.data.jobId;
      const raw = await rawStream(p, jobId, { 'x-api-key': SERVICE_KEY });
      const evs = parseSse(raw.text);
      assert.equal(evs[0]!.type, 'history_init');
      const seen = [...evs[0]!.data.map((h: any) => h.id), ...evs.filter((e) => e.type === 'job_history').map((e) => e.data.id)];
      const all = (await p.database.db.select({ id: jobHistory.id }).from(jobHistory).where(eq(jobHistory.job_id, jobId))).map((r) => r.id);
      assert.deepEqual(
        seen,
        all.sort((a, b) => a - b),
      );
      assert.equal(evs.at(-1)!.data.status, 'completed');
      // Heartbeats appear as comment lines while the job runs (100 ms in tests); not asserted by count.
      const other = await rawStream(p, jobId, bearer(await userToken('stranger')));
      assert.equal(other.status, 404);
      const anon = await rawStream(p, jobId, {});
      assert.equal(anon.status, 401);
    });
  });
}

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createJobStreamHub, JOB_HISTORY_CHANNEL } from './job-stream-hub.ts';

interface Job {
  id: string;
  status: string;
}
interface Entry {
  id: number;
  job_id: string;
  text: string;
}

/** An in-memory job store (several jobs) with a notification channel, counting reads. */
function store() {
  const history: Entry[] = [];
  const jobs = new Map<string, Job>([['job-1', { id: 'job-1', status: 'running' }]]);
  const job = jobs.get('job-1')!;
  const listeners: Array<{ channel: string; onPayload: (p: string) => void; onReconnect?: () => void }> = [];
  let reads = 0;
  const cursorsRead: Array<Array<{ jobId: string; afterId: number }>> = [];
  return {
    job,
    jobs,
    cursorsRead,
    get reads() {
      return reads;
    },
    append(text: string, status?: string, jobId = 'job-1') {
      history.push({ id: history.length + 1, job_id: jobId, text });
      if (!jobs.has(jobId)) jobs.set(jobId, { id: jobId, status: 'running' });
      if (status) jobs.get(jobId)!.status = status;
      for (const l of listeners) if (l.channel === JOB_HISTORY_CHANNEL) l.onPayload(jobId);
    },
    reconnect() {
      for (const l of listeners) l.onReconnect?.();
    },
    ports: {
      async snapshots(cursors: Array<{ jobId: string; afterId: number }>, limit: number) {
        reads += 1;
        cursorsRead.push(cursors);
        await new Promise((r) => setImmediate(r));
        const found = new Map(cursors.flatMap((c) => (jobs.has(c.jobId) ? [[c.jobId, { ...jobs.get(c.jobId)! }] as const] : [])));
        const entries = history.filter((h) => cursors.some((c) => c.jobId === h.job_id && h.id > c.afterId)).slice(0, limit);
        return { jobs: found, history: entries };
      },
      async listen(channel: string, onPayload: (p: string) => void, onReconnect?: () => void) {
        const l = { channel, onPayload, onReconnect };
        listeners.push(l);
        return async () => void listeners.splice(listeners.indexOf(l), 1);
      },
      statusOf: (j: Job) => j.status,
    },
  };
}

const settle = () => new Promise((r) => setTimeout(r, 50));

function subscriber(lastId: number) {
  const got: number[] = [];
  let ended = false;
  return {
    got,
    ended: () => ended,
    sub: {
      lastId,
      deliver: (h: Entry[]) => got.push(...h.map((e) => e.id)),
      end: () => void (ended = true),
    },
  };
}

test('one read per notification however many streams watch the job', async () => {
  const s = store();
  const hub = createJobStreamHub(s.ports);
  const subs = Array.from({ length: 200 }, () => subscriber(0));
  for (const x of subs) await hub.subscribe('job-1', x.sub);
  await settle();
  const before = s.reads;
  assert.ok(before <= 3, `subscribing 200 streams read ${before} times`);
  s.append('a');
  await settle();
  assert.equal(s.reads - before, 1);
  for (const x of subs) assert.deepEqual(x.got, [1]);
  await hub.close();
});

test('each stream gets only the entries after its own cursor, in order, once', async () => {
  const s = store();
  s.append('a');
  s.append('b');
  const hub = createJobStreamHub(s.ports);
  const fromStart = subscriber(0);
  const fromTwo = subscriber(2);
  await hub.subscribe('job-1', fromStart.sub);
  await hub.subscribe('job-1', fromTwo.sub);
  await settle();
  s.append('c');
  s.append('d');
  await settle();
  assert.deepEqual(fromStart.got, [1, 2, 3, 4]);
  assert.deepEqual(fromTwo.got, [3, 4]);
  await hub.close();
});

test('a terminal entry ends every stream of the job, and the job is no longer watched', async () => {
  const s = store();
  const hub = createJobStreamHub(s.ports);
  const a = subscriber(0);
  const unsubscribe = await hub.subscribe('job-1', { ...a.sub, end: () => (a.sub.end(), unsubscribe()) });
  await settle();
  s.append('done', 'completed');
  await settle();
  assert.deepEqual(a.got, [1]);
  assert.equal(a.ended(), true);
  assert.equal(hub.watchedJobs(), 0);
  await hub.close();
});

test('a reconnect of the listener re-reads every watched job (notifications may have been lost)', async () => {
  const s = store();
  const hub = createJobStreamHub(s.ports);
  const a = subscriber(0);
  await hub.subscribe('job-1', a.sub);
  await settle();
  const before = s.reads;
  s.reconnect();
  await settle();
  assert.equal(s.reads - before, 1);
  await hub.close();
});

test('without notifications the safety read still delivers', async () => {
  const s = store();
  const hub = createJobStreamHub({ ...s.ports, listen: async () => async () => undefined }, { safetyReadMs: 30 });
  const a = subscriber(0);
  await hub.subscribe('job-1', a.sub);
  await settle();
  s.append('a');
  for (let i = 0; i < 100 && a.got.length === 0; i++) await new Promise((r) => setTimeout(r, 30));
  assert.deepEqual(a.got, [1]);
  await hub.close();
});

test("the jobs woken in one turn are read together, each stream getting only its own job's entries", async () => {
  const s = store();
  for (const id of ['job-2', 'job-3']) s.jobs.set(id, { id, status: 'running' });
  const hub = createJobStreamHub(s.ports);
  const streams = new Map(['job-1', 'job-2', 'job-3'].map((id) => [id, subscriber(0)]));
  for (const [id, x] of streams) await hub.subscribe(id, x.sub);
  await settle();
  const before = s.reads;
  s.append('a', undefined, 'job-1');
  s.append('b', undefined, 'job-2');
  s.append('c', undefined, 'job-3');
  s.append('d', undefined, 'job-1');
  await settle();
  assert.equal(s.reads - before, 1, 'one read for three jobs woken in one turn');
  assert.deepEqual(
    s.cursorsRead
      .at(-1)!
      .map((c) => c.jobId)
      .sort(),
    ['job-1', 'job-2', 'job-3'],
  );
  assert.deepEqual(streams.get('job-1')!.got, [1, 4]);
  assert.deepEqual(streams.get('job-2')!.got, [2]);
  assert.deepEqual(streams.get('job-3')!.got, [3]);
  await hub.close();
});

test('a cut page is read on until the end, and a terminal job ends only after its last entry', async () => {
  const s = store();
  const hub = createJobStreamHub(s.ports, { page: 2 });
  const a = subscriber(0);
  await hub.subscribe('job-1', a.sub);
  await settle();
  // Five entries and the end, all committed before the stream reads (pages of 2).
  for (const t of ['a', 'b', 'c', 'd']) s.append(t);
  s.append('done', 'completed');
  for (let i = 0; i < 50 && !a.ended(); i++) await settle();
  assert.deepEqual(a.got, [1, 2, 3, 4, 5]);
  assert.equal(a.ended(), true);
  await hub.close();
});

test('after close, a new stream ends at once and no LISTEN is opened, also for one subscribing during close', async () => {
  const s = store();
  let listens = 0;
  const ports = { ...s.ports, listen: (...a: Parameters<typeof s.ports.listen>) => ((listens += 1), s.ports.listen(...a)) };
  const hub = createJobStreamHub(ports);
  const early = subscriber(0);
  await hub.subscribe('job-1', early.sub);
  assert.equal(listens, 1);
  // One subscribing while close() runs, and one after it.
  const during = subscriber(0);
  const racing = hub.subscribe('job-1', during.sub);
  await hub.close();
  await racing;
  const late = subscriber(0);
  const stop = await hub.subscribe('job-1', late.sub);
  stop();
  assert.equal(late.ended(), true, 'a stream after close ends at once');
  assert.equal(listens, 1, 'no LISTEN opened after close');
  assert.equal(hub.watchedJobs(), 0);
});

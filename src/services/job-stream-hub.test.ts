import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createJobStreamHub, JOB_HISTORY_CHANNEL } from './job-stream-hub.ts';

interface Job {
  status: string;
}
interface Entry {
  id: number;
  text: string;
}

/** An in-memory job store with a notification channel, counting reads. */
function store() {
  const history: Entry[] = [];
  const job: Job = { status: 'running' };
  const listeners: Array<{ channel: string; onPayload: (p: string) => void; onReconnect?: () => void }> = [];
  let reads = 0;
  return {
    job,
    get reads() {
      return reads;
    },
    append(text: string, status?: string) {
      history.push({ id: history.length + 1, text });
      if (status) job.status = status;
      for (const l of listeners) if (l.channel === JOB_HISTORY_CHANNEL) l.onPayload('job-1');
    },
    reconnect() {
      for (const l of listeners) l.onReconnect?.();
    },
    ports: {
      async snapshot(_jobId: string, afterId: number, limit: number) {
        reads += 1;
        await new Promise((r) => setImmediate(r));
        return { job: { ...job }, history: history.filter((h) => h.id > afterId).slice(0, limit) };
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

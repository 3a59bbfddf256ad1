/**
 * Drain of `atelier backend` as an operator runs it (bin/atelier.js, a real child process on
 * PostgreSQL and Redis; docs/operations.md "Graceful shutdown"): SIGTERM while a request is in
 * flight on a keep-alive connection and a job's event stream is open. The stream gets a final
 * `reconnect` event and ends at once; the request is answered with `Connection: close`; and the
 * process exits within 2 s of that answer although SHUTDOWN_GRACE_MS is 25 s.
 */
process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { CLI } from '../helpers/cli.ts';
import { setupDb, SERVICE_KEY } from '../helpers/kit.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { REDIS_URL } from '../helpers/jobs.ts';
import { sampleData } from '../helpers/platform.ts';
import { waitFor } from '../helpers/wait.ts';

let db: TestDatabase;
before(async () => {
  db = await setupDb();
});
after(() => db.close());

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });

test('SIGTERM: the open stream ends with a reconnect event, the in-flight request is answered with Connection: close, exit within 2 s of it', async () => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // A Redis database of its own: no other test's worker takes this job (it stays queued, its stream open).
  const redisDb = 1 + (process.pid % 15);
  const child = spawn(process.execPath, [CLI, 'backend'], {
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: db.url!,
      REDIS_URL: `${REDIS_URL.replace(/\/\d*$/, '')}/${redisDb}`,
      PORT: String(port),
      PUBLIC_BASE_URL: base,
      API_KEY: SERVICE_KEY,
      DEV_CHAIN: 'false',
      LOG_LEVEL: 'warn',
      SHUTDOWN_GRACE_MS: '25000',
      DATA_DIR: `/tmp/atelier-backend-drain-${process.pid}`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; at: number }>((r) => child.on('exit', (code) => r({ code, at: Date.now() })));
  const guard = setTimeout(() => child.kill('SIGKILL'), 90_000);
  try {
    await waitFor('backend listening', async () => (out.includes('backend listening') ? true : undefined), 45_000, 50);
    const headers = { 'x-api-key': SERVICE_KEY, user_id: 'creator', 'content-type': 'application/json' };
    const created = await fetch(`${base}/nft/collections`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ title: 'Drain', data: sampleData() }),
    });
    assert.equal(created.status, 201, await created.clone().text());
    const collectionId = ((await created.json()) as { data: { collection: { id: string } } }).data.collection.id;
    const gen = await fetch(`${base}/api/collections/${collectionId}/generate`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ variables: {} }),
    });
    assert.equal(gen.status, 202, await gen.clone().text());
    const jobId = ((await gen.json()) as { data: { jobId: string } }).data.jobId;

    // The job's stream, open (no worker runs here, so the job stays queued).
    const stream = await fetch(`${base}/api/jobs/${jobId}/stream`, { headers: { 'x-api-key': SERVICE_KEY } });
    assert.equal(stream.status, 200);
    const reader = stream.body!.getReader();
    const decoder = new TextDecoder();
    let streamText = '';
    const streamEnded = (async () => {
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const, error: true }));
        if (done) return Date.now();
        streamText += decoder.decode(value, { stream: true });
      }
    })();
    await waitFor('the stream began', async () => (streamText.includes('event: job_update') ? true : undefined), 10_000);

    // A request in flight on a keep-alive connection: headers sent, the body still coming.
    const body = JSON.stringify({ title: 'In flight', data: sampleData() });
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    let answer = '';
    socket.on('data', (d) => (answer += d.toString()));
    const socketClosed = new Promise<number>((r) => socket.once('close', () => r(Date.now())));
    socket.write(
      `POST /nft/collections HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: keep-alive\r\nx-api-key: ${SERVICE_KEY}\r\nuser_id: creator\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
    );
    await new Promise((r) => setTimeout(r, 200));

    const signalledAt = Date.now();
    child.kill('SIGTERM');
    // The stream's final event comes at once, not at the grace deadline, and ends the stream.
    const endedAt = await streamEnded;
    assert.ok(endedAt - signalledAt < 3000, `stream ended ${endedAt - signalledAt} ms after SIGTERM`);
    assert.match(streamText, /event: reconnect\ndata: \{"reason":"shutting_down"/, streamText);
    assert.equal(child.exitCode, null, 'the process is still waiting for the request in flight');

    // The rest of the body: the request is answered (201), with Connection: close.
    socket.write(body.slice(10));
    await waitFor('the answer', async () => (/\r\n\r\n[\s\S]*\}/.test(answer) ? true : undefined), 10_000);
    const answeredAt = Date.now();
    assert.match(answer, /^HTTP\/1\.1 201/, answer);
    assert.match(answer, /\r\nconnection: close\r\n/i, answer);
    const closedAt = await socketClosed;
    assert.ok(closedAt - answeredAt < 2000, 'the server closed the connection after the answer');

    const { code, at } = await exited;
    assert.equal(code, 0, out);
    const afterAnswer = at - answeredAt;
    assert.ok(afterAnswer < 2000, `exited ${afterAnswer} ms after the answer (grace 25 s)`);
    console.log(`# backend exited ${afterAnswer} ms after the in-flight answer; stream ended ${endedAt - signalledAt} ms after SIGTERM`);
  } finally {
    clearTimeout(guard);
    child.kill('SIGKILL');
  }
});

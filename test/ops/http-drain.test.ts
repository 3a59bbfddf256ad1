/**
 * HTTP drain on shutdown (src/startup/graceful.ts closeAppWithin), over real sockets: a request in
 * flight when the stop begins finishes within the grace period and gets its answer, while new
 * connections are refused; a request still running when the grace is over has its connection
 * closed and the stop does not wait for it.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { createAppShell } from '../../src/http/plugins/shell.ts';
import { testConfig } from '../../src/config.ts';
import { closeAppWithin } from '../../src/startup/graceful.ts';

async function slowApp(ms: number) {
  const app = await createAppShell({ config: testConfig({ LOG_LEVEL: 'silent' }), title: 't', description: 't' });
  let started!: () => void;
  const inFlight = new Promise<void>((r) => (started = r));
  app.get('/slow', { config: { public: true } }, async () => {
    started();
    // unref: a request cut off by the test must not keep the test process alive.
    await new Promise((r) => setTimeout(r, ms).unref());
    return { done: true };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, inFlight };
}

test('a request in flight finishes within the grace; new connections are refused meanwhile', async () => {
  const { app, url, inFlight } = await slowApp(800);
  const pending = fetch(`${url}/slow`).then(async (r) => ({ status: r.status, body: await r.json() }));
  await inFlight;
  const closing = closeAppWithin(app, 5000);
  await new Promise((r) => setTimeout(r, 100));
  await assert.rejects(fetch(`${url}/healthz`), 'no new connection while draining');
  assert.deepEqual(await pending, { status: 200, body: { done: true } });
  await closing;
});

test('past the grace the connection of a request still running is closed and the stop ends', async () => {
  const { app, url, inFlight } = await slowApp(30_000);
  const pending = fetch(`${url}/slow`).then(
    () => 'answered',
    () => 'connection closed',
  );
  await inFlight;
  const t0 = Date.now();
  await closeAppWithin(app, 300);
  assert.ok(Date.now() - t0 < 5000, `stopped after ${Date.now() - t0} ms`);
  assert.equal(await pending, 'connection closed');
});

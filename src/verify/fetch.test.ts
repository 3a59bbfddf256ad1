/** `atelier verify`'s downloads are read as they arrive and cut off past the cap. */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { FetchError, readCapped } from './fetch.ts';

let server: http.Server;
let base = '';
let sent = 0;
before(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/declared') {
      res.writeHead(200, { 'content-length': String(10_000) }).end(Buffer.alloc(10_000));
      return;
    }
    // Chunked, no length: an endless body unless the reader stops.
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    const tick = () => {
      if (res.destroyed) return;
      sent += 1024;
      if (res.write(Buffer.alloc(1024))) setImmediate(tick);
      else res.once('drain', tick);
    };
    tick();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  return new Promise((r) => server.close(r));
});

test('a body under the cap is read whole', async () => {
  const res = await fetch(`${base}/declared`);
  assert.equal((await readCapped('x', res, 20_000)).length, 10_000);
});

test('a declared length over the cap is refused before reading', async () => {
  const res = await fetch(`${base}/declared`);
  await assert.rejects(readCapped('x', res, 5_000), (e: unknown) => e instanceof FetchError && /content-length 10000/.test(e.message));
});

test('an endless body is cut off just past the cap', async () => {
  const res = await fetch(`${base}/endless`);
  await assert.rejects(
    readCapped('x', res, 64 * 1024),
    (e: unknown) => e instanceof FetchError && /larger than 65536 bytes/.test(e.message),
  );
  assert.ok(sent < 16 * 1024 * 1024, `the server was stopped early (${sent} bytes sent)`);
});

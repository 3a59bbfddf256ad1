/**
 * The admin proxy's calls to the backend (docs/api/nft.md §5.2): headers Content-Type:
 * application/json and Authorization: Bearer <API_KEY>, the operator's user_id, a user's own
 * credential instead of the key; backend errors keep their status and message. A real HTTP server
 * stands in for the backend and records what arrives.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { AppError } from '../../domain/errors.ts';
import { createBackendClient } from './backend-client.ts';

const KEY = 'k'.repeat(40);
const seen: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }> = [];
let server: http.Server;
let url: string;

before(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      res.setHeader('content-type', 'application/json');
      if (req.url!.startsWith('/missing')) {
        res.statusCode = 404;
        res.end(JSON.stringify({ data: null, error: 'collection x not found' }));
      } else res.end(JSON.stringify({ data: { ok: true }, error: null }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((r) => server.close(() => r())));

test('every call carries Content-Type: application/json and Authorization: Bearer <API_KEY> (§5.2)', async () => {
  const client = createBackendClient(url, KEY);
  seen.length = 0;
  assert.deepEqual(await client.call('GET', 'nft/collections/abc', { query: { a: '1' } }), { ok: true });
  await client.call('POST', 'nft/collections/abc/reset', { userId: 'u-1' });
  await client.call('PUT', 'nft/collections/abc', { body: { title: 't' } });
  assert.equal(seen.length, 3);
  for (const r of seen) {
    assert.equal(r.headers['content-type'], 'application/json', `${r.method} ${r.url}`);
    assert.equal(r.headers.authorization, `Bearer ${KEY}`, `${r.method} ${r.url}`);
  }
  assert.equal(seen[0]!.url, '/nft/collections/abc?a=1');
  assert.equal(seen[1]!.headers.user_id, 'u-1');
  assert.equal(seen[2]!.body, '{"title":"t"}');
});

test("a user's call carries the user's credential, never the key or a user_id", async () => {
  const client = createBackendClient(url, KEY);
  seen.length = 0;
  await client.call('GET', 'nft/collections/abc', { credential: 'user-jwt', userId: 'ignored' });
  assert.equal(seen[0]!.headers.authorization, 'Bearer user-jwt');
  assert.equal(seen[0]!.headers.user_id, undefined);
  assert.equal(seen[0]!.headers['content-type'], 'application/json');
});

test('a backend error keeps its status and message', async () => {
  const client = createBackendClient(url, KEY);
  await assert.rejects(
    client.call('GET', 'missing'),
    (e) => e instanceof AppError && e.kind === 'not_found' && e.message === 'collection x not found',
  );
  await assert.rejects(createBackendClient(undefined, KEY).call('GET', 'x'), /BACKEND_API_URL is not configured/);
});

/**
 * The guarded fetcher against real HTTP listeners on loopback: a refused fetch must open no
 * connection to the listener (counted by the server's connection event).
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { guardedFetch, OutsideFetchError, type Resolver } from './guarded-fetch.ts';

type Listener = { url: string; origin: string; connections: number; server: http.Server };

async function listen(handler: http.RequestListener): Promise<Listener> {
  const server = http.createServer(handler);
  const l = { url: '', origin: '', connections: 0, server };
  server.on('connection', () => l.connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  l.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  l.url = `${l.origin}/x`;
  return l;
}

let internal: Listener;
let allowed: Listener;
let other: Listener;
const otherHeaders: http.IncomingHttpHeaders[] = [];
before(async () => {
  other = await listen((req, res) => {
    otherHeaders.push(req.headers);
    res.end('{}');
  });
  internal = await listen((_req, res) => res.end('secret'));
  allowed = await listen((req, res) => {
    if (req.url === '/redirect') res.writeHead(302, { location: internal.url }).end();
    else if (req.url === '/redirect-other') res.writeHead(302, { location: `${other.origin}/seen` }).end();
    else if (req.url === '/big') res.end(Buffer.alloc(2048));
    else if (req.url === '/slow') setTimeout(() => res.end('late'), 2000);
    else res.end('{"ok":true}');
  });
});
after(() => {
  internal.server.close();
  allowed.server.close();
  other.server.close();
});

const refused = (code: string) => (err: unknown) => err instanceof OutsideFetchError && err.code === code;

test('an IP literal in a reserved range is refused before any connection', async () => {
  await assert.rejects(guardedFetch(internal.url), refused('BLOCKED'));
  await assert.rejects(guardedFetch(`http://[::ffff:127.0.0.1]:${new URL(internal.url).port}/`), refused('BLOCKED'));
  assert.equal(internal.connections, 0);
});

test('a host name that resolves to loopback is refused at connect time', async () => {
  const toLoopback: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
  const port = new URL(internal.url).port;
  await assert.rejects(guardedFetch(`http://innocent.example:${port}/`, { resolve: toLoopback }), refused('BLOCKED'));
  // A rebinding resolver answers differently each time: the fetcher asks once, when the socket
  // connects, and checks that answer (no earlier "check" resolution for a rebinder to pass).
  let calls = 0;
  const rebinding: Resolver = async () => (calls++ === 0 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '8.8.8.8', family: 4 }]);
  await assert.rejects(guardedFetch(`http://rebind.example:${port}/`, { resolve: rebinding }), refused('BLOCKED'));
  assert.equal(calls, 1);
  assert.equal(internal.connections, 0);
});

test('a redirect to an internal address is refused; the allowed origin alone may be internal', async () => {
  const ok = await guardedFetch(allowed.url, { allowOrigins: [allowed.origin] });
  assert.equal(ok.status, 200);
  assert.equal(ok.body.toString(), '{"ok":true}');
  await assert.rejects(guardedFetch(`${allowed.origin}/redirect`, { allowOrigins: [allowed.origin] }), refused('BLOCKED'));
  assert.equal(internal.connections, 0);
});

test('schemes other than http(s) and URLs with credentials are refused', async () => {
  await assert.rejects(guardedFetch('file:///etc/passwd'), refused('SCHEME'));
  await assert.rejects(guardedFetch('ftp://example.com/'), refused('SCHEME'));
  await assert.rejects(
    guardedFetch(`http://user:pw@${new URL(allowed.url).host}/`, { allowOrigins: [allowed.origin] }),
    refused('BLOCKED'),
  );
});

test('size cap and timeout', async () => {
  await assert.rejects(guardedFetch(`${allowed.origin}/big`, { allowOrigins: [allowed.origin], maxBytes: 1024 }), refused('TOO_LARGE'));
  await assert.rejects(guardedFetch(`${allowed.origin}/slow`, { allowOrigins: [allowed.origin], timeoutMs: 200 }), refused('TIMEOUT'));
});

test('a name resolving into any reserved range (IPv4, IPv6, mapped, NAT64) is refused at connect time', async () => {
  const port = new URL(internal.url).port;
  const samples = [
    '0.0.0.1',
    '10.0.0.1',
    '100.64.0.1',
    '127.0.0.1',
    '169.254.169.254',
    '172.16.0.1',
    '192.0.0.1',
    '192.0.2.1',
    '192.88.99.1',
    '192.168.0.1',
    '198.18.0.1',
    '198.51.100.1',
    '203.0.113.1',
    '224.0.0.1',
    '240.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '100::1',
    '2001:db8::1',
    'fc00::1',
    'fd12::1',
    'fe80::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '64:ff9b::7f00:1',
    '64:ff9b::a9fe:a9fe',
  ];
  for (const address of samples) {
    const resolve: Resolver = async () => [{ address, family: address.includes(':') ? 6 : 4 }];
    await assert.rejects(guardedFetch(`http://named.example:${port}/`, { resolve }), refused('BLOCKED'), address);
  }
  assert.equal(internal.connections, 0);
});

test('request headers go to the first origin only, never across a redirect', async () => {
  const res = await guardedFetch(`${allowed.origin}/redirect-other`, {
    allowOrigins: [allowed.origin, other.origin],
    headers: { 'x-api-key': 'secret-key' },
  });
  assert.equal(res.status, 200);
  assert.equal(otherHeaders.length, 1);
  assert.equal(otherHeaders[0]!['x-api-key'], undefined);
});

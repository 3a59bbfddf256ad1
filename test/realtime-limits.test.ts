/**
 * socket.io rooms are public (src/http/realtime.ts; docs/indexer.md): anyone may connect and join
 * `app:<address>` rooms. One connection joining rooms without end (every address is a valid room
 * name) would grow the server's room table without bound, so a connection holds at most
 * MAX_ROOMS_PER_SOCKET rooms: past that a subscribe is refused in its acknowledgement, and leaving
 * a room frees its place.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { io as connect, type Socket } from 'socket.io-client';
import { IndexerEvents } from '../src/indexer/events.ts';
import { MAX_ROOMS_PER_SOCKET, attachRealtime, type Realtime } from '../src/http/realtime.ts';

let srv: http.Server;
let rt: Realtime;
let url: string;
before(async () => {
  srv = http.createServer();
  rt = attachRealtime(srv, new IndexerEvents());
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
});
after(async () => {
  await rt.close();
  await new Promise((r) => srv.close(r));
});

const room = (i: number) => `app:0x${i.toString(16).padStart(40, '0')}`;
const send = (s: Socket, event: string, body: unknown) =>
  new Promise<{ ok: boolean; error?: string }>((resolve) => s.emit(event, body, resolve));

test('one connection holds a bounded number of rooms; leaving one frees its place', async () => {
  const s = connect(url, { transports: ['websocket'], forceNew: true });
  try {
    await new Promise<void>((resolve, reject) => {
      s.once('connect', () => resolve());
      s.once('connect_error', reject);
    });
    const flood = 3 * MAX_ROOMS_PER_SOCKET;
    const replies = await Promise.all(Array.from({ length: flood }, (_, i) => send(s, 'subscribe', { room: room(i + 1) })));
    const accepted = replies.filter((r) => r.ok).length;
    assert.equal(accepted, MAX_ROOMS_PER_SOCKET);
    const refused = replies.find((r) => !r.ok)!;
    assert.match(refused.error!, /^room: at most \d+ rooms per connection/);
    // The server's room table holds what was accepted (plus the connection's own room), not the flood.
    assert.ok(rt.io.of('/').adapter.rooms.size <= MAX_ROOMS_PER_SOCKET + 1, `rooms: ${rt.io.of('/').adapter.rooms.size}`);
    // Joining a room it is in again is fine; leaving one makes room for another.
    const first = replies.findIndex((r) => r.ok);
    assert.equal((await send(s, 'subscribe', { room: room(first + 1) })).ok, true);
    assert.equal((await send(s, 'unsubscribe', { room: room(first + 1) })).ok, true);
    assert.equal((await send(s, 'subscribe', { room: room(flood + 1) })).ok, true);
    assert.equal((await send(s, 'subscribe', { room: room(flood + 2) })).ok, false);
    // Not an address: refused as before.
    assert.equal((await send(s, 'subscribe', { room: 'app:<script>' })).ok, false);
  } finally {
    s.disconnect();
  }
});

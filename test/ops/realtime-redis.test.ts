/**
 * socket.io across processes (src/http/realtime.ts): two servers on the Redis adapter, as two
 * backend replicas, or the indexer process and a replica. An event published by server 1's
 * indexer reaches a client of server 2 in the event's room, and only there; a server without an
 * indexer of its own still serves rooms.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { io as connect, type Socket } from 'socket.io-client';
import { IndexerEvents } from '../../src/indexer/events.ts';
import { attachRealtime, type Realtime } from '../../src/http/realtime.ts';
import { REDIS_URL } from '../helpers/jobs.ts';
import { setupApps, setupDb } from '../helpers/kit.ts';

const closers: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const c of closers.reverse()) await c();
});

async function server(events: IndexerEvents | undefined, channel: string): Promise<{ url: string; rt: Realtime }> {
  const srv = http.createServer();
  const rt = attachRealtime(srv, events, { redisUrl: REDIS_URL, channel });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  closers.push(async () => {
    await rt.close();
    await new Promise((r) => srv.close(r));
  });
  return { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`, rt };
}

async function client(url: string): Promise<Socket> {
  const s = connect(url, { transports: ['websocket'], forceNew: true });
  closers.push(() => void s.disconnect());
  await new Promise<void>((resolve, reject) => {
    s.once('connect', () => resolve());
    s.once('connect_error', reject);
  });
  return s;
}

const join = (s: Socket, room: string) =>
  new Promise<{ ok: boolean }>((resolve) => s.emit('subscribe', { room }, (reply: { ok: boolean }) => resolve(reply)));

test('an event published by the indexer behind server 1 reaches the room’s client on server 2 only', async () => {
  const channel = `atelier-io-test-${randomBytes(4).toString('hex')}`;
  const indexerEvents = new IndexerEvents();
  await server(indexerEvents, channel); // the indexer process's server
  const two = await server(undefined, channel); // a backend replica without an indexer
  const room = `app:0x${'ab'.repeat(20)}`;
  const other = `app:0x${'cd'.repeat(20)}`;
  const inRoom = await client(two.url);
  const elsewhere = await client(two.url);
  assert.equal((await join(inRoom, room)).ok, true);
  assert.equal((await join(elsewhere, other)).ok, true);

  const gotElsewhere: unknown[] = [];
  elsewhere.on('emprops:appToken:transferred', (p) => gotElsewhere.push(p));
  const received = new Promise<unknown>((resolve) => inRoom.once('emprops:appToken:transferred', resolve));
  const created = new Promise<unknown>((resolve) => elsewhere.once('emprops:app:created', resolve));

  const payload = {
    tokenId: '7',
    appAddress: `0x${'ab'.repeat(20)}`,
    from: `0x${'00'.repeat(20)}`,
    to: `0x${'11'.repeat(20)}`,
    txHash: `0x${'22'.repeat(32)}`,
  };
  // The adapter's subscription may take a moment after the server starts: publish until heard.
  let heard: unknown;
  void received.then((p) => {
    heard = p;
  });
  for (let i = 0; i < 50 && heard === undefined; i++) {
    indexerEvents.publish({ name: 'emprops:appToken:transferred', room, payload });
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.deepEqual(heard, payload);
  assert.deepEqual(gotElsewhere, [], 'a client of another room gets nothing');

  // Events for every client (no room) cross too.
  const app = {
    appAddress: `0x${'ab'.repeat(20)}`,
    ownerTokenId: '1',
    type: 'collection',
    name: 'N',
    symbol: 'S',
    owner: `0x${'11'.repeat(20)}`,
  };
  indexerEvents.publish({ name: 'emprops:app:created', room: null, payload: app });
  assert.deepEqual(await created, app);
});

test('without a Redis URL a server without an indexer relays nothing from another server', async () => {
  const events = new IndexerEvents();
  const srv1 = http.createServer();
  const srv2 = http.createServer();
  const rt1 = attachRealtime(srv1, events);
  const rt2 = attachRealtime(srv2, undefined);
  await new Promise<void>((r) => srv1.listen(0, '127.0.0.1', r));
  await new Promise<void>((r) => srv2.listen(0, '127.0.0.1', r));
  closers.push(async () => {
    await rt1.close();
    await rt2.close();
    await new Promise((r) => srv1.close(r));
    await new Promise((r) => srv2.close(r));
  });
  const c = await client(`http://127.0.0.1:${(srv2.address() as AddressInfo).port}`);
  const got: unknown[] = [];
  c.on('emprops:app:created', (p) => got.push(p));
  events.publish({
    name: 'emprops:app:created',
    room: null,
    payload: { appAddress: '0x', ownerTokenId: '1', type: 't', name: 'n', symbol: 's', owner: '0x' },
  });
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(got, [], 'the control: the cross-server delivery above is the adapter’s doing');
});

test('a backend replica and an admin proxy with REDIS_URL and no indexer serve socket.io and relay the indexer process’s events', async () => {
  const db = await setupDb();
  const apps = await setupApps({ database: db, env: { REDIS_URL } });
  closers.push(async () => {
    await apps.close();
    await db.close();
  });
  // The indexer process's socket.io server, on the deployment's channel (the default).
  const indexerEvents = new IndexerEvents();
  const srv = http.createServer();
  const rt = attachRealtime(srv, indexerEvents, { redisUrl: REDIS_URL });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  closers.push(async () => {
    await rt.close();
    await new Promise((r) => srv.close(r));
  });
  const address = `0x${randomBytes(20).toString('hex')}`;
  const c = await client(apps.backendUrl);
  assert.equal((await join(c, `app:${address}`)).ok, true);
  let heard: unknown;
  c.on('emprops:appToken:transfer_retracted', (p) => {
    heard = p;
  });
  // The console's origin (docs/admin-ui.md "Live activity").
  const onAdmin = await client(apps.adminUrl);
  assert.equal((await join(onAdmin, `app:${address}`)).ok, true);
  let heardOnAdmin: unknown;
  onAdmin.on('emprops:appToken:transfer_retracted', (p) => {
    heardOnAdmin = p;
  });
  const payload = {
    tokenId: '3',
    appAddress: address,
    from: address,
    to: address,
    txHash: `0x${'33'.repeat(32)}`,
    logIndex: 0,
    blockNumber: 9,
  };
  for (let i = 0; i < 50 && (heard === undefined || heardOnAdmin === undefined); i++) {
    indexerEvents.publish({ name: 'emprops:appToken:transfer_retracted', room: `app:${address}`, payload });
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.deepEqual(heard, payload);
  assert.deepEqual(heardOnAdmin, payload);
});

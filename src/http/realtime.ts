/**
 * socket.io on the HTTP server of the app that hosts the indexer API (same port, path
 * /socket.io). Clients join `app:<address>` with `subscribe` {room} (at most
 * MAX_ROOMS_PER_SOCKET at once) and leave with `unsubscribe` {room}; an optional acknowledgement
 * callback gets {ok, room} or {ok: false, error}.
 * emprops:app:created goes to every connected client (nobody can be in the room of a collection
 * before it exists); every other event goes to its collection's room only. docs/indexer.md.
 *
 * Across processes (docs/operations.md "Realtime across processes"): with a Redis URL, socket.io
 * runs on the Redis adapter, so an event emitted by any server (the `atelier indexer` process's,
 * or a backend's) reaches the clients of every server in its room, and a backend replica without an
 * indexer of its own still serves the rooms.
 */
import type { Server as HttpServer } from 'node:http';
import { createAdapter } from '@socket.io/redis-adapter';
import { Redis } from 'ioredis';
import { Server } from 'socket.io';
import type { IndexerEvents } from '../indexer/events.ts';

/** The Redis channel prefix of the adapter: every process of one deployment uses the same. */
export const REALTIME_CHANNEL = 'atelier-io';

const ROOM = /^app:0x[0-9a-fA-F]{40}$/;
/**
 * Rooms one connection may be in at once. Every address is a valid room name, so without a bound
 * one connection could grow the room table (and, with Redis, the adapter's state) without end.
 */
export const MAX_ROOMS_PER_SOCKET = 100;

type Ack = (reply: { ok: boolean; room?: string; error?: string }) => void;

export interface Realtime {
  io: Server;
  close(): Promise<void>;
}

/**
 * socket.io on `server`. `events`: the indexer of this process, whose events are emitted to the
 * rooms (absent: this server only relays what other servers emit, through Redis). `redisUrl`: the
 * Redis adapter.
 */
export function attachRealtime(
  server: HttpServer,
  events: IndexerEvents | undefined,
  opts: { redisUrl?: string; channel?: string } = {},
): Realtime {
  const io = new Server(server, { serveClient: false, cors: { origin: true } });
  // Two connections: the adapter publishes on one and subscribes on the other (a subscribed
  // ioredis connection can do nothing else). Both reconnect and resubscribe after a Redis restart.
  const redis = opts.redisUrl
    ? (() => {
        const pub = new Redis(opts.redisUrl, { maxRetriesPerRequest: null });
        const sub = pub.duplicate();
        pub.on('error', () => {}); // reconnects by itself; readiness reports Redis
        sub.on('error', () => {});
        io.adapter(createAdapter(pub, sub, { key: opts.channel ?? REALTIME_CHANNEL }));
        return { pub, sub };
      })()
    : undefined;

  const roomOf = (body: unknown): string | undefined => {
    const room = typeof body === 'object' && body !== null ? (body as { room?: unknown }).room : undefined;
    return typeof room === 'string' && ROOM.test(room) ? room.toLowerCase() : undefined;
  };

  io.on('connection', (socket) => {
    for (const [event, join] of [
      ['subscribe', true],
      ['unsubscribe', false],
    ] as const) {
      socket.on(event, async (body: unknown, ack?: Ack) => {
        const room = roomOf(body);
        if (!room) {
          if (typeof ack === 'function') ack({ ok: false, error: 'room: expected "app:<0x-prefixed 20-byte address>"' });
          return;
        }
        // socket.rooms holds the connection's own room too.
        if (join && !socket.rooms.has(room) && socket.rooms.size - 1 >= MAX_ROOMS_PER_SOCKET) {
          if (typeof ack === 'function') {
            ack({ ok: false, error: `room: at most ${MAX_ROOMS_PER_SOCKET} rooms per connection; unsubscribe from one first` });
          }
          return;
        }
        if (join) await socket.join(room);
        else await socket.leave(room);
        if (typeof ack === 'function') ack({ ok: true, room });
      });
    }
  });

  const unsubscribe = events?.subscribe((ev) => {
    if (ev.room) io.to(ev.room).emit(ev.name, ev.payload);
    else io.emit(ev.name, ev.payload);
  });

  return {
    io,
    async close() {
      unsubscribe?.();
      // Only this server's clients: disconnectSockets() would reach every replica's through Redis.
      io.local.disconnectSockets(true);
      // Close engine.io only: the HTTP server belongs to the host app.
      io.engine.close();
      if (redis) {
        redis.pub.disconnect();
        redis.sub.disconnect();
      }
    },
  };
}

/**
 * socket.io on the HTTP server of the app that hosts the indexer API (same port, path
 * /socket.io). Clients join `app:<address>` with `subscribe` {room} and leave with `unsubscribe`
 * {room}; an optional acknowledgement callback gets {ok, room} or {ok: false, error}.
 * emprops:app:created goes to every connected client (nobody can be in the room of a collection
 * before it exists); every other event goes to its collection's room only. docs/indexer.md.
 */
import type { Server as HttpServer } from 'node:http';
import { Server } from 'socket.io';
import type { IndexerEvents } from '../indexer/events.ts';

const ROOM = /^app:0x[0-9a-fA-F]{40}$/;

type Ack = (reply: { ok: boolean; room?: string; error?: string }) => void;

export interface Realtime {
  io: Server;
  close(): Promise<void>;
}

export function attachRealtime(server: HttpServer, events: IndexerEvents): Realtime {
  const io = new Server(server, { serveClient: false, cors: { origin: true } });

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
        if (join) await socket.join(room);
        else await socket.leave(room);
        if (typeof ack === 'function') ack({ ok: true, room });
      });
    }
  });

  const unsubscribe = events.subscribe((ev) => {
    if (ev.room) io.to(ev.room).emit(ev.name, ev.payload);
    else io.emit(ev.name, ev.payload);
  });

  return {
    io,
    async close() {
      unsubscribe();
      io.disconnectSockets(true);
      // Close engine.io only: the HTTP server belongs to the host app.
      io.engine.close();
    },
  };
}

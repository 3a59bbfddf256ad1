/**
 * Draining an HTTP server on shutdown (docs/operations.md "Graceful shutdown"): once it begins,
 * every answer not yet started carries `Connection: close` (the client's next request goes to
 * another replica), a keep-alive connection is closed the moment it is idle, and each open
 * server-sent event stream is ended at once with a final `reconnect` event instead of being cut
 * at the grace deadline. The server is done as soon as all of that is over; the grace is only the
 * upper bound.
 *
 * One tracker per http.Server (Fastify's child contexts share it), found through a WeakMap so a
 * route needs only `req.server.server`.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

export interface DrainTracker {
  /** True once the drain began. */
  readonly draining: boolean;
  /**
   * Registers what ends an open stream when the drain begins (called at once when it already
   * began); returns the unregister function for a stream that ends on its own.
   */
  onDrain(end: () => void): () => void;
  /** Starts the drain: Connection: close on answers not yet sent, streams ended, idle sockets closed. */
  begin(): void;
}

const trackers = new WeakMap<Server, DrainTracker>();

/** The SSE frame a stream ends with on shutdown: clients reconnect (with Last-Event-ID) to another replica. */
export const RECONNECT_FRAME = `event: reconnect\ndata: ${JSON.stringify({
  reason: 'shutting_down',
  message: 'this server is shutting down: reconnect (with Last-Event-ID) and another replica will continue the stream',
})}\n\n`;

/** Tracks the server's in-flight answers from now on; idempotent. */
export function trackDrain(server: Server): DrainTracker {
  const existing = trackers.get(server);
  if (existing) return existing;
  const inFlight = new Set<ServerResponse>();
  const enders = new Set<() => void>();
  let draining = false;
  let sweeper: NodeJS.Timeout | undefined;

  const closeOnFinish = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('connection', 'close');
  };
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
    res.once('finish', () => inFlight.delete(res));
    if (draining) closeOnFinish(res);
  });
  server.once('close', () => clearInterval(sweeper));

  const tracker: DrainTracker = {
    get draining() {
      return draining;
    },
    onDrain(end) {
      if (draining) {
        end();
        return () => undefined;
      }
      enders.add(end);
      return () => enders.delete(end);
    },
    begin() {
      if (draining) return;
      draining = true;
      for (const res of inFlight) closeOnFinish(res);
      for (const end of [...enders]) {
        try {
          end();
        } catch {
          // one stream failing to end must not keep the others open
        }
      }
      enders.clear();
      // A connection whose answer went out before `Connection: close` could be set (or whose
      // client ignores it) is closed as soon as it is idle, not held until the grace is over.
      server.closeIdleConnections();
      sweeper = setInterval(() => server.closeIdleConnections(), 100);
      sweeper.unref();
    },
  };
  trackers.set(server, tracker);
  return tracker;
}

/** The tracker of a server (made on first use: a server built without the shell still drains its streams). */
export function drainOf(server: Server): DrainTracker {
  return trackDrain(server);
}

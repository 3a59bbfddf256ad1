/**
 * Server-sent events for both apps (docs/jobs.md "SSE stream"): the one place that frames events,
 * hijacks the reply, writes the headers, sends heartbeats, counts open streams per user and ends a
 * stream once. The backend's job stream and the admin proxy's relay of it are built on this.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RateLimited } from '../domain/errors.ts';
import { drainOf, RECONNECT_FRAME } from './drain.ts';

export const SSE_HEARTBEAT_MS = 15_000;

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
} as const;

/** One event: `id:` (when given), `event:` and `data:` as JSON. */
export function sseFrame(event: string, data: unknown, id?: number): string {
  return `${id !== undefined ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export interface SseStream {
  /** True once the client left or the stream was ended. */
  readonly closed: boolean;
  /** Raw text or bytes (already framed); nothing once closed. */
  write(chunk: string | Uint8Array): void;
  send(event: string, data: unknown, id?: number): void;
  /** A `: heartbeat` comment every `ms` until the stream closes. */
  heartbeat(ms: number): void;
  /** Runs once when the stream closes (at once when it already has). */
  onClose(fn: () => void): void;
  end(): void;
}

/**
 * Takes the reply over (hijack) and answers 200 text/event-stream. The stream closes when the
 * response closes (the client left) or on end(); with `requestClose`, also when the request does.
 */
export function openSse(req: FastifyRequest, reply: FastifyReply, opts: { flush?: boolean; requestClose?: boolean } = {}): SseStream {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, SSE_HEADERS);
  if (opts.flush) res.flushHeaders();
  let closed = false;
  let beat: NodeJS.Timeout | undefined;
  const closers: Array<() => void> = [];
  const finish = () => {
    if (closed) return;
    closed = true;
    clearInterval(beat);
    for (const fn of closers.splice(0)) fn();
    if (!res.writableEnded) res.end();
  };
  // On shutdown the stream ends at once with a final `reconnect` event (http/drain.ts).
  const offDrain = drainOf(req.server.server).onDrain(() => {
    if (!closed && !res.writableEnded) res.write(RECONNECT_FRAME);
    finish();
  });
  res.on('close', offDrain);
  if (opts.requestClose ?? true) req.raw.on('close', finish);
  res.on('close', finish);
  if (res.destroyed) finish(); // the client left before the listeners were set
  return {
    get closed() {
      return closed;
    },
    write(chunk) {
      if (!closed) res.write(chunk);
    },
    send(event, data, id) {
      if (!closed) res.write(sseFrame(event, data, id));
    },
    heartbeat(ms) {
      clearInterval(beat);
      if (closed) return;
      beat = setInterval(() => {
        if (!closed) res.write(': heartbeat\n\n');
      }, ms);
    },
    onClose(fn) {
      if (closed) fn();
      else closers.push(fn);
    },
    end: finish,
  };
}

/**
 * Open streams per signed-in user in this process (each holds a socket and a subscription; the
 * operator is not counted): take() refuses past `maxPerUser` with 429, and answers the release.
 */
export function createStreamCounter(maxPerUser = Number.POSITIVE_INFINITY) {
  const open = new Map<string, number>();
  return {
    take(user: string | null): () => void {
      if (!user) return () => undefined;
      if ((open.get(user) ?? 0) >= maxPerUser) {
        throw new RateLimited(`too many open job streams: at most ${maxPerUser} per user; close one first`, 5);
      }
      open.set(user, (open.get(user) ?? 0) + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (open.get(user) ?? 1) - 1;
        if (left > 0) open.set(user, left);
        else open.delete(user);
      };
    },
  };
}

/**
 * Graceful shutdown (docs/operations.md "Graceful shutdown"): on SIGTERM each process stops taking
 * work, gives what is in flight SHUTDOWN_GRACE_MS to finish, and hands back what is left: HTTP
 * connections still open are closed (a request's chain transaction is recorded and finished by
 * any process's catch-up; its client retries with its Idempotency-Key), a worker's steps go back
 * to the queue for another worker.
 */
import type { FastifyInstance } from 'fastify';
import { drainOf } from '../http/drain.ts';

/** Whether `work` settled within `ms` (it keeps running either way). */
export async function settledWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Closes an app: no new connections, in-flight answers sent with `Connection: close`, idle
 * keep-alive connections closed as soon as they are idle, open event streams ended with a final
 * `reconnect` event (src/http/drain.ts), new requests on open connections answered 503 (Fastify's
 * return503OnClosing). It returns as soon as that is done; requests still running after `graceMs`
 * have their connections closed.
 */
export async function closeAppWithin(app: FastifyInstance, graceMs: number): Promise<void> {
  drainOf(app.server).begin();
  const closing = app.close();
  if (!(await settledWithin(closing, graceMs))) {
    app.log.warn({ graceMs }, 'shutdown grace over: closing the connections of requests still in flight');
    app.server.closeAllConnections();
  }
  await closing;
}

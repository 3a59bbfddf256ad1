/**
 * socket.io on an app's port for the indexer's events (src/http/realtime.ts): where an indexer
 * runs in this process, and on every replica when Redis carries the events of an indexer elsewhere.
 */
import type { FastifyInstance } from 'fastify';
import { attachRealtime } from '../http/realtime.ts';
import type { IndexerEvents } from '../indexer/events.ts';

export function attachIndexerRealtime(app: FastifyInstance, events: IndexerEvents | undefined, redisUrl: string | undefined): void {
  if (!events && !redisUrl) return;
  const realtime = attachRealtime(app.server, events, { redisUrl });
  app.addHook('preClose', () => realtime.close());
}

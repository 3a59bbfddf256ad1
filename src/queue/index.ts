/**
 * Queue factory: BullMQ when a Redis URL is configured (production, several processes),
 * else the in-process queue (embedded default, one process). Both implement WorkQueue.
 */
import { BullMqQueue, type BullMqQueueOptions } from './bullmq.ts';
import { InProcessQueue } from './in-process.ts';
import type { WorkQueue } from './types.ts';

export * from './types.ts';
export { BullMqQueue, toBullPriority, type BullMqQueueOptions } from './bullmq.ts';
export { InProcessQueue, type InProcessQueueOptions } from './in-process.ts';

export interface CreateQueueOptions extends Partial<Omit<BullMqQueueOptions, 'redisUrl'>> {
  /** e.g. process env REDIS_URL; empty or absent selects the in-process queue. */
  redisUrl?: string | null;
}

export function createQueue<T>(name: string, opts: CreateQueueOptions = {}): WorkQueue<T> {
  const { redisUrl, ...rest } = opts;
  if (redisUrl) return new BullMqQueue<T>(name, { redisUrl, ...rest });
  return new InProcessQueue<T>(name);
}

/** Child process for dependency-log.test.ts: a BullMQ queue and worker with the default outage log (stderr). */
import { BullMqQueue } from '../../src/queue/bullmq.ts';

const queue = new BullMqQueue<{ n: number }>('outage', { redisUrl: process.env.REDIS_URL!, prefix: 'atelier-outage-test' });
queue.process(async () => 'ok', { concurrency: 1 });
await queue.ping();
process.stdout.write('READY\n');

/**
 * Child process for bullmq-stalled.test.ts: a worker that announces the job it took, then hangs
 * so the parent can SIGKILL it mid-job. Configured by environment variables from the parent.
 */
import { BullMqQueue } from '../../src/queue/bullmq.ts';

const queue = new BullMqQueue<{ n: number }>(process.env.QUEUE_NAME!, {
  redisUrl: process.env.REDIS_URL!,
  prefix: process.env.QUEUE_PREFIX!,
  lockDurationMs: Number(process.env.LOCK_MS),
  stalledIntervalMs: Number(process.env.STALLED_MS),
});
queue.process(
  async (job) => {
    await job.reportProgress(10);
    process.stdout.write(`STARTED ${job.id} ${job.attempt}\n`);
    await new Promise(() => {}); // never finishes: the parent kills this process
  },
  { concurrency: 1 },
);
process.stdout.write('READY\n');

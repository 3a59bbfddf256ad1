/**
 * Redis mode of the tx sender: a BullMQ queue per chain and wallet whose consumer runs one job at
 * a time across every process (global concurrency 1), so processes sharing a wallet never pick
 * nonces concurrently. A job only takes a recorded row from `queued` to `sent`; waiting for the
 * receipt happens in the requesting process, so the wallet's throughput is not one tx per block.
 * A job id is the row id, so a row is queued once; a consumer that dies mid-job loses its lock and
 * BullMQ hands the job to another, where the conditional `queued → signed` makes the retry harmless.
 */
import { Queue, QueueEvents, Worker } from 'bullmq';

export interface TxQueueOptions {
  redisUrl: string;
  prefix: string;
  /** Per chain and wallet, e.g. `tx-31337-0xf39f…`. */
  name: string;
  /** Signs and broadcasts a recorded row; returns its status afterwards. */
  execute(rowId: string, gas?: bigint): Promise<string>;
}

export interface TxQueue {
  /** Enqueues the row (job id = row id, so a row is queued once) and waits until a consumer ran it. */
  run(rowId: string, gas: bigint | undefined, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

interface JobData {
  rowId: string;
  gas?: string;
}

export function createTxQueue(o: TxQueueOptions): TxQueue {
  // Separate connections per role (BullMQ needs maxRetriesPerRequest null for blocking ones).
  const connection = () => ({ url: o.redisUrl, maxRetriesPerRequest: null });
  const queue = new Queue<JobData>(o.name, { connection: connection(), prefix: o.prefix });
  const events = new QueueEvents(o.name, { connection: connection(), prefix: o.prefix });
  const worker = new Worker<JobData, string>(
    o.name,
    async (job) => o.execute(job.data.rowId, job.data.gas ? BigInt(job.data.gas) : undefined),
    { connection: connection(), prefix: o.prefix, concurrency: 1, lockDuration: 30_000 },
  );
  // ioredis reconnects by itself; without listeners an 'error' event would crash the process.
  queue.on('error', () => {});
  events.on('error', () => {});
  worker.on('error', () => {});
  // Every concurrent send waits on these emitters; hundreds of listeners are expected, not a leak.
  queue.setMaxListeners(0);
  events.setMaxListeners(0);
  const ready = Promise.all([queue.setGlobalConcurrency(1), events.waitUntilReady(), worker.waitUntilReady()]);

  return {
    async run(rowId, gas, timeoutMs) {
      await ready;
      const job = await queue.add(
        'send',
        { rowId, gas: gas?.toString() },
        {
          jobId: rowId,
          attempts: 5,
          backoff: { type: 'exponential', delay: 500 },
          removeOnComplete: { age: 3600, count: 10_000 },
          removeOnFail: { age: 24 * 3600 },
        },
      );
      await job.waitUntilFinished(events, timeoutMs);
    },
    async close() {
      await worker.close();
      await events.close();
      await queue.close();
    },
  };
}

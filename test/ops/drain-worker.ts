/**
 * Child process for worker-shutdown.test.ts: a worker as `atelier worker` runs it (BullMQ, the
 * generation runtime), whose connector announces the step it took and then either hangs until
 * aborted (MODE=hang) or finishes after FINISH_AFTER_MS (MODE=finish). SIGTERM drains it as the
 * CLI does: close with SHUTDOWN grace GRACE_MS, then exit 0. Locks are long (30 s), so a step that
 * comes back sooner was handed back, not found stalled.
 */
import os from 'node:os';
import path from 'node:path';
import { testConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/client.ts';
import { ProceduralConnector } from '../../src/generation/connectors/index.ts';
import type { StepPayload } from '../../src/generation/pipeline.ts';
import { startGenerationWorker } from '../../src/generation/runtime.ts';
import { BullMqQueue } from '../../src/queue/bullmq.ts';
import { LocalStorage } from '../../src/storage/local.ts';

const database = await openDatabase({ url: process.env.DATABASE_URL! });
const queue = new BullMqQueue<StepPayload>('generation', {
  redisUrl: process.env.REDIS_URL!,
  prefix: process.env.QUEUE_PREFIX!,
  lockDurationMs: 30_000,
  stalledIntervalMs: 30_000,
  drainDelaySeconds: 1,
});
const real = new ProceduralConnector();
const worker = await startGenerationWorker({
  config: testConfig(),
  database,
  storage: new LocalStorage({ root: path.join(os.tmpdir(), 'atelier-drain-worker'), baseUrl: 'http://unused.test/files' }),
  queue,
  concurrency: 1,
  reconcile: false,
  connectorFor: () => ({
    kind: 'draining',
    async generate(req, onProgress, signal) {
      process.stdout.write(`STARTED ${req.stepId}\n`);
      if (process.env.MODE === 'finish') {
        await new Promise((r) => setTimeout(r, Number(process.env.FINISH_AFTER_MS)));
        process.stdout.write('FINISHED\n');
        return real.generate({ ...req, width: 64, height: 64 }, onProgress);
      }
      return new Promise((_resolve, reject) => {
        signal?.addEventListener('abort', () => {
          process.stdout.write('ABORTED\n');
          reject(signal.reason);
        });
      });
    },
  }),
});
process.on('SIGTERM', () => {
  void (async () => {
    await worker.close({ graceMs: Number(process.env.GRACE_MS) });
    await queue.close();
    await database.close();
    process.stdout.write('DRAINED\n');
    process.exit(0);
  })();
});
process.stdout.write('READY\n');

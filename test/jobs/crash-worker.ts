/**
 * Child process for jobs-crash.test.ts: an `atelier worker`-like process whose generator reports
 * progress, announces the step it took, then hangs so the parent can SIGKILL it mid-step.
 */
import os from 'node:os';
import path from 'node:path';
import { testConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/client.ts';
import type { StepPayload } from '../../src/generation/pipeline.ts';
import { startGenerationWorker } from '../../src/generation/runtime.ts';
import { BullMqQueue } from '../../src/queue/bullmq.ts';
import { LocalStorage } from '../../src/storage/local.ts';

const database = await openDatabase({ url: process.env.DATABASE_URL! });
const queue = new BullMqQueue<StepPayload>('generation', {
  redisUrl: process.env.REDIS_URL!,
  prefix: process.env.QUEUE_PREFIX!,
  lockDurationMs: 1000,
  stalledIntervalMs: 300,
  drainDelaySeconds: 1,
});
await startGenerationWorker({
  config: testConfig(),
  database,
  storage: new LocalStorage({ root: path.join(os.tmpdir(), 'atelier-crash-worker'), baseUrl: 'http://unused.test/files' }),
  queue,
  concurrency: 1,
  reconcile: false,
  connectorFor: () => ({
    kind: 'hanging',
    async generate(req, onProgress) {
      onProgress(40, 'half way');
      await new Promise((r) => setTimeout(r, 300)); // let the progress write land
      process.stdout.write(`STARTED ${req.stepId}\n`);
      return new Promise(() => {}); // never finishes: the parent kills this process
    },
  }),
});
process.stdout.write('READY\n');

/**
 * Child process for jobs-takeover.test.ts: a generation worker on BullMQ with the queue's own
 * default lock and stall settings (what `atelier worker` runs), its files in a directory the parent
 * names. MODE=die-after-upload: its storage writes the step's image, says UPLOADED <key> and then
 * never returns, so the parent can kill -9 it between the upload and the commit. MODE=normal: an
 * ordinary worker.
 */
import { testConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/client.ts';
import type { StepPayload } from '../../src/generation/pipeline.ts';
import { startGenerationWorker } from '../../src/generation/runtime.ts';
import { BullMqQueue } from '../../src/queue/bullmq.ts';
import { LocalStorage } from '../../src/storage/local.ts';

const dieIfStep = <T>(key: string, stored: T): Promise<T> => {
  if (!key.startsWith('generations/')) return Promise.resolve(stored);
  process.stdout.write(`UPLOADED ${key}\n`);
  return new Promise<never>(() => {}); // the parent kills this process now
};

class DieAfterUpload extends LocalStorage {
  override async put(key: string, bytes: Buffer, contentType: string) {
    return dieIfStep(key, await super.put(key, bytes, contentType));
  }
  override async putNew(key: string, bytes: Buffer, contentType: string) {
    return dieIfStep(key, await super.putNew(key, bytes, contentType));
  }
}

const database = await openDatabase({ url: process.env.DATABASE_URL! });
const queue = new BullMqQueue<StepPayload>('generation', { redisUrl: process.env.REDIS_URL!, prefix: process.env.QUEUE_PREFIX! });
const storageOpts = { root: process.env.FILES_ROOT!, baseUrl: 'http://files.test/files' };
await startGenerationWorker({
  config: testConfig(),
  database,
  storage: process.env.MODE === 'die-after-upload' ? new DieAfterUpload(storageOpts) : new LocalStorage(storageOpts),
  queue,
  concurrency: 1,
  reconcile: false,
});
process.stdout.write('READY\n');

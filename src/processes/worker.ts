/**
 * `atelier worker`: generation steps from the BullMQ queue (REDIS_URL), WORKER_CONCURRENCY at a
 * time; /healthz and /readyz (database, queue) on WORKER_HEALTH_PORT. Opens, in order:
 * configuration → database → queue and storage → worker (with its reconciler duty) → health app.
 */
import pino from 'pino';
import type { Config } from '../config.ts';
import { createJobQueue, startGenerationWorker } from '../generation/runtime.ts';
import { createAppShell } from '../http/plugins/shell.ts';
import { logOptions, workerLog } from '../logging/log-lines.ts';
import { createStorage } from '../storage/index.ts';
import { startProcessTelemetry } from '../telemetry.ts';
import { listenOn, metricsReadsOf, openConfiguredDatabase, publicBaseUrl, type RunningProcess } from './shared.ts';

export async function runWorker(config: Config): Promise<RunningProcess> {
  if (!config.REDIS_URL)
    throw new Error('atelier worker needs REDIS_URL: without it the queue lives inside `atelier start`/`atelier backend`');
  const stopTelemetry = startProcessTelemetry(config, ['worker']);
  const database = await openConfiguredDatabase(config);
  await database.migrate();
  const queue = createJobQueue(config);
  // Log lines written inside a span (job.process) carry its trace_id and span_id.
  const logger = pino(logOptions(config.LOG_LEVEL, 'worker'));
  const worker = await startGenerationWorker({
    config,
    database,
    storage: createStorage(config, publicBaseUrl(config)),
    queue,
    log: workerLog(logger),
  });
  const health = await createAppShell({
    config,
    title: 'Atelier worker',
    description: 'Health of a generation worker.',
    ready: { database: () => database.ping(), queue: () => queue.ping() },
    metrics: { process: 'worker', reads: metricsReadsOf(database.db) },
  });
  await listenOn(health, 'WORKER_HEALTH_PORT', config.WORKER_HEALTH_PORT, config.HOST);
  return {
    async stop() {
      try {
        // Health answers while the steps drain; steps still running after the grace go back to the queue.
        await worker.close({ graceMs: config.SHUTDOWN_GRACE_MS });
        await queue.close();
        await health.close();
        await database.close();
      } finally {
        await stopTelemetry().catch(() => undefined);
      }
    },
  };
}

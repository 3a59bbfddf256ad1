/**
 * What every process root (src/processes/*.ts) shares: opening the configured database, the
 * service key of `npm start`, the public URLs, listening with a readable refusal, and the
 * database's aggregates for /metrics.
 */
import { walletHealthRows } from '../db/wallet-health.ts';
import { requireDatabase } from '../startup/require-database.ts';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { ConfigError, type Config } from '../config.ts';
import { openDatabase, type Database, type Db } from '../db/client.ts';
import { jobsByState, pendingSteps, txSenderState } from '../db/metrics.ts';
import type { MetricsReads } from '../http/metrics.ts';
import { isAddressInUse } from '../net/ports.ts';

/** A started process: `stop()` ends it cleanly (in-flight work gets SHUTDOWN_GRACE_MS). */
export interface RunningProcess {
  stop(): Promise<void>;
}

export async function openConfiguredDatabase(config: Config): Promise<Database> {
  const database = await openDatabase(
    config.DATABASE_URL ? { url: config.DATABASE_URL } : { dataDir: path.join(config.dataDir, 'pgdata') },
  );
  // Unreachable PostgreSQL is named with its host, port and cause (startup/require-database.ts).
  return requireDatabase(database, config.DATABASE_URL);
}

/**
 * `npm start` with API_KEY unset: generate a service key once and keep it in the data dir
 * (mode 0600), so restarts keep working with the same key.
 */
export function ensureServiceKey(config: Config): { key: string; generated: boolean; file: string } {
  const file = path.join(config.dataDir, 'api-key');
  if (config.API_KEY) return { key: config.API_KEY, generated: false, file };
  fs.mkdirSync(config.dataDir, { recursive: true });
  if (fs.existsSync(file)) {
    const key = fs.readFileSync(file, 'utf8').trim();
    if (key.length >= 16) return { key, generated: false, file };
  }
  const key = `atelier_${randomBytes(24).toString('base64url')}`;
  fs.writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return { key, generated: true, file };
}

const reachableHost = (config: Config) => (config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST);

export function publicBaseUrl(config: Config): string {
  return config.PUBLIC_BASE_URL ?? `http://${reachableHost(config)}:${config.PORT}`;
}

export function adminBaseUrl(config: Config): string {
  return `http://${reachableHost(config)}:${config.ADMIN_PORT}`;
}

/** Where metadata documents are served from (contractParams point here). */
export function metadataBaseUrlOf(config: Config): string {
  return config.METADATA_BASE_URL ?? publicBaseUrl(config);
}

/** listen(), with a taken port reported naming the variable that chose it (not a stack trace). */
export async function listenOn(
  app: FastifyInstance,
  variable: 'PORT' | 'ADMIN_PORT' | 'WORKER_HEALTH_PORT',
  port: number,
  host: string,
): Promise<void> {
  try {
    await app.listen({ port, host });
  } catch (err) {
    await app.close().catch(() => undefined);
    if (isAddressInUse(err)) {
      throw new ConfigError(variable, `port ${port} on ${host} is already in use; stop what holds it or set ${variable} to a free port`);
    }
    throw err;
  }
}

/** /metrics' database aggregates (src/db/metrics.ts) on one database. */
export function metricsReadsOf(db: Db): MetricsReads {
  return {
    jobsByState: () => jobsByState(db),
    pendingSteps: () => pendingSteps(db),
    txSenderState: () => txSenderState(db),
    walletHealth: () => walletHealthRows(db),
  };
}

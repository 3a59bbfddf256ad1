/**
 * The composition root: builds each process from configuration. `atelier start` runs them all
 * in one process on embedded defaults; `atelier backend|admin` run one each.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.ts';
import { openDatabase, type Database } from './db/client.ts';
import { buildAdminApp } from './http/admin/app.ts';
import { buildBackendApp } from './http/backend/app.ts';
import { createStorage } from './storage/index.ts';

export function openConfiguredDatabase(config: Config): Promise<Database> {
  return openDatabase(
    config.DATABASE_URL ? { url: config.DATABASE_URL } : { dataDir: path.join(config.dataDir, 'pgdata') },
  );
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

export function publicBaseUrl(config: Config): string {
  return config.PUBLIC_BASE_URL ?? `http://${config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST}:${config.PORT}`;
}

export interface RunningPlatform {
  backend?: FastifyInstance;
  admin?: FastifyInstance;
  database?: Database;
  backendUrl?: string;
  adminUrl?: string;
  stop(): Promise<void>;
}

export async function startBackend(config: Config, database: Database): Promise<FastifyInstance> {
  const backend = await buildBackendApp({
    config,
    database,
    metadataBaseUrl: config.METADATA_BASE_URL ?? publicBaseUrl(config),
    storage: createStorage(config, publicBaseUrl(config)),
  });
  await backend.listen({ port: config.PORT, host: config.HOST });
  return backend;
}

export async function startAdmin(config: Config): Promise<FastifyInstance> {
  const admin = await buildAdminApp(config);
  await admin.listen({ port: config.ADMIN_PORT, host: config.HOST });
  return admin;
}

/** Everything in one process (`atelier start`). */
export async function startAll(config: Config): Promise<RunningPlatform> {
  const database = await openConfiguredDatabase(config);
  await database.migrate();
  const backend = await startBackend(config, database);
  const backendUrl = publicBaseUrl(config);
  const adminConfig = { ...config, BACKEND_API_URL: config.BACKEND_API_URL ?? backendUrl };
  const admin = await startAdmin(adminConfig);
  const adminUrl = `http://${config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST}:${config.ADMIN_PORT}`;
  return {
    backend,
    admin,
    database,
    backendUrl,
    adminUrl,
    async stop() {
      await admin.close();
      await backend.close();
      await database.close();
    },
  };
}

/** Real backend and admin proxy on ephemeral ports, over a fresh test database. */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { testConfig, type Config } from '../../src/config.ts';
import { buildAdminApp } from '../../src/http/admin/app.ts';
import { buildBackendApp, type BackendDeps } from '../../src/http/backend/app.ts';
import { LocalStorage } from '../../src/storage/local.ts';
import type { Storage } from '../../src/storage/types.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';

export const SERVICE_KEY = 'test-service-key-0123456789abcdef';
export const JWT_SECRET = 'test-jwt-secret-0123456789abcdef0123456789';

export interface TestPlatform {
  config: Config;
  database: TestDatabase;
  backend: FastifyInstance;
  admin: FastifyInstance;
  backendUrl: string;
  adminUrl: string;
  /** File storage of the backend (local, under a temp dir unless `extra.storage` is given). */
  storage: Storage;
  close(): Promise<void>;
}

const urlOf = (app: FastifyInstance) => `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

export async function startTestPlatform(
  env: Record<string, string | undefined> = {},
  extra: Partial<BackendDeps> = {},
): Promise<TestPlatform> {
  const config = testConfig({ API_KEY: SERVICE_KEY, JWT_SECRET, ...env });
  const database = await createTestDatabase();
  const filesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-files-'));
  let backendUrl = '';
  const storage = extra.storage ?? new LocalStorage({ root: filesDir, baseUrl: () => `${backendUrl}/files` });
  const backend = await buildBackendApp({ config, database, metadataBaseUrl: 'http://meta.test', storage, ...extra });
  await backend.listen({ port: 0, host: '127.0.0.1' });
  backendUrl = urlOf(backend);
  const admin = await buildAdminApp({ ...config, BACKEND_API_URL: backendUrl });
  await admin.listen({ port: 0, host: '127.0.0.1' });
  return {
    config,
    database,
    backend,
    admin,
    backendUrl,
    adminUrl: urlOf(admin),
    storage,
    async close() {
      await admin.close();
      await backend.close();
      await database.close();
      fs.rmSync(filesDir, { recursive: true, force: true });
    },
  };
}

export interface Reply<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** A small fetch wrapper: JSON in, JSON out. */
export async function call<T = any>(
  url: string,
  opts: { method?: string; body?: unknown; headers?: Record<string, string>; raw?: string } = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  let body: string | undefined;
  if (opts.raw !== undefined) body = opts.raw;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
  const res = await fetch(url, { method: opts.method ?? (body ? 'POST' : 'GET'), headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed as T, headers: res.headers };
}

export const asService = (extra: Record<string, string> = {}) => ({ 'x-api-key': SERVICE_KEY, ...extra });

/** Minimal valid v2 generation data. */
export function sampleData() {
  return {
    version: 'v2',
    steps: [
      { id: 1, nodeName: 'image', nodePayload: { intent: 'a $color $animal', user_image: null, optional_ref_image: null, seed: null } },
    ],
    generations: { hashes: [], generations: 0, use_custom_hashes: false },
    variables: [
      {
        name: 'color',
        type: 'pick',
        value_type: 'strings',
        is_feature: true,
        feature_name: 'Color',
        is_selectable: true,
        is_user_customizable: false,
        required: false,
        value: [
          { value: 'red', display_name: 'Red', weight: 1 },
          { value: 'blue', display_name: 'Blue', weight: 3 },
        ],
      },
      {
        name: 'animal',
        is_feature: false,
        is_user_customizable: true,
        value: { values: ['cat', 'fox'], display_names: ['Cat', 'Fox'], weights: [1, 1] },
      },
    ],
  };
}

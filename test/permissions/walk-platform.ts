/**
 * The platform the permission walk runs on: a real anvil with the platform contracts, a fresh
 * database, the in-process job queue, local file storage, and both apps built as `atelier start`
 * builds them — but never listening: every request goes through `app.inject()`, the admin proxy's
 * forwards included (its backend client injects into the backend app).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { startAnvil, type AnvilInstance } from '../../src/chain/anvil.ts';
import { createChainServices, type ChainServices } from '../../src/chain/platform-chain.ts';
import { testConfig, type Config } from '../../src/config.ts';
import { AppError, type AppErrorKind } from '../../src/domain/errors.ts';
import { buildAdminApp } from '../../src/http/admin/app.ts';
import type { BackendClient } from '../../src/http/admin/backend-client.ts';
import { buildBackendApp } from '../../src/http/backend/app.ts';
import { createJobQueue } from '../../src/generation/runtime.ts';
import { LocalStorage } from '../../src/storage/local.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { JWT_SECRET, SERVICE_KEY } from '../helpers/platform.ts';

export interface WalkPlatform {
  config: Config;
  database: TestDatabase;
  chain: ChainServices;
  backend: FastifyInstance;
  admin: FastifyInstance;
  anvil: AnvilInstance;
  close(): Promise<void>;
}

const KIND_BY_STATUS: Record<number, AppErrorKind> = {
  400: 'invalid',
  401: 'unauthorized',
  402: 'payment_required',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  503: 'unavailable',
};

/** The admin proxy's BackendClient, speaking to the backend app in process (same contract as HTTP). */
export function injectingBackendClient(backend: FastifyInstance, apiKey: string): BackendClient {
  return {
    async call<T>(
      method: string,
      route: string,
      opts: { body?: unknown; query?: Record<string, string | undefined>; userId?: string | null; headers?: Record<string, string> } = {},
    ): Promise<T> {
      const query = Object.fromEntries(Object.entries(opts.query ?? {}).filter((e): e is [string, string] => e[1] !== undefined));
      const res = await backend.inject({
        method: method as 'GET',
        url: `/${route}`,
        query,
        headers: { ...(opts.headers ?? {}), authorization: `Bearer ${apiKey}`, ...(opts.userId ? { user_id: opts.userId } : {}) },
        ...(opts.body !== undefined ? { payload: opts.body as object } : {}),
      });
      const payload = res.json() as { data?: T; error?: unknown } | null;
      if (res.statusCode >= 300 || !payload) {
        const message = typeof payload?.error === 'string' ? payload.error : `backend answered ${res.statusCode}`;
        throw new AppError(KIND_BY_STATUS[res.statusCode] ?? 'upstream', message);
      }
      return payload.data as T;
    },
  };
}

export async function startWalkPlatform(): Promise<WalkPlatform> {
  const anvil = await startAnvil();
  const config = testConfig({
    API_KEY: SERVICE_KEY,
    JWT_SECRET,
    NFT_RPC_URL: anvil.rpcUrl,
    NFT_CHAIN_ID: '31337',
    // The walk sends hundreds of refused requests from one address on purpose.
    AUTH_FAILURE_LIMIT: '100000',
    // The video webhook is signed by the provider (answers 503 without a secret configured).
    VIDEO_WEBHOOK_SECRET: 'walk-webhook-secret',
  });
  const database = await createTestDatabase();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-walk-'));
  fs.mkdirSync(path.join(dir, 'deployments'));
  fs.mkdirSync(path.join(dir, 'committed'));
  fs.mkdirSync(path.join(dir, 'files'));
  const chain = createChainServices({
    config,
    db: database.db,
    deploymentsDir: path.join(dir, 'deployments'),
    committedDeploymentsDir: path.join(dir, 'committed'),
  });
  await chain.deployPlatform(31337);
  const jobQueue = createJobQueue(config);
  const storage = new LocalStorage({ root: path.join(dir, 'files'), baseUrl: () => 'http://files.test/files' });
  const backend = await buildBackendApp({
    config,
    database,
    metadataBaseUrl: 'http://meta.test',
    storage,
    jobQueue,
    chain,
    contractExists: chain.contractExists,
  });
  const admin = await buildAdminApp(config, { chain, backend: injectingBackendClient(backend, SERVICE_KEY) });
  await Promise.all([backend.ready(), admin.ready()]);
  return {
    config,
    database,
    chain,
    backend,
    admin,
    anvil,
    async close() {
      await admin.close();
      await backend.close();
      await jobQueue.close();
      await chain.close();
      await anvil.stop();
      await database.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

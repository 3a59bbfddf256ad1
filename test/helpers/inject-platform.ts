/**
 * A whole platform driven through app.inject() (the permission walk, redeploy tests): a real anvil with the platform contracts, a fresh
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
import { createTestDatabase, type TestDatabase } from './db.ts';
import { JWT_SECRET, SERVICE_KEY } from './platform.ts';

export interface WalkPlatform {
  config: Config;
  database: TestDatabase;
  chain: ChainServices;
  backend: FastifyInstance;
  admin: FastifyInstance;
  anvil: AnvilInstance;
  /** Stops anvil and starts a fresh one (no state) on the same port: a dev chain reset. */
  resetChain(): Promise<void>;
  /** A process restart: new chain services and apps over the same database and deployment records, ensureDeployed as `npm start` does. */
  restart(): Promise<void>;
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
  let anvil = await startAnvil();
  const port = anvil.port;
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
  for (const d of ['deployments', 'committed', 'files']) fs.mkdirSync(path.join(dir, d));
  const storage = new LocalStorage({ root: path.join(dir, 'files'), baseUrl: () => 'http://files.test/files' });

  const build = async () => {
    const chain = createChainServices({
      config,
      db: database.db,
      deploymentsDir: path.join(dir, 'deployments'),
      committedDeploymentsDir: path.join(dir, 'committed'),
    });
    await chain.ensureDeployed(31337);
    const jobQueue = createJobQueue(config);
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
      chain,
      backend,
      admin,
      async stop() {
        await admin.close();
        await backend.close();
        await jobQueue.close();
        await chain.close();
      },
    };
  };

  let current = await build();
  const p: WalkPlatform = {
    config,
    database,
    chain: current.chain,
    backend: current.backend,
    admin: current.admin,
    anvil,
    async resetChain() {
      await anvil.stop();
      anvil = await startAnvil({ port });
      p.anvil = anvil;
    },
    async restart() {
      await current.stop();
      current = await build();
      Object.assign(p, { chain: current.chain, backend: current.backend, admin: current.admin });
    },
    async close() {
      await current.stop();
      await anvil.stop();
      await database.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return p;
}

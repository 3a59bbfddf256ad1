/**
 * A whole platform driven through app.inject() (the permission walk, redeploy tests), from the fixture
 * kit's setupApps({ listen: false }): a real anvil with the platform contracts, a fresh
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
import type { TxSenderOptions } from '../../src/chain/tx/api.ts';
import { testConfig, type Config } from '../../src/config.ts';
import { createJobQueue } from '../../src/generation/runtime.ts';
import { LocalStorage } from '../../src/storage/local.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';
import { JWT_SECRET, SERVICE_KEY, setupApps } from './kit.ts';

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

export async function startWalkPlatform(opts: { senderOptions?: TxSenderOptions } = {}): Promise<WalkPlatform> {
  let anvil = await startAnvil();
  const port = anvil.port;
  const env = {
    NFT_RPC_URL: anvil.rpcUrl,
    NFT_CHAIN_ID: '31337',
    // The walk sends hundreds of refused requests from one address on purpose.
    AUTH_FAILURE_LIMIT: '100000',
    // The video webhook is signed by the provider (answers 503 without a secret configured).
    VIDEO_WEBHOOK_SECRET: 'walk-webhook-secret',
  };
  const config = testConfig({ API_KEY: SERVICE_KEY, JWT_SECRET, ...env });
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
      ...(opts.senderOptions ? { senderOptions: opts.senderOptions } : {}),
    });
    await chain.ensureDeployed(31337);
    const jobQueue = createJobQueue(config);
    // The fixture kit's apps without sockets: the admin proxy reaches the backend through inject().
    const apps = await setupApps({
      database,
      env,
      listen: false,
      backend: { metadataBaseUrl: 'http://meta.test', storage, jobQueue, chain, contractExists: chain.contractExists },
      admin: { chain },
    });
    await Promise.all([apps.backend.ready(), apps.admin.ready()]);
    return {
      chain,
      backend: apps.backend,
      admin: apps.admin,
      async stop() {
        await apps.close();
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

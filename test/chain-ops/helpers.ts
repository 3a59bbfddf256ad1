/**
 * Chain-operation tests: a real anvil on a free port, a fresh test database, chain services, and
 * the real backend and admin proxy wired to them (as `atelier start` does), from the fixture kit.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { startAnvil, type AnvilInstance } from '../../src/chain/anvil.ts';
import { createChainServices, type ChainServices, type ChainServicesOptions } from '../../src/chain/platform-chain.ts';
import { testConfig, type Config } from '../../src/config.ts';
import type { BackendOverrides } from '../../src/processes/backend.ts';
import type { Resolver } from '../../src/net/guarded-fetch.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { setupApps, setupDb } from '../helpers/kit.ts';
import { JWT_SECRET, SERVICE_KEY, asService, call } from '../helpers/platform.ts';

export const METADATA_BASE = 'http://meta.test';

export interface ChainPlatform {
  anvil: AnvilInstance;
  config: Config;
  database: TestDatabase;
  chain: ChainServices;
  backend: FastifyInstance;
  admin: FastifyInstance;
  backendUrl: string;
  adminUrl: string;
  deploymentsDir: string;
  /** Stops anvil and starts a fresh one (no state) on the same port: a dev chain reset. */
  resetChain(): Promise<void>;
  close(): Promise<void>;
}

export async function startChainPlatform(
  opts: {
    env?: Record<string, string>;
    metadataRewrites?: Array<{ from: string; to: string }>;
    services?: Partial<ChainServicesOptions>;
    /** Name resolution of the admin proxy's metadata fetches (SSRF tests). */
    fetchResolver?: Resolver;
    /** Extra backend dependencies (storage, job queue, ...). */
    backend?: BackendOverrides;
  } = {},
): Promise<ChainPlatform> {
  let anvil = await startAnvil();
  const port = anvil.port;
  const env = { NFT_RPC_URL: anvil.rpcUrl, NFT_CHAIN_ID: '31337', ...(opts.env ?? {}) };
  const config = testConfig({ API_KEY: SERVICE_KEY, JWT_SECRET, ...env });
  const database = await setupDb();
  const deploymentsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-deployments-'));
  // An empty committed dir: the repo's deployments/31337.json must not leak into these tests.
  const committedDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-committed-'));
  const chain = createChainServices({
    config,
    db: database.db,
    deploymentsDir,
    committedDeploymentsDir: committedDir,
    ...(opts.services ?? {}),
  });
  const apps = await setupApps({
    database,
    env,
    backend: { metadataBaseUrl: METADATA_BASE, chain, contractExists: chain.contractExists, ...(opts.backend ?? {}) },
    admin: {
      chain,
      metadataRewrites: opts.metadataRewrites,
      ...(opts.fetchResolver ? { fetchResolver: opts.fetchResolver } : {}),
    },
  });
  const p: ChainPlatform = {
    anvil,
    config,
    database,
    chain,
    backend: apps.backend,
    admin: apps.admin,
    backendUrl: apps.backendUrl,
    adminUrl: apps.adminUrl,
    deploymentsDir,
    async resetChain() {
      await anvil.stop();
      anvil = await startAnvil({ port });
      p.anvil = anvil;
    },
    async close() {
      await apps.close();
      await chain.close();
      await anvil.stop();
      await database.close();
      fs.rmSync(deploymentsDir, { recursive: true, force: true });
      fs.rmSync(committedDir, { recursive: true, force: true });
    },
  };
  return p;
}

/** Admin proxy call with the service key. */
export const adminCall = <T = any>(p: ChainPlatform, route: string, body?: unknown) =>
  call<T>(`${p.adminUrl}${route}`, { headers: asService(), ...(body !== undefined ? { body } : {}) });

export const backendCall = <T = any>(p: ChainPlatform, route: string, body?: unknown, headers: Record<string, string> = asService()) =>
  call<T>(`${p.backendUrl}${route}`, { headers, ...(body !== undefined ? { body } : {}) });

/** Deploys the platform through the admin proxy and returns the factory address. */
export async function deployFactory(p: ChainPlatform): Promise<string> {
  const r = await adminCall(p, '/api/nft/deploy', { chainId: 31337 });
  if (r.status !== 200) throw new Error(`deploy failed: ${JSON.stringify(r.body)}`);
  return r.body.deployment.contracts.DiamondFactory;
}

export function collectionParams(i: number | string = 1, extra: Record<string, unknown> = {}) {
  return {
    chainId: 31337,
    name: `Test Collection ${i}`,
    symbol: `TC${i}`,
    baseURI: `${METADATA_BASE}/collections/00000000-0000-4000-8000-${String(i).padStart(12, '0')}/tokens/`,
    contractURI: `${METADATA_BASE}/collections/00000000-0000-4000-8000-${String(i).padStart(12, '0')}/metadata.json`,
    maxSupply: '1000',
    ...extra,
  };
}

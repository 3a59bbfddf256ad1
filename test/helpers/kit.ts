/**
 * The fixture kit for cross-module tests: a database, a chain and the two apps, each set up on
 * its own and composed by the feature helpers (platform.ts, chain-ops/helpers.ts,
 * minting/helpers.ts). The apps are built by the process roots' builders (src/processes/
 * `buildBackend`, `buildAdmin`), so tests run what `npm start` runs.
 *
 * `setupApps({ listen: false })` keeps both apps off the network: requests go through `inject()`,
 * and the admin proxy reaches the backend through the backend's `inject()` too.
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { createPublicClient, createWalletClient, defineChain, getAddress, http, type Address, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ANVIL_PRIVATE_KEYS } from '../../src/chain/anvil.ts';
import { loadArtifact } from '../../src/chain/artifacts.ts';
import { deployPlatform, type DeploymentRecord } from '../../src/chain/deploy-platform.ts';
import { waitForReceipt } from '../../src/chain/wait-receipt.ts';
import { testConfig, type Config } from '../../src/config.ts';
import type { AdminOverrides } from '../../src/processes/admin.ts';
import { createBackendClient } from '../../src/http/admin/backend-client.ts';
import type { BackendOverrides } from '../../src/processes/backend.ts';
import { buildAdmin } from '../../src/processes/admin.ts';
import { buildBackend } from '../../src/processes/backend.ts';
import { LocalStorage } from '../../src/storage/local.ts';
import type { Storage } from '../../src/storage/types.ts';
import { startLocalAnvil, type LocalAnvil } from './anvil-local.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';

export const SERVICE_KEY = 'test-service-key-0123456789abcdef';
export const JWT_SECRET = 'test-jwt-secret-0123456789abcdef0123456789';

/** A fresh, migrated database (PGlite, or a throwaway database on DATABASE_URL's server). */
export const setupDb = (): Promise<TestDatabase> => createTestDatabase();

// ---------------------------------------------------------------------------------------------
// Chain

export interface TestChain {
  anvil: LocalAnvil;
  client: PublicClient;
  /** The platform contracts (factory, facets), when asked for. */
  deployment?: DeploymentRecord;
  /** AtelierTestUSD, when asked for. */
  stablecoin?: Address;
  /** Anvil account 0: the platform wallet. */
  platformAddress: Address;
  /** Wallet client of anvil account i (i ≥ 1 for users; 0 is the platform). */
  wallet(i: number): ReturnType<typeof walletFor>;
  close(): Promise<void>;
}

export function walletFor(rpcUrl: string, i: number) {
  const chain = defineChain({
    id: 31337,
    name: 'anvil',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  return createWalletClient({
    chain,
    transport: http(rpcUrl),
    account: privateKeyToAccount(ANVIL_PRIVATE_KEYS[i]!),
    pollingInterval: 20,
    cacheTime: 0,
  });
}

/** A throwaway anvil on a free port, with the platform contracts and the test stablecoin if asked. */
export async function setupChain(opts: { contracts?: boolean; stablecoin?: boolean; args?: string[] } = {}): Promise<TestChain> {
  const anvil = await startLocalAnvil(opts.args ?? []);
  try {
    const client = createPublicClient({ transport: http(anvil.rpcUrl), pollingInterval: 20, cacheTime: 0 }) as PublicClient;
    const deployment = opts.contracts
      ? await deployPlatform({ rpcUrl: anvil.rpcUrl, privateKey: ANVIL_PRIVATE_KEYS[0], pollingInterval: 20 })
      : undefined;
    const w0 = walletFor(anvil.rpcUrl, 0);
    let stablecoin: Address | undefined;
    if (opts.stablecoin) {
      const usd = loadArtifact('AtelierTestUSD');
      const hash = await w0.deployContract({ abi: usd.abi, bytecode: usd.bytecode } as never);
      stablecoin = getAddress((await waitForReceipt(client, hash)).contractAddress!);
    }
    return {
      anvil,
      client,
      deployment,
      stablecoin,
      platformAddress: w0.account.address,
      wallet: (i) => walletFor(anvil.rpcUrl, i),
      close: () => anvil.stop(),
    };
  } catch (err) {
    await anvil.stop();
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// Apps

export interface Reply<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** A raw request body (sent as is, content-type JSON unless given). */
  raw?: string;
}

export interface TestApps {
  config: Config;
  database: TestDatabase;
  backend: FastifyInstance;
  admin: FastifyInstance;
  /** The apps' base URLs: real sockets when listening, placeholders for `inject()` otherwise. */
  backendUrl: string;
  adminUrl: string;
  /** File storage of the backend (local, under a temp dir unless `backend.storage` is given). */
  storage: Storage;
  /** JSON request to one app: over HTTP when listening, through `inject()` otherwise. */
  request<T = any>(app: 'backend' | 'admin', route: string, opts?: RequestOptions): Promise<Reply<T>>;
  /** `fetch` for URLs the apps hand out (file URLs included), with or without sockets. */
  fetch: typeof fetch;
  close(): Promise<void>;
}

const INJECT_BACKEND = 'http://backend.inject';
const INJECT_ADMIN = 'http://admin.inject';
const urlOf = (app: FastifyInstance) => `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

/** A `fetch` answered by an app's `inject()`: the admin proxy's way to the backend without a socket. */
export function injectFetch(app: FastifyInstance): typeof fetch {
  return (async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = new URL(String(input instanceof Request ? input.url : input));
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((v, k) => {
      headers[k] = v;
    });
    const res = await app.inject({
      method: (init.method ?? 'GET') as 'GET',
      url: url.pathname + url.search,
      headers,
      ...(init.body !== undefined && init.body !== null ? { payload: init.body as string } : {}),
    });
    return new Response(res.statusCode === 204 || res.statusCode === 304 ? null : new Uint8Array(res.rawPayload), {
      status: res.statusCode,
      headers: Object.entries(res.headers).flatMap(([k, v]) =>
        v === undefined ? [] : (Array.isArray(v) ? v : [String(v)]).map((x) => [k, x] as [string, string]),
      ),
    });
  }) as typeof fetch;
}

async function parsedReply<T>(res: Response): Promise<Reply<T>> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: body as T, headers: res.headers };
}

/** Sends one JSON request with `fetchImpl` (the network, or an app's inject). */
export async function sendJson<T = any>(fetchImpl: typeof fetch, url: string, opts: RequestOptions = {}): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  let body: string | undefined;
  if (opts.raw !== undefined) body = opts.raw;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
  return parsedReply<T>(await fetchImpl(url, { method: opts.method ?? (body ? 'POST' : 'GET'), headers, body }));
}

/**
 * The backend and the admin proxy over `database`, built by src/processes/backend.ts and admin.ts. `env` is added to
 * the test configuration (service key and JWT secret set); `backend`/`admin` replace built parts.
 */
export async function setupApps(opts: {
  database: TestDatabase;
  env?: Record<string, string | undefined>;
  backend?: BackendOverrides;
  /** Admin replacements, or a function of the backend's URL (known once it listens). */
  admin?: AdminOverrides | ((backendUrl: string) => AdminOverrides);
  /**
   * Listen (default true) on ephemeral ports, or on PORT / ADMIN_PORT when `env` names them (a
   * browser test whose page origin must be one the platform knows, e.g. for Sign-In with
   * Ethereum); false drives both apps through `inject()`.
   */
  listen?: boolean;
}): Promise<TestApps> {
  const listen = opts.listen ?? true;
  const config = testConfig({ API_KEY: SERVICE_KEY, JWT_SECRET, ...(opts.env ?? {}) });
  const filesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-files-'));
  let backendUrl = listen ? '' : INJECT_BACKEND;
  const storage = opts.backend?.storage ?? new LocalStorage({ root: filesDir, baseUrl: () => `${backendUrl}/files` });
  // Without a queue given, none: the generate routes answer 503 as on a backend without one.
  const backend = await buildBackend(config, opts.database, {
    deps: { metadataBaseUrl: 'http://meta.test', jobQueue: undefined, ...opts.backend, storage },
  });
  if (listen) {
    await backend.listen({ port: opts.env?.PORT ? config.PORT : 0, host: '127.0.0.1' });
    backendUrl = urlOf(backend);
  }
  const adminConfig = { ...config, BACKEND_API_URL: backendUrl };
  const admin = await buildAdmin(adminConfig, {
    ...(listen ? {} : { backend: createBackendClient(backendUrl, config.API_KEY, injectFetch(backend)) }),
    ...(typeof opts.admin === 'function' ? opts.admin(backendUrl) : opts.admin),
  });
  if (listen) await admin.listen({ port: opts.env?.ADMIN_PORT ? config.ADMIN_PORT : 0, host: '127.0.0.1' });
  const adminUrl = listen ? urlOf(admin) : INJECT_ADMIN;
  const fetchers = { backend: listen ? fetch : injectFetch(backend), admin: listen ? fetch : injectFetch(admin) };
  return {
    config,
    database: opts.database,
    backend,
    admin,
    backendUrl,
    adminUrl,
    storage,
    fetch: (async (input: string | URL | Request, init?: RequestInit) => {
      const url = String(input instanceof Request ? input.url : input);
      if (url.startsWith(INJECT_BACKEND)) return fetchers.backend(url, init);
      if (url.startsWith(INJECT_ADMIN)) return fetchers.admin(url, init);
      return fetch(input, init);
    }) as typeof fetch,
    request: (app, route, o) => sendJson(fetchers[app], `${app === 'backend' ? backendUrl : adminUrl}${route}`, o),
    async close() {
      await admin.close();
      await backend.close();
      fs.rmSync(filesDir, { recursive: true, force: true });
    },
  };
}

/**
 * The topology of scripts/topology (npm run topology) for tests: a throwaway PostgreSQL database, an own
 * redis-server (so it can really be restarted with its data lost), an anvil, and every `atelier`
 * process; plus the checks the topology tests and `npm run soak:topology` share.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createPublicClient, http, parseAbiItem, type Address } from 'viem';
import { freePort } from '../../src/chain/anvil.ts';
import { startTopology, type Topology, type TopologyOptions } from '../../scripts/topology/run.ts';

export const API_KEY = `topology_${randomBytes(16).toString('hex')}`;
export const RECIPIENT = '0x00000000000000000000000000000000000070b0' as Address;
export const H = { 'x-api-key': API_KEY, 'content-type': 'application/json' };

/** Why the topology tests cannot run here, or undefined. */
export function skipReason(): string | undefined {
  if (!process.env.DATABASE_URL) return 'the topology tests need PostgreSQL: set DATABASE_URL';
  if (spawnSync('redis-server', ['--version']).status !== 0)
    return 'the topology tests need redis-server on PATH (they run and restart their own Redis)';
  return undefined;
}

export interface OwnRedis {
  url: string;
  port: number;
  /** kill -9 and start again on the same port, with nothing persisted: every key is lost. */
  restartEmpty(): Promise<void>;
  stop(): Promise<void>;
}

/** A redis-server without persistence on a free port (the test's Redis restart loses its data for real). */
export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  let child: ChildProcess;
  const launch = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    for (let i = 0; i < 100; i++) {
      if (
        spawnSync('redis-cli', ['-p', String(port), 'ping'])
          .stdout?.toString()
          .includes('PONG')
      )
        return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('redis-server did not start');
  };
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await gone;
  };
  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async restartEmpty() {
      await kill();
      await launch();
    },
    stop: kill,
  };
}

export interface TestTopology {
  topology: Topology;
  redis: OwnRedis;
  db: pg.Pool;
  databaseUrl: string;
  dataDir: string;
  close(): Promise<void>;
}

export async function startTestTopology(extra: Partial<TopologyOptions> = {}): Promise<TestTopology> {
  const server = process.env.DATABASE_URL!;
  const name = `atelier_topo_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(server);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  const redis = await startOwnRedis();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-topology-'));
  const db = new pg.Pool({ connectionString: databaseUrl, max: 3 });
  let topology: Topology | undefined;
  const close = async () => {
    await topology?.stop().catch(() => undefined);
    await db.end().catch(() => undefined);
    await redis.stop();
    const c = new pg.Client({ connectionString: server });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.end();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    topology = await startTopology({
      databaseUrl,
      redisUrl: redis.url,
      apiKey: API_KEY,
      dataDir,
      ports: 'free',
      workerConcurrency: 4,
      logLevel: 'warn',
      ...extra,
      extraEnv: {
        // Faster recovery than production defaults, so the faults fit a short test.
        JOB_RECONCILE_INTERVAL_MS: '3000',
        JOB_STALE_STEP_MS: '5000',
        IDEMPOTENCY_LEASE_MS: '5000',
        ...extra.extraEnv,
      },
    });
  } catch (err) {
    await close();
    throw err;
  }
  return { topology, redis, db, databaseUrl, dataDir, close };
}

export async function call(url: string, body?: unknown, headers: Record<string, string> = H): Promise<{ status: number; body: any }> {
  const r = await fetch(url, {
    method: body === undefined ? 'GET' : 'POST',
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(120_000),
  });
  const text = await r.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: r.status, body: parsed };
}

/** Generation data whose artwork renders in milliseconds (a 32×32 procedural picture). */
export function tinyData() {
  return {
    version: 'v2',
    steps: [{ id: 1, nodeName: 'image', nodePayload: { intent: 'a $color square', width: 32, height: 32, seed: null } }],
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
          { value: 'blue', display_name: 'Blue', weight: 1 },
        ],
      },
    ],
  };
}

/** A deployed collection made through the first backend. */
export async function deployedCollection(backend: string, maxSupply = 5000): Promise<{ id: string; address: Address }> {
  const created = await call(`${backend}/nft/collections`, {
    title: 'Topology',
    description: 'replicas',
    editions: maxSupply,
    data: tinyData(),
  });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
  const id = created.body.data.collection.id as string;
  const deployed = await call(`${backend}/nft/collections/${id}/deploy`, {
    max_supply: maxSupply,
    royalty_bps: 0,
    royalty_receiver: RECIPIENT,
  });
  if (deployed.status !== 200) throw new Error(`deploy: ${deployed.status} ${JSON.stringify(deployed.body)}`);
  return { id, address: deployed.body.data.contract_address as Address };
}

export async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs: number, everyMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastErr: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      lastErr = err;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${lastErr ? ` (last error: ${(lastErr as Error).message})` : ''}`,
      );
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)');
const METADATA_UPDATE = parseAbiItem('event MetadataUpdate(uint256 _tokenId)');

/** What the chain says about a collection: minted token ids (Transfer from 0), MetadataUpdate count per token, every Transfer log. */
export async function chainFacts(rpcUrl: string, address: Address) {
  const client = createPublicClient({ transport: http(rpcUrl), cacheTime: 0 });
  const [transfers, updates] = await Promise.all([
    client.getLogs({ address, event: TRANSFER, fromBlock: 0n, toBlock: 'latest' }),
    client.getLogs({ address, event: METADATA_UPDATE, fromBlock: 0n, toBlock: 'latest' }),
  ]);
  const minted = transfers.filter((l) => BigInt(l.args.from!) === 0n).map((l) => Number(l.args.tokenId));
  const metadataUpdates = new Map<number, number>();
  for (const u of updates) {
    const t = Number(u.args._tokenId);
    metadataUpdates.set(t, (metadataUpdates.get(t) ?? 0) + 1);
  }
  return { minted, metadataUpdates, transferLogs: transfers.map((l) => `${l.transactionHash}:${l.logIndex}`) };
}

/** Decks of a collection with a token id, and how many decks each token id has. */
export async function deckFacts(db: pg.Pool, collectionId: string) {
  const { rows } = await db.query<{ token_id: string; n: string }>(
    'SELECT token_id::text, count(*)::text AS n FROM decks WHERE collection_id = $1 AND token_id IS NOT NULL GROUP BY token_id',
    [collectionId],
  );
  return new Map(rows.map((r) => [Number(r.token_id), Number(r.n)]));
}

/** Jobs of a collection by status, and jobs with more than one completion or output. */
export async function jobFacts(db: pg.Pool, collectionId: string) {
  const byStatus = await db.query<{ status: string; n: string }>(
    'SELECT status, count(*)::text AS n FROM jobs WHERE collection_id = $1 GROUP BY status',
    [collectionId],
  );
  const twice = await db.query<{ id: string }>(
    `SELECT j.id FROM jobs j JOIN job_history h ON h.job_id = j.id
      WHERE j.collection_id = $1 AND h.status = 'completed' GROUP BY j.id HAVING count(*) > 1`,
    [collectionId],
  );
  const outputsTwice = await db.query<{ job_id: string }>(
    `SELECT o.job_id FROM outputs o JOIN jobs j ON j.id = o.job_id WHERE j.collection_id = $1 GROUP BY o.job_id HAVING count(*) > 1`,
    [collectionId],
  );
  return {
    status: Object.fromEntries(byStatus.rows.map((r) => [r.status, Number(r.n)])) as Record<string, number>,
    completedTwice: twice.rows.map((r) => r.id),
    outputsTwice: outputsTwice.rows.map((r) => r.job_id),
  };
}

/** For a failure message: what the chain, the decks and the tx records say about one token. */
export async function explainToken(db: pg.Pool, rpcUrl: string, address: Address, collectionId: string, tokenId: number): Promise<string> {
  const client = createPublicClient({ transport: http(rpcUrl), cacheTime: 0 });
  const logs = await client.getLogs({ address, event: TRANSFER, args: { tokenId: BigInt(tokenId) }, fromBlock: 0n, toBlock: 'latest' });
  const hash = logs[0]?.transactionHash;
  const decks = await db.query(
    'SELECT id, token_id, mint_tx_hash, mint_status FROM decks WHERE collection_id = $1 AND (token_id = $2 OR lower(mint_tx_hash) = lower($3))',
    [collectionId, tokenId, hash ?? ''],
  );
  const txs = await db.query(
    "SELECT id, status, purpose, nonce, hash, idempotency_key, created_at, updated_at, (receipt IS NOT NULL) AS has_receipt FROM chain_transactions WHERE lower(hash) = lower($1) OR id IN (SELECT id FROM chain_transactions WHERE purpose = 'mint' AND lower(hash) = lower($1))",
    [hash ?? ''],
  );
  return `token ${tokenId}: tx ${hash}; decks ${JSON.stringify(decks.rows)}; tx records ${JSON.stringify(txs.rows)}`;
}

/**
 * Crash consistency (docs/chain-operations.md "Crash recovery"): `npm start` on embedded defaults (PGlite and anvil in its own data dir,
 * free ports) in its own process group; a burst of 100 mints (half with Idempotency-Keys);
 * kill -9 of the whole group mid-burst; start again. Then: healthy within 30 s; every token on
 * chain has exactly one deck and every minted deck a token; every answered mint is on chain; every
 * key resolves (replays its token, or runs) within the lease. docs/chain-operations.md.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { createPublicClient, http, type Address, type Hex } from 'viem';
import { collectionAbi } from '../contracts/abi/index.ts';
import { freePort } from '../src/chain/anvil.ts';
import { call, sampleData } from './helpers/platform.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-crash-'));
const RECIPIENT = '0x00000000000000000000000000000000000c0ffe' as Address;
const LEASE_MS = 30_000;
const groups = new Set<number>();

after(async () => {
  for (const pid of groups) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  // SIGKILL is delivered asynchronously: wait until no process of the groups remains, so none is
  // still writing into the data directory while it is removed.
  for (let i = 0; i < 50; i++) {
    const alive = [...groups].some((pid) => {
      try {
        process.kill(-pid, 0);
        return true;
      } catch {
        return false;
      }
    });
    if (!alive) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  // The embedded chain may still flush its state file for a moment after its parent is gone: retry,
  // and leave a temp directory behind rather than fail the run over cleanup.
  for (let i = 0; i < 20; i++) {
    try {
      fs.rmSync(dataDir, { recursive: true, force: true });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  process.stderr.write(`crash test: could not remove ${dataDir}; left behind\n`);
});

/** `npm start` as its own process group (detached), like a terminal runs it. */
function npmStart(env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<void> } {
  const { DATABASE_URL: _d, API_KEY: _k, NFT_RPC_URL: _r, NFT_DEPLOYER_PRIVATE_KEY: _p, REDIS_URL: _q, ...base } = process.env;
  const child = spawn('npm', ['start', '--silent'], {
    cwd: path.resolve('.'),
    env: { ...base, LOG_LEVEL: 'warn', DEV_CHAIN: 'true', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  groups.add(child.pid!);
  let out = '';
  child.stdout!.on('data', (c) => (out = (out + String(c)).slice(-200_000)));
  child.stderr!.on('data', (c) => (out = (out + String(c)).slice(-200_000)));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return { child, output: () => out, exited };
}

async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs: number, everyMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

const healthy = (url: string) => until('readyz', async () => ((await fetch(`${url}/readyz`)).ok ? true : undefined), 120_000);

test('kill -9 of npm start mid-burst: back within 30 s; chain, decks and answers agree; every key resolves', {
  timeout: 600_000,
}, async () => {
  const [port, adminPort, chainPort] = [await freePort(), await freePort(), await freePort()];
  const env = { DATA_DIR: dataDir, PORT: String(port), ADMIN_PORT: String(adminPort), DEV_CHAIN_PORT: String(chainPort) };
  const backend = `http://127.0.0.1:${port}`;
  const rpc = `http://127.0.0.1:${chainPort}`;

  // ---- first run: a deployed collection and the burst ----
  const first = npmStart(env);
  await until('the first start', async () => (first.output().includes('send it as') ? true : undefined), 240_000).catch((err) => {
    throw new Error(`${(err as Error).message}\n${first.output()}`);
  });
  await healthy(backend);
  const key = fs.readFileSync(path.join(dataDir, 'api-key'), 'utf8').trim();
  const h = { 'x-api-key': key };
  const created = await call(`${backend}/nft/collections`, {
    headers: h,
    body: { title: 'Crash', description: 'kill -9', editions: 1000, data: sampleData() },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const id = created.body.data.collection.id as string;
  const deployed = await call(`${backend}/nft/collections/${id}/deploy`, {
    headers: h,
    body: { max_supply: 1000, royalty_bps: 0, royalty_receiver: RECIPIENT },
  });
  assert.equal(deployed.status, 200, JSON.stringify(deployed.body));
  const collection = deployed.body.data.contract_address as Address;

  const mint = (keyed: string | undefined) =>
    call(`${backend}/nft/collections/${id}/mint`, {
      headers: keyed ? { ...h, 'idempotency-key': keyed } : h,
      body: { recipient: RECIPIENT, quantity: 1 },
    });
  const keys = Array.from({ length: 50 }, (_, i) => `crash-${i}`);
  const answered = new Map<number, { tokenIds: number[]; txHash: string; key?: string }>();
  let started = 0;
  // 100 mints, 12 at a time; the group is killed once a third are answered.
  const burst = Array.from({ length: 100 }, (_, i) => i);
  const killAt = 33;
  let killed = false;
  const kill = () => {
    if (killed) return;
    killed = true;
    process.kill(-first.child.pid!, 'SIGKILL');
  };
  const workers = Array.from({ length: 12 }, async () => {
    while (burst.length && !killed) {
      const i = burst.shift()!;
      started++;
      const k = i % 2 === 0 ? keys[i / 2] : undefined;
      const r = await mint(k).catch(() => undefined);
      if (r?.status === 201) {
        const d = r.body.data as { tokenIds?: number[]; token_ids?: number[]; txHash?: string; tx_hash?: string };
        answered.set(i, { tokenIds: (d.tokenIds ?? d.token_ids)!, txHash: (d.txHash ?? d.tx_hash)!, key: k });
        if (answered.size >= killAt) kill();
      }
    }
  });
  await Promise.all(workers);
  kill();
  await first.exited;
  console.log(`# burst: ${started} mints started, ${answered.size} answered 201 before kill -9`);
  assert.ok(answered.size >= killAt, 'the burst got answers before the kill');
  assert.ok(started < 100, 'killed mid-burst');
  // The group is gone: anvil too.
  await until(
    'the chain port to close',
    async () =>
      (await fetch(rpc).then(
        () => false,
        () => true,
      ))
        ? true
        : undefined,
    20_000,
  );

  // ---- second run ----
  const t0 = Date.now();
  const second = npmStart(env);
  await until('healthy after the crash', async () => ((await fetch(`${backend}/readyz`)).ok ? true : undefined), 90_000, 100).catch(
    (err) => {
      throw new Error(`${(err as Error).message}\n${second.output()}`);
    },
  );
  const healthyMs = Date.now() - t0;
  console.log(`# healthy ${healthyMs} ms after the restart`);
  const restored = second
    .output()
    .split('\n')
    .filter((l) => /lost recorded transactions|restore pass done|crash repair/.test(l));
  for (const l of restored) console.log(`# ${l.slice(0, 300)}`);
  assert.ok(healthyMs <= 30_000, `healthy within 30 s (took ${healthyMs} ms)\n${second.output()}`);

  const client = createPublicClient({ transport: http(rpc), cacheTime: 0 });
  // Every answered mint is on chain (the sender broadcasts what the chain lost again).
  for (const [i, a] of answered) {
    const receipt = await until(
      `receipt of answered mint ${i}`,
      () => client.getTransactionReceipt({ hash: a.txHash as Hex }),
      60_000,
      250,
    );
    assert.equal(receipt.status, 'success');
    for (const t of a.tokenIds) {
      const owner = await client.readContract({ address: collection, abi: collectionAbi, functionName: 'ownerOf', args: [BigInt(t)] });
      assert.equal(owner.toLowerCase(), RECIPIENT.toLowerCase(), `token ${t} of answered mint ${i}`);
    }
  }

  // Every key resolves within the lease: a retry replays its token or runs (and mints once).
  const tk = Date.now();
  const retries = await Promise.all(keys.map((k) => mint(k).then((r) => ({ k, r }))));
  const keysMs = Date.now() - tk;
  console.log(`# 50 keys resolved in ${keysMs} ms`);
  for (const { k, r } of retries) assert.equal(r.status, 201, `${k}: ${r.status} ${JSON.stringify(r.body)}`);
  assert.ok(keysMs <= LEASE_MS + 20_000, `keys resolved within the lease (+ margin): ${keysMs} ms`);
  for (const a of answered.values()) {
    if (!a.key) continue;
    const again = retries.find((x) => x.k === a.key)!.r.body.data as { tokenIds?: number[]; token_ids?: number[] };
    assert.deepEqual(again.tokenIds ?? again.token_ids, a.tokenIds, `${a.key} replays the token it was answered`);
  }

  // Chain and decks agree: every token has exactly one deck, every minted deck a token (the crash
  // repair makes the decks of mints whose request died).
  const agree = async () => {
    const supply = Number(await client.readContract({ address: collection, abi: collectionAbi, functionName: 'totalSupply' }));
    const list = await call(`${backend}/nft/collections/${id}/mints`, { headers: h });
    const mints = (list.body.data.mints as Array<{ token_id: number | null; mint_status: string | null }>).filter(
      (m) => m.token_id !== null,
    );
    const ids = mints.map((m) => m.token_id!).sort((a, b) => a - b);
    const expected = Array.from({ length: supply }, (_, i) => i + 1);
    return JSON.stringify(ids) === JSON.stringify(expected) ? { supply, ids } : undefined;
  };
  const t1 = Date.now();
  const state = await until('every token with exactly one deck', agree, 90_000, 1000).catch(async (err) => {
    const list = await call(`${backend}/nft/collections/${id}/mints`, { headers: h });
    throw new Error(`${(err as Error).message}: ${JSON.stringify(list.body).slice(0, 2000)}\n${second.output().slice(-5000)}`);
  });
  console.log(`# ${state.supply} tokens on chain, each with one deck (${Date.now() - t1} ms after the key retries)`);
  assert.equal(new Set(state.ids).size, state.ids.length, 'no token has two decks');

  process.kill(-second.child.pid!, 'SIGTERM');
  await second.exited;
  groups.clear();
});

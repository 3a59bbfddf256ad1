/**
 * Truthful health (docs/operations.md): /readyz of every process names each dependency with its state,
 * and answers 503 while any is down. Real parts: PostgreSQL or PGlite, Redis, a real worker
 * process; "down" is a port nothing listens on.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { createJobQueue } from '../src/generation/runtime.ts';
import { testConfig } from '../src/config.ts';
import { buildAdmin } from '../src/processes/admin.ts';
import { createChainServices } from '../src/chain/platform-chain.ts';
import { REDIS_URL } from './helpers/jobs.ts';
import { CLI } from './helpers/cli.ts';
import { startTestPlatform } from './helpers/platform.ts';
import { waitFor } from './helpers/wait.ts';

/** A port with nothing listening on it (bound, then released). */
async function deadPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

const cleanups: Array<() => Promise<unknown>> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

test('backend: database and queue named; a queue store that is down makes it not ready', async () => {
  const config = testConfig({ REDIS_URL: `redis://127.0.0.1:${await deadPort()}` });
  const queue = createJobQueue(config);
  const p = await startTestPlatform({}, { jobQueue: queue }, { listen: false });
  cleanups.push(
    () => p.close(),
    () => queue.close(),
  );
  const res = await p.request('backend', '/readyz');
  assert.equal(res.status, 503);
  assert.equal(res.body.status, 'not ready');
  assert.equal(res.body.checks.database, 'ok');
  assert.notEqual(res.body.checks.queue, 'ok');
  assert.equal(typeof res.body.checks.queue, 'string');
});

test('backend with a live Redis queue and no chain: ready, each dependency ok', async () => {
  const queue = createJobQueue(testConfig({ REDIS_URL }));
  const p = await startTestPlatform({}, { jobQueue: queue }, { listen: false });
  cleanups.push(
    () => p.close(),
    () => queue.close(),
  );
  const res = await p.request('backend', '/readyz');
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body, { status: 'ready', checks: { database: 'ok', queue: 'ok' } });
});

test('admin: the backend and the chain are named; both down → 503 with each reason', async () => {
  const rpc = `http://127.0.0.1:${await deadPort()}`;
  const config = testConfig({ API_KEY: 'k'.repeat(32), BACKEND_API_URL: `http://127.0.0.1:${await deadPort()}`, NFT_RPC_URL: rpc });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-ready-'));
  const p = await startTestPlatform({}, {}, { listen: false });
  const chain = createChainServices({ config, db: p.database.db, deploymentsDir: dir, committedDeploymentsDir: dir });
  const admin = await buildAdmin(config, { chain });
  cleanups.push(
    () => admin.close(),
    () => chain.close(),
    () => p.close(),
  );
  const res = await admin.inject({ method: 'GET', url: '/readyz' });
  assert.equal(res.statusCode, 503);
  const body = res.json();
  assert.deepEqual(Object.keys(body.checks).sort(), ['backend', 'chain']);
  assert.notEqual(body.checks.backend, 'ok');
  assert.notEqual(body.checks.chain, 'ok');
});

test('atelier worker serves /healthz and /readyz (database, queue) on WORKER_HEALTH_PORT', async () => {
  const port = await deadPort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-worker-'));
  const { DATABASE_URL, API_KEY: _k, ...base } = process.env;
  const child = spawn(process.execPath, [CLI, 'worker'], {
    env: {
      ...base,
      ...(DATABASE_URL ? { DATABASE_URL } : {}),
      DATA_DIR: dataDir,
      REDIS_URL,
      WORKER_HEALTH_PORT: String(port),
      LOG_LEVEL: 'warn',
      DEV_CHAIN: 'false',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  cleanups.push(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const ready = await waitFor(
    `worker /readyz (output so far: ${output})`,
    async () => {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
      return res ? { status: res.status, body: await res.json() } : undefined;
    },
    60_000,
  );
  assert.equal(ready.status, 200, JSON.stringify(ready.body));
  assert.deepEqual(ready.body, { status: 'ready', checks: { database: 'ok', queue: 'ok' } });
  const health = await fetch(`http://127.0.0.1:${port}/healthz`);
  assert.equal(health.status, 200);
});

/**
 * Dependency failures in the log (docs/operations.md "Dependency failures in the log"), read from
 * the output of real processes: PostgreSQL unreachable at start-up names its host, port and error
 * code (not drizzle's `Failed query`) and never the URL's password; a Redis outage is logged once
 * when it starts (with host, port, code) and once when it ends, however many reconnections fail
 * in between; a step the queue store lost is re-queued with a line saying so.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { reconcileStaleSteps } from '../../src/generation/worker.ts';
import { InProcessQueue } from '../../src/queue/index.ts';
import type { StepPayload } from '../../src/generation/pipeline.ts';
import { CLI } from '../helpers/cli.ts';
import { client, svc } from '../helpers/content.ts';
import { startJobsPlatform } from '../helpers/jobs.ts';
import { sampleData } from '../helpers/platform.ts';
import { waitFor } from '../helpers/wait.ts';
import { startOwnRedis } from '../topology/harness.ts';

const deadPort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });

test('PostgreSQL unreachable at start-up: one line with host, port and error code, no password', async () => {
  const port = await deadPort();
  const { DATABASE_URL: _d, API_KEY: _k, ...base } = process.env;
  const run = spawnSync(process.execPath, [CLI, 'migrate'], {
    env: {
      ...base,
      DATABASE_URL: `postgres://atelier:s3cretpassw0rd@127.0.0.1:${port}/atelier`,
      DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-deplog-')),
      DEV_CHAIN: 'false',
      LOG_LEVEL: 'warn',
    },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(run.status, 1, run.stderr);
  assert.match(run.stderr, new RegExp(`atelier: PostgreSQL 127\\.0\\.0\\.1:${port} unreachable \\(ECONNREFUSED\\)`), run.stderr);
  assert.doesNotMatch(run.stderr, /Failed query/);
  assert.doesNotMatch(run.stderr + run.stdout, /s3cretpassw0rd/);
});

test('a Redis outage: logged once when it starts (host, port, code) and once when it ends', async () => {
  const redis = await startOwnRedis();
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./redis-outage-child.ts', import.meta.url))], {
    env: { ...process.env, REDIS_URL: redis.url },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  try {
    await waitFor('the queue ready', async () => (out.includes('READY') ? true : undefined), 60_000);
    await redis.stop();
    const down = await waitFor('the outage line', async () => err.split('\n').find((l) => l.includes('dependency down')), 15_000);
    const line = JSON.parse(down) as Record<string, unknown>;
    assert.equal(line.dependency, 'Redis');
    assert.equal(line.host, '127.0.0.1');
    assert.equal(line.port, redis.port);
    // The first failure names its code: a live connection cut by the stop (ECONNRESET) or a
    // reconnection refused (ECONNREFUSED), whichever came first.
    assert.match(String(line.code), /^(ECONNREFUSED|ECONNRESET|EPIPE)$/);
    assert.equal(line.outage, 'start');
    // Several reconnection attempts fail meanwhile: still one line.
    await new Promise((r) => setTimeout(r, 3000));
    await redis.restartEmpty();
    const back = await waitFor('the recovery line', async () => err.split('\n').find((l) => l.includes('dependency back')), 15_000);
    assert.equal((JSON.parse(back) as { outage: string }).outage, 'end');
    const lines = err.split('\n').filter((l) => l.includes('dependency'));
    assert.equal(lines.filter((l) => l.includes('dependency down')).length, 1, err);
    assert.equal(lines.filter((l) => l.includes('dependency back')).length, 1, err);
  } finally {
    child.kill('SIGKILL');
    await redis.stop();
  }
});

test('a step the queue store lost is re-queued with a log line naming it', async () => {
  const p = await startJobsPlatform('in-process', { worker: false });
  try {
    const api = client(p);
    const c = await api('/nft/collections', svc('creator'), { body: { title: 'Lost', data: sampleData() } });
    const gen = await api(`/api/collections/${c.body.data.collection.id}/generate`, svc('creator'), { body: { variables: {} } });
    assert.equal(gen.status, 202);
    const jobId = gen.body.data.jobId as string;
    // The queue store restarted empty: it knows nothing of the step.
    const empty = new InProcessQueue<StepPayload>('generation');
    const lines: Array<{ msg: string; extra?: Record<string, unknown> }> = [];
    const report = await reconcileStaleSteps(
      { db: p.database.db, queue: empty, log: (msg, extra) => lines.push({ msg, extra }) },
      { staleMs: 0 },
    );
    assert.equal(report.requeued, 1);
    assert.equal(lines.length, 1, JSON.stringify(lines));
    assert.equal(lines[0]!.msg, 're-queued a generation step');
    assert.equal(lines[0]!.extra?.job_id, jobId);
    assert.equal(lines[0]!.extra?.queue_state, 'unknown');
    await empty.close();
  } finally {
    await p.close();
  }
});

/**
 * `atelier worker` as an operator runs it (bin/atelier.js, a real child process): /healthz and
 * /metrics on WORKER_HEALTH_PORT, the reconciler's lease taken; SIGTERM stops it within the grace
 * period with exit 0 and gives the lease up (another worker takes over at once). PostgreSQL and Redis.
 */
process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { listLeases } from '../../src/db/leases.ts';
import { CLI } from '../helpers/cli.ts';
import { setupDb } from '../helpers/kit.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { REDIS_URL } from '../helpers/jobs.ts';
import { waitFor } from '../helpers/wait.ts';

let db: TestDatabase;
before(async () => {
  db = await setupDb();
});
after(() => db.close());

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });

test('atelier worker: health and metrics on its port, the reconciler lease, SIGTERM → exit 0 and the lease released', async () => {
  const port = await freePort();
  const child = spawn(process.execPath, [CLI, 'worker'], {
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: db.url!,
      REDIS_URL,
      WORKER_HEALTH_PORT: String(port),
      LOG_LEVEL: 'warn',
      SHUTDOWN_GRACE_MS: '3000',
      DATA_DIR: `/tmp/atelier-cli-shutdown-${process.pid}`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
  try {
    await waitFor('worker running', async () => (out.includes('generation worker running') ? true : undefined), 45_000, 50);
    const base = `http://127.0.0.1:${port}`;
    assert.deepEqual(await (await fetch(`${base}/healthz`)).json(), { status: 'ok' });
    const lease = await waitFor(
      'the reconciler lease',
      async () => (await listLeases(db.db)).find((l) => l.name === 'jobs-reconciler' && l.holder.includes(`:${child.pid}:`)),
      10_000,
    );
    assert.ok(lease);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    assert.match(metrics, /atelier_queue_depth\{process="worker"\} 0/);
    assert.match(metrics, /atelier_duty_leader\{[^}]*duty="jobs-reconciler"[^}]*\} 1/);

    const signalledAt = Date.now();
    child.kill('SIGTERM');
    assert.equal(await exited, 0, out);
    assert.ok(Date.now() - signalledAt < 3000 + 5000, 'stopped within the grace period');
    assert.match(out, /SIGTERM received, shutting down[\s\S]*atelier: stopped/);
    assert.equal(
      (await listLeases(db.db)).find((l) => l.name === 'jobs-reconciler'),
      undefined,
      'the lease was given up',
    );
  } finally {
    clearTimeout(guard);
    child.kill('SIGKILL');
  }
});

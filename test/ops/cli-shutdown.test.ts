/**
 * `atelier worker` as an operator runs it (bin/atelier.js, real child processes): /healthz and
 * /metrics on WORKER_HEALTH_PORT, the reconciler's lease taken; SIGTERM stops it within the grace
 * period with exit 0 and gives the lease up; kill -9 of the holder of two: the other takes the
 * duty over once the lease expired. PostgreSQL and Redis.
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

function startWorker(port: number, extra: Record<string, string> = {}) {
  const child = spawn(process.execPath, [CLI, 'worker'], {
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: db.url!,
      REDIS_URL,
      WORKER_HEALTH_PORT: String(port),
      PUBLIC_BASE_URL: 'http://127.0.0.1:3000',
      LOG_LEVEL: 'warn',
      DATA_DIR: `/tmp/atelier-cli-shutdown-${process.pid}`,
      ...extra,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<NodeJS.Signals | number | null>((r) => child.on('exit', (code, signal) => r(signal ?? code)));
  const guard = setTimeout(() => child.kill('SIGKILL'), 90_000);
  child.on('exit', () => clearTimeout(guard));
  const running = waitFor('worker running', async () => (out.includes('generation worker running') ? true : undefined), 45_000, 50);
  return { child, exited, running, output: () => out };
}

test('kill -9 of the reconciler lease holder: the other worker takes it over after the lease expired', async () => {
  const TTL = 2000;
  const [p1, p2] = [await freePort(), await freePort()];
  const a = startWorker(p1, { DUTY_LEASE_TTL_MS: String(TTL) });
  const b = startWorker(p2, { DUTY_LEASE_TTL_MS: String(TTL) });
  try {
    await Promise.all([a.running, b.running]);
    const holderOf = async () => (await listLeases(db.db)).find((l) => l.name === 'jobs-reconciler')?.holder;
    const first = await waitFor('a holder', holderOf, 10_000);
    const [holder, standby, standbyPort] = first.includes(`:${a.child.pid}:`) ? [a, b, p2] : [b, a, p1];
    const gauge = async (port: number) =>
      Number(
        /atelier_duty_leader\{[^}]*duty="jobs-reconciler"[^}]*\} (\d)/.exec(
          await (await fetch(`http://127.0.0.1:${port}/metrics`)).text(),
        )?.[1],
      );
    assert.equal(await gauge(standbyPort), 0, 'the other is a standby');

    holder.child.kill('SIGKILL');
    assert.equal(await holder.exited, 'SIGKILL');
    const killedAt = Date.now();
    await waitFor(
      'the standby holds the lease',
      async () => ((await holderOf())?.includes(`:${standby.child.pid}:`) ? true : undefined),
      15_000,
      50,
    );
    const took = Date.now() - killedAt;
    assert.ok(took <= TTL + 2000, `taken over ${took} ms after kill -9`);
    console.log(`# reconciler lease taken over ${took} ms after kill -9 of its holder (DUTY_LEASE_TTL_MS ${TTL})`);
    await waitFor('the standby reports it leads', async () => ((await gauge(standbyPort)) === 1 ? true : undefined), 5000);
  } finally {
    a.child.kill('SIGKILL');
    b.child.kill('SIGKILL');
  }
});

test('atelier worker: health and metrics on its port, the reconciler lease, SIGTERM → exit 0 and the lease released', async () => {
  const port = await freePort();
  const child = spawn(process.execPath, [CLI, 'worker'], {
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: db.url!,
      REDIS_URL,
      WORKER_HEALTH_PORT: String(port),
      PUBLIC_BASE_URL: 'http://127.0.0.1:3000',
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

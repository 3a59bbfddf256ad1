/**
 * Safe start-up (docs/security.md "The data directory", "Safe start-up"), with the real CLI in child processes:
 * `atelier <command> --help` prints help and does nothing else; a second instance on one DATA_DIR
 * is refused naming the running one's pid, a lock left by a dead process is taken over; a taken
 * DEV_CHAIN_PORT, PORT or ADMIN_PORT is refused naming the variable (never attaching to a foreign
 * chain); shutdown says so; DATA_DIR and everything under it is owner-only.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { freePort } from '../src/chain/anvil.ts';
import { LOCK_FILE } from '../src/startup/data-dir.ts';
import { CLI, startCli, stopAllClis, stopCli } from './helpers/cli.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-startup-'));
after(async () => {
  await stopAllClis();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Runs the CLI to completion with a clean environment (as helpers/cli.ts does) plus `env`. */
function runCli(args: string[], env: Record<string, string>) {
  const { DATABASE_URL: _d, API_KEY: _k, NFT_RPC_URL: _r, NFT_DEPLOYER_PRIVATE_KEY: _p, ...base } = process.env;
  return spawnSync(process.execPath, [CLI, ...args], {
    env: { ...base, DEV_CHAIN: 'false', LOG_LEVEL: 'warn', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

function runCliAsync(args: string[], env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const { DATABASE_URL: _d, API_KEY: _k, NFT_RPC_URL: _r, NFT_DEPLOYER_PRIVATE_KEY: _p, ...base } = process.env;
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...base, DEV_CHAIN: 'false', ...env }, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ status: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Every path under `dir` (itself included) whose mode lets group or others read, write or enter it. */
function notOwnerOnly(dir: string): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    const st = fs.lstatSync(p);
    if (st.isSymbolicLink()) return;
    if ((st.mode & 0o077) !== 0) out.push(`${p} ${(st.mode & 0o777).toString(8)}`);
    if (st.isDirectory()) for (const n of fs.readdirSync(p)) walk(path.join(p, n));
  };
  walk(dir);
  return out;
}

test('`atelier <command> --help` prints that command’s help and touches nothing', async () => {
  const dataDir = path.join(tmp, 'never-created');
  const commands = ['start', 'migrate', 'deploy', 'backend', 'admin', 'worker', 'indexer'];
  // In parallel: each is a full Node start-up, and none may do anything but print.
  const results = await Promise.all(
    [...commands.map((c) => [c, '--help']), ['--help']].map((args) => runCliAsync(args, { DATA_DIR: dataDir, PORT: 'not-even-a-port' })),
  );
  commands.forEach((command, i) => {
    const res = results[i]!;
    assert.equal(res.status, 0, `${command}: ${res.stderr}`);
    assert.match(res.stdout, new RegExp(`^usage: atelier ${command}`), command);
  });
  assert.match(results[commands.length]!.stdout, /^usage: atelier <command>/);
  assert.equal(fs.existsSync(dataDir), false, '--help created DATA_DIR');
});

test('one instance per DATA_DIR; owner-only files; a shutdown line; a stale lock is taken over', async () => {
  const dataDir = path.join(tmp, 'data');
  // A data dir from before: world-readable, with a world-readable file in it.
  fs.mkdirSync(path.join(dataDir, 'old'), { recursive: true, mode: 0o755 });
  fs.chmodSync(dataDir, 0o755);
  fs.writeFileSync(path.join(dataDir, 'old', 'notes.txt'), 'x', { mode: 0o644 });
  const [port, adminPort] = [await freePort(), await freePort()];
  const first = await startCli({ DATA_DIR: dataDir, PORT: String(port), ADMIN_PORT: String(adminPort) });
  let later = '';
  first.child.stdout!.on('data', (c: Buffer) => {
    later += c.toString();
  });
  try {
    const lock = JSON.parse(fs.readFileSync(path.join(dataDir, LOCK_FILE), 'utf8'));
    assert.equal(lock.pid, first.child.pid);
    // A second platform on the same DATA_DIR (other ports) is refused, naming the first.
    const [p2, a2] = [await freePort(), await freePort()];
    const second = runCli(['start'], { DATA_DIR: dataDir, PORT: String(p2), ADMIN_PORT: String(a2) });
    assert.equal(second.status, 1, second.stderr);
    assert.match(second.stderr, new RegExp(`DATA_DIR ${dataDir} is in use by another Atelier \\(atelier start, pid ${first.child.pid}, `));
    const migrate = runCli(['migrate'], { DATA_DIR: dataDir });
    assert.equal(migrate.status, 1, migrate.stderr);
    assert.match(migrate.stderr, new RegExp(`pid ${first.child.pid}`));
  } finally {
    await stopCli(first.child);
  }
  assert.match(later, /atelier: SIGTERM received, shutting down\n/);
  assert.match(later, /atelier: stopped\n/);
  assert.equal(fs.existsSync(path.join(dataDir, LOCK_FILE)), false, 'the lock is released on a clean stop');
  // `find DATA_DIR -perm /077` finds nothing: PGlite's files, the key and the old files included.
  assert.ok(fs.existsSync(path.join(dataDir, 'pgdata')), 'PGlite lives in the data dir');
  assert.deepEqual(notOwnerOnly(dataDir), []);

  // kill -9 leaves the lock behind; its pid is gone, so the next start takes it over.
  fs.writeFileSync(
    path.join(dataDir, LOCK_FILE),
    JSON.stringify({ pid: 2 ** 22 + 7, command: 'start', hostname: os.hostname(), startedAt: 'x' }),
  );
  const migrated = runCli(['migrate'], { DATA_DIR: dataDir });
  assert.equal(migrated.status, 0, migrated.stderr);
  assert.match(migrated.stdout, /migrations applied/);
});

test('a taken DEV_CHAIN_PORT is refused naming it; the node there is never called', async () => {
  const calls: string[] = [];
  // A foreign chain node: answers eth_chainId like anvil would.
  const foreign = http.createServer((req, res) => {
    calls.push(req.url ?? '');
    res.setHeader('content-type', 'application/json');
    res.end('{"jsonrpc":"2.0","id":1,"result":"0x7a69"}');
  });
  await new Promise<void>((r) => foreign.listen(0, '127.0.0.1', r));
  const chainPort = (foreign.address() as { port: number }).port;
  try {
    const res = runCli(['start'], {
      DATA_DIR: path.join(tmp, 'chain-taken'),
      DEV_CHAIN: 'true',
      DEV_CHAIN_PORT: String(chainPort),
      PORT: String(await freePort()),
      ADMIN_PORT: String(await freePort()),
    });
    assert.equal(res.status, 2, res.stderr);
    assert.match(res.stderr, new RegExp(`configuration error: DEV_CHAIN_PORT: port ${chainPort} on 127\\.0\\.0\\.1 is already in use`));
    assert.match(res.stderr, /never attaches to a chain it did not start/);
    assert.deepEqual(calls, [], 'nothing talked to the foreign node');
  } finally {
    foreign.close();
  }
});

test('a taken PORT or ADMIN_PORT is reported naming the variable, without a stack trace', async () => {
  const holder = http.createServer();
  await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
  const taken = (holder.address() as { port: number }).port;
  try {
    for (const variable of ['PORT', 'ADMIN_PORT'] as const) {
      const env = { DATA_DIR: path.join(tmp, `port-${variable}`), PORT: String(await freePort()), ADMIN_PORT: String(await freePort()) };
      env[variable] = String(taken);
      const res = runCli(['start'], env);
      assert.equal(res.status, 2, res.stderr);
      assert.match(
        res.stderr,
        new RegExp(`^atelier: configuration error: ${variable}: port ${taken} on 127\\.0\\.0\\.1 is already in use`),
      );
      assert.doesNotMatch(res.stderr, /\n\s+at /, 'no stack trace');
      assert.equal(fs.existsSync(path.join(env.DATA_DIR, LOCK_FILE)), false, 'the lock is released');
    }
  } finally {
    holder.close();
  }
});

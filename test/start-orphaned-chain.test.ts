/**
 * kill -9 of the platform process alone (not its process group) leaves the embedded anvil it
 * started running: nothing delivers the death of its parent to it. The next `atelier start` on
 * the same data directory must not be stuck behind it ("port in use"): it recognises the anvil
 * it started for this data directory (its pid file, and the state file on its command line),
 * stops it (SIGTERM: anvil writes its state) and starts its own. docs/chain-operations.md.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { freePort } from '../src/chain/anvil.ts';
import { portFree } from '../src/net/ports.ts';
import { startCli, stopAllClis, stopCli } from './helpers/cli.ts';
import { call } from './helpers/platform.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-orphan-'));
const pidFile = path.join(dataDir, 'chain', 'anvil.pid');
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
after(async () => {
  await stopAllClis();
  // Whatever anvil the test left (a failed run): stop it by the pid the platform recorded.
  try {
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    process.kill(pid, 'SIGTERM');
    for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
  } catch {
    // none
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('a restart after kill -9 of the platform process alone takes over from the anvil it left behind', async () => {
  const [port, adminPort, chainPort] = [await freePort(), await freePort(), await freePort()];
  const env = {
    DATA_DIR: dataDir,
    PORT: String(port),
    ADMIN_PORT: String(adminPort),
    DEV_CHAIN: 'true',
    DEV_CHAIN_PORT: String(chainPort),
  };
  const first = await startCli(env);
  const orphan = Number(fs.readFileSync(pidFile, 'utf8'));
  assert.ok(alive(orphan), 'the pid file names the running anvil');
  first.child.removeAllListeners('exit');
  const exited = new Promise((r) => first.child.once('exit', r));
  process.kill(first.child.pid!, 'SIGKILL');
  await exited;
  // The anvil it started outlives it and keeps the port.
  assert.ok(alive(orphan));
  assert.equal(await portFree('127.0.0.1', chainPort), false);

  const second = await startCli(env);
  try {
    assert.equal(alive(orphan), false, 'the orphaned anvil was stopped');
    assert.notEqual(Number(fs.readFileSync(pidFile, 'utf8')), orphan);
    const key = fs.readFileSync(path.join(dataDir, 'api-key'), 'utf8').trim();
    // The chain of the first run is still there (its state file): the factory answers.
    const factory = await call(`http://127.0.0.1:${adminPort}/api/nft/factory?chainId=31337`, { headers: { 'x-api-key': key } });
    assert.equal(factory.status, 200, JSON.stringify(factory.body));
    assert.equal(factory.body.stale, false);
  } finally {
    await stopCli(second.child);
  }
  assert.equal(fs.existsSync(pidFile), false, 'a clean stop removes the pid file');
});

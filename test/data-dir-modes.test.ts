/**
 * The first `npm start` of a fresh DATA_DIR leaves every file and directory under it owner-only
 * (docs/security.md "The data directory"): PGlite's database, the embedded chain's state, the
 * service key and uploads — while it runs and after it stops, with no second run to fix them.
 * (A second `atelier` command on the directory repairs modes before it starts, so this test runs
 * exactly one.)
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { freePort } from '../src/chain/anvil.ts';
import { EXAMPLE_PNG_BASE64 } from '../src/http/schemas/examples.ts';
import { startCli, stopAllClis, stopCli } from './helpers/cli.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-modes-'));
after(async () => {
  await stopAllClis();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Every path under `dir` (itself included) that group or others may read, write or enter (`find dir -perm /077`). */
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

test('a fresh DATA_DIR is owner-only from the first start: PGlite, the chain state, the key, uploads', { timeout: 180_000 }, async () => {
  const dataDir = path.join(tmp, 'fresh');
  const [port, adminPort, chainPort] = [await freePort(), await freePort(), await freePort()];
  const started = await startCli({
    DATA_DIR: dataDir,
    PORT: String(port),
    ADMIN_PORT: String(adminPort),
    DEV_CHAIN: 'true',
    DEV_CHAIN_PORT: String(chainPort),
  });
  try {
    const key = fs.readFileSync(path.join(dataDir, 'api-key'), 'utf8').trim();
    // Writes while running: a collection (PGlite) and an upload (local storage under DATA_DIR).
    const base = `http://127.0.0.1:${port}`;
    const created = await fetch(`${base}/nft/collections`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Modes' }),
    });
    assert.equal(created.status, 201, await created.clone().text());
    const uploaded = await fetch(`${base}/upload-base64`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ base64Data: EXAMPLE_PNG_BASE64, filename: 'a.png', mimeType: 'image/png' }),
    });
    assert.equal(uploaded.status, 200, await uploaded.clone().text());
    assert.ok(fs.existsSync(path.join(dataDir, 'files')), 'local storage lives in the data dir');
    const files = fs.readdirSync(dataDir);
    assert.ok(files.includes('pgdata'), `PGlite lives in the data dir: ${files}`);
    assert.ok(fs.readdirSync(dataDir, { recursive: true }).length > 500, 'PGlite has written its files');
    assert.deepEqual(notOwnerOnly(dataDir), [], 'while running');
  } finally {
    await stopCli(started.child);
  }
  assert.deepEqual(notOwnerOnly(dataDir), [], 'after the stop (anvil wrote its state)');
});

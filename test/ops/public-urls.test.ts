/**
 * A process that writes public URLs refuses to start without the base URL it needs when it is not
 * on embedded defaults (src/startup/public-urls.ts, docs/deployment.md "Public URLs"): the CLI as
 * an operator runs it exits 2 naming the variable, before it touches any store (the stores named
 * here do not even exist). On embedded defaults nothing changes.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { requirePublicUrls } from '../../src/startup/public-urls.ts';
import { CLI } from '../helpers/cli.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-public-urls-'));
// Stores nobody listens on: a start that got past the check would fail differently (or hang).
const shared = { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', REDIS_URL: 'redis://127.0.0.1:1' };

function run(command: string, env: Record<string, string>) {
  const { DATABASE_URL: _d, REDIS_URL: _r, PUBLIC_BASE_URL: _p, METADATA_BASE_URL: _m, API_KEY: _k, ...base } = process.env;
  return spawnSync(process.execPath, [CLI, command], {
    env: { ...base, DEV_CHAIN: 'false', LOG_LEVEL: 'warn', DATA_DIR: dataDir, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

test('atelier worker and atelier backend on shared stores without PUBLIC_BASE_URL: exit 2 naming it', () => {
  const worker = run('worker', shared);
  assert.equal(worker.status, 2, worker.stderr);
  assert.match(
    worker.stderr,
    /configuration error: PUBLIC_BASE_URL: required for atelier worker outside the embedded defaults \(DATABASE_URL is set/,
  );
  assert.doesNotMatch(worker.stderr, /Failed query|ECONNREFUSED/, 'refused before any store was reached');
  const backend = run('backend', { DATABASE_URL: shared.DATABASE_URL });
  assert.equal(backend.status, 2, backend.stderr);
  assert.match(backend.stderr, /PUBLIC_BASE_URL: required for atelier backend/);
});

test('which variable each process needs: file URLs from PUBLIC_BASE_URL (or S3_PUBLIC_URL), metadata from METADATA_BASE_URL or PUBLIC_BASE_URL', () => {
  const refusal = (command: string, env: Record<string, string>) => {
    try {
      requirePublicUrls(command, loadConfig({ DEV_CHAIN: 'false', ...env }));
      return undefined;
    } catch (err) {
      return (err as { variable?: string }).variable;
    }
  };
  // Embedded defaults: the process's own address is right.
  assert.equal(refusal('start', {}), undefined);
  assert.equal(refusal('backend', {}), undefined);
  // Shared stores.
  assert.equal(refusal('worker', { REDIS_URL: shared.REDIS_URL }), 'PUBLIC_BASE_URL');
  assert.equal(refusal('start', { REDIS_URL: shared.REDIS_URL }), 'PUBLIC_BASE_URL');
  assert.equal(refusal('worker', { ...shared, PUBLIC_BASE_URL: 'https://nft.example' }), undefined);
  const s3 = { STORAGE_DRIVER: 's3', S3_BUCKET: 'b', S3_PUBLIC_URL: 'https://cdn.example' };
  assert.equal(refusal('worker', { ...shared, ...s3 }), undefined, 'images public on S3_PUBLIC_URL');
  assert.equal(refusal('backend', { ...shared, ...s3 }), 'METADATA_BASE_URL');
  assert.equal(refusal('backend', { ...shared, ...s3, METADATA_BASE_URL: 'https://meta.example' }), undefined);
  // Processes that write no public URL.
  for (const command of ['admin', 'indexer', 'migrate', 'deploy']) assert.equal(refusal(command, shared), undefined, command);
});

/**
 * `atelier start` as a user runs it: a real process on embedded defaults (PGlite in a data dir),
 * both URLs and the generated key printed, the key kept across a restart, and curl-style calls
 * through the admin proxy working end to end.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { freePort } from '../src/chain/anvil.ts';
import { CLI, startCli, stopAllClis, stopCli } from './helpers/cli.ts';
import { call, sampleData } from './helpers/platform.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-start-'));
after(async () => {
  await stopAllClis();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('npm start serves both apps on embedded defaults; the generated key survives a restart', async () => {
  const [port, adminPort] = [await freePort(), await freePort()];
  const env = { DATA_DIR: dataDir, PORT: String(port), ADMIN_PORT: String(adminPort) };
  const first = await startCli(env);
  let id: string;
  let key: string;
  try {
    // The first URL printed is the console, for a browser; then the API docs; then the API base; then the mint pages.
    const urls = first.output
      .slice(first.output.indexOf('Atelier is running'))
      .split('\n')
      .filter((l) => l.includes('http://127.0.0.1:'));
    assert.match(urls[0]!, new RegExp(`^ {2}Console: http://127\\.0\\.0\\.1:${adminPort}/ \\(open in a browser`));
    assert.match(urls[1]!, new RegExp(`^ {2}API docs: http://127\\.0\\.0\\.1:${adminPort}/docs .*http://127\\.0\\.0\\.1:${port}/docs`));
    assert.match(urls[2]!, new RegExp(`^ {2}API base: http://127\\.0\\.0\\.1:${adminPort}/api/nft .*http://127\\.0\\.0\\.1:${port} `));
    assert.match(urls[3]!, new RegExp(`^ {2}Mint pages: http://127\\.0\\.0\\.1:${port}/mint/<collection id> `));
    assert.doesNotMatch(first.output, /try:|<uuid>/, 'no example that needs an id the reader does not have');
    // The console is a page: the first URL answers HTML in a browser.
    const page = await fetch(`http://127.0.0.1:${adminPort}/`);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    key = fs.readFileSync(path.join(dataDir, 'api-key'), 'utf8').trim();
    assert.ok(first.output.includes(key), 'the generated key is printed');
    assert.equal((fs.statSync(path.join(dataDir, 'api-key')).mode & 0o777).toString(8), '600');

    const admin = `http://127.0.0.1:${adminPort}`;
    const h = { 'x-api-key': key };
    const created = await call(`${admin}/api/nft/collections/create`, {
      headers: h,
      body: { title: 'From the CLI', editions: 4, data: sampleData() },
    });
    assert.equal(created.status, 200);
    id = created.body.collection.id;
    // contractParams point at our own backend by default, so tokenURIs resolve on the dev platform.
    assert.equal(created.body.contractParams.baseURI, `http://127.0.0.1:${port}/collections/${id}/tokens/`);
    const updated = await call(`${admin}/api/nft/collections/update`, {
      method: 'PUT',
      headers: h,
      body: { collectionId: id, description: 'changed' },
    });
    assert.equal(updated.body.collection.description, 'changed');
    const reset = await call(`${admin}/api/nft/collections/reset`, { headers: h, body: { collectionId: id } });
    assert.equal(reset.body.success, true);
    assert.equal((await call(`${admin}/api/nft/collections/lookup?collectionId=${id}`)).status, 401);
  } finally {
    await stopCli(first.child);
  }

  const second = await startCli(env);
  try {
    assert.ok(second.output.includes(key), 'the same key is reused');
    const lookup = await call(`http://127.0.0.1:${adminPort}/api/nft/collections/lookup?collectionId=${id}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(lookup.status, 200);
    assert.equal(lookup.body.collection.description, 'changed', 'data persisted in the data dir');
  } finally {
    await stopCli(second.child);
  }
});

test('a bad configuration value stops the start with a message naming the variable', () => {
  const res = spawnSync(process.execPath, [CLI, 'start'], {
    env: { ...process.env, PORT: 'not-a-port', DATA_DIR: dataDir },
    encoding: 'utf8',
  });
  assert.equal(res.status, 2);
  assert.match(res.stderr, /configuration error: PORT:/);
});

/**
 * The README's copy-paste path, run as written: `npm start` on a fresh data directory
 * (the real CLI, embedded PGlite and dev chain), then the README's shell block in bash, with only
 * the ports swapped for free ones. It must end with a token whose ERC-721 document has its image.
 * The platform's own log lines are checked on the way (src/logging/log-lines.ts): one per deploy, mint and
 * completed generation, with their ids, all with one timestamp format.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { freePort } from '../src/chain/anvil.ts';
import { startCli, stopAllClis } from './helpers/cli.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-readme-'));
after(async () => {
  await stopAllClis();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The README's block that starts with the key (the paste path). */
function readmeBlock(): string {
  const readme = fs.readFileSync('README.md', 'utf8');
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const block = blocks.find((b) => b.startsWith('KEY=$(cat .atelier/api-key)'));
  assert.ok(block, 'the README has the paste path');
  return block;
}

test('the README path, pasted into a shell, ends with a minted token whose metadata has an image', { timeout: 300_000 }, async () => {
  const [port, adminPort, chainPort] = [await freePort(), await freePort(), await freePort()];
  const started = await startCli(
    {
      DATA_DIR: path.join(dir, '.atelier'),
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      DEV_CHAIN: 'true',
      DEV_CHAIN_PORT: String(chainPort),
      LOG_LEVEL: 'info',
    },
    150_000,
  );
  let logs = started.output;
  started.child.stdout!.on('data', (d: Buffer) => (logs += d.toString()));
  started.child.stderr!.on('data', (d: Buffer) => (logs += d.toString()));

  const script = readmeBlock().replaceAll('127.0.0.1:3001', `127.0.0.1:${adminPort}`).replaceAll('127.0.0.1:3000', `127.0.0.1:${port}`);
  const run = spawnSync('bash', ['-c', script], { cwd: dir, encoding: 'utf8', timeout: 200_000 });
  assert.equal(run.status, 0, `the block failed:\n${run.stdout}\n${run.stderr}`);
  const lines = run.stdout.trim().split('\n');
  assert.match(lines[0]!, /^0x[0-9a-fA-F]{40}$/, `step 2 prints the contract address:\n${run.stdout}`);
  assert.ok(lines.includes('artwork: completed'), run.stdout);
  const doc = JSON.parse(lines.at(-1)!);
  assert.equal(doc.name, 'Neon Dreams #1');
  assert.match(doc.image, /^https?:\/\/.+/, `the token has its artwork:\n${run.stdout}`);
  const image = await fetch(doc.image);
  assert.equal(image.status, 200);
  assert.match(String(image.headers.get('content-type')), /^image\//);

  // One line per deploy, mint and completed generation, with ids; every pino line in ISO time.
  await new Promise((r) => setTimeout(r, 300));
  const json = logs
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const deployed = json.find((l) => l.msg === 'collection deployed');
  assert.ok(deployed?.collection_id && deployed.contract_address && deployed.tx_hash, JSON.stringify(deployed));
  const minted = json.filter((l) => l.msg === 'minted');
  assert.equal(minted.length, 1, 'one line for the one mint');
  assert.deepEqual(minted[0]!.token_ids, [1]);
  assert.ok(minted[0]!.tx_hash && minted[0]!.collection_id);
  const completed = json.filter((l) => l.msg === 'generation completed');
  assert.ok(completed.length >= 1 && completed[0]!.job_id && completed[0]!.output_id, JSON.stringify(completed));
  for (const l of json) {
    assert.match(String(l.time), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/, JSON.stringify(l));
    assert.equal(typeof l.level, 'number', `one level format (pino's numbers): ${JSON.stringify(l)}`);
  }
});

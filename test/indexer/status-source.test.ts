/**
 * Indexer status from its sources (docs/indexer.md "Status from the source"): a lease whose holder
 * is a process of this host that is gone reads as down at once (not after the lease's expiry), and
 * lag_blocks comes from the chain head the backend reads from the RPC now, not from the head the
 * dead indexer last wrote. A real anvil; the lease holder is a real process that exits.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import os from 'node:os';
import { after, before, test } from 'node:test';
import { createIndexerState, setIndexerProgress } from '../../src/db/indexer-store.ts';
import { DUTY } from '../../src/duties/runner.ts';
import { acquireLease, releaseLease } from '../../src/db/leases.ts';
import { HEAD_CACHE_MS } from '../../src/services/indexer-health.ts';
import { startLocalAnvil, type LocalAnvil } from '../helpers/anvil-local.ts';
import { asService, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';

let anvil: LocalAnvil;
let p: TestPlatform;
before(async () => {
  anvil = await startLocalAnvil();
  p = await startTestPlatform({ NFT_CHAIN_ID: '31337', NFT_RPC_URL: anvil.rpcUrl });
});
after(async () => {
  await p?.close();
  await anvil?.stop();
});

const status = async () => {
  const res = await p.request('backend', '/nft/indexer/status', { headers: asService() });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data;
};

/** A process of this host that ran and exited: its pid is known gone. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await new Promise((r) => child.once('exit', r));
  return child.pid!;
}

test('the lease of an indexer whose process is gone reads as down at once, though the lease runs 60 s more', async () => {
  const pid = await deadPid();
  const holder = `${os.hostname()}:${pid}:deadbeef`;
  assert.equal(await acquireLease(p.database.db, DUTY.indexer(31337), holder, 60_000), true);
  const s = await status();
  assert.equal(s.down, true, JSON.stringify(s));
  assert.equal(s.running, false);
  assert.deepEqual(s.indexer_process, { running_in: 'none', holder: null });

  // A live holder of this host (the test runner's process) still reads as running elsewhere.
  await releaseLease(p.database.db, DUTY.indexer(31337), holder);
  const alive = `${os.hostname()}:${process.ppid}:cafe1234`;
  assert.equal(await acquireLease(p.database.db, DUTY.indexer(31337), alive, 60_000), true);
  assert.deepEqual((await status()).indexer_process, { running_in: 'other', holder: alive });
});

test('lag_blocks counts the blocks the chain made after the last indexed one, from the head read now', async () => {
  const head = Number(BigInt(await anvil.rpc<string>('eth_blockNumber')));
  // What a dead indexer left: caught up with the head it saw, lag 0 by its own last row.
  await createIndexerState(p.database.db, 31337, 0);
  await setIndexerProgress(p.database.db, 31337, { last: head, hash: null, status: 'idle', head });
  await anvil.rpc('anvil_mine', ['0x32']); // 50 blocks
  await new Promise((r) => setTimeout(r, HEAD_CACHE_MS + 50));
  const s = await status();
  assert.equal(s.head_block, String(head + 50), JSON.stringify(s));
  assert.equal(s.lag_blocks, 50);
});

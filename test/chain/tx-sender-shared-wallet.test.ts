/**
 * Several senders share one wallet (separate senders; with PostgreSQL also a separate process):
 * nonces are chosen under the database's per-wallet advisory lock, no Redis involved (docs/chain.md "Several processes, one wallet").
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createPublicClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { TxFailedError } from '../../src/chain/tx/api.ts';
import { createTxSender } from '../../src/chain/tx/sender.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startLocalAnvil, type LocalAnvil } from '../helpers/anvil-local.ts';
import { randomAddress, rowsOf } from './helpers.ts';

// Anvil dev account #6.
const KEY = '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e';

describe('tx senders sharing a wallet', () => {
  let anvil: LocalAnvil;
  let database: TestDatabase;
  const account = privateKeyToAccount(KEY);
  const pub = () => createPublicClient({ transport: http(anvil.rpcUrl), cacheTime: 0 });

  before(async () => {
    [anvil, database] = await Promise.all([startLocalAnvil(), createTestDatabase()]);
  });
  after(async () => {
    await Promise.all([anvil?.stop(), database?.close()]);
  });

  test('two senders on one wallet: 60 concurrent sends, distinct contiguous nonces, one row each', async () => {
    const make = () =>
      createTxSender({
        db: database.db,
        chainId: 31337,
        rpcUrl: anvil.rpcUrl,
        account,
      });
    const a = make();
    const b = make();
    try {
      const start = await pub().getTransactionCount({ address: account.address });
      const t0 = Date.now();
      const results = await Promise.all(
        Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).send({ purpose: 'test-shared', to: randomAddress(), value: 1n })),
      );
      console.log(`# 60 sends through two senders: ${Date.now() - t0} ms`);
      assert.ok(results.every((r) => r.status === 'mined'));
      assert.deepEqual(
        results.map((r) => r.nonce).sort((x, y) => x - y),
        Array.from({ length: 60 }, (_, i) => start + i),
      );
      assert.equal((await rowsOf(database.db)).filter((r) => r.purpose === 'test-shared').length, 60);
      // Idempotency holds across senders too.
      const req = { purpose: 'test-shared', to: randomAddress(), value: 2n, idempotencyKey: `shared-${Date.now()}` };
      const [x, y] = await Promise.all([a.send(req), b.send(req)]);
      assert.equal(x.hash, y.hash);
      // A permanent failure comes back as a clear error.
      await assert.rejects(
        a.send({ purpose: 'test-shared', to: randomAddress(), value: 10n ** 30n, gas: 21_000n }),
        (e: unknown) => e instanceof TxFailedError && /insufficient funds/i.test(e.message),
      );
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  test('a sender in another process shares the wallet safely', {
    skip: !process.env.DATABASE_URL && 'needs DATABASE_URL (PGlite is single-process)',
  }, async () => {
    const here = createTxSender({
      db: database.db,
      chainId: 31337,
      rpcUrl: anvil.rpcUrl,
      account,
    });
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('test/chain/fixtures/shared-sender.ts')], {
        env: {
          ...process.env,
          RPC_URL: anvil.rpcUrl,
          PRIVATE_KEY: KEY,
          DB_URL: database.url!,
          COUNT: '30',
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout.on('data', (d) => (out += String(d)));
      const exited = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
      const mine = await Promise.all(
        Array.from({ length: 30 }, () => here.send({ purpose: 'test-shared-parent', to: randomAddress(), value: 1n })),
      );
      assert.equal(await exited, 0);
      const theirs = JSON.parse(out.split('DONE ')[1]!) as number[];
      const all = [...mine.map((r) => r.nonce), ...theirs].sort((x, y) => x - y);
      assert.equal(new Set(all).size, 60);
      assert.equal(all.at(-1)! - all[0]!, 59);
    } finally {
      await here.close();
    }
  });
});

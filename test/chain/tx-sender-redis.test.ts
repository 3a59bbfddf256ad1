/**
 * Redis mode: several senders (separate connections; with PostgreSQL also a separate process)
 * share one wallet; nonces are assigned by one queue consumer at a time, so nothing collides.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { createPublicClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { TxFailedError } from '../../src/chain/tx/api.ts';
import { createTxSender } from '../../src/chain/tx/sender.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startLocalAnvil, type LocalAnvil } from '../helpers/anvil-local.ts';
import { randomAddress, rowsOf } from './helpers.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
// Anvil dev account #6.
const KEY = '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e';

async function redisReachable(): Promise<boolean> {
  const r = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await r.connect();
    await r.ping();
    return true;
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

describe('tx sender with REDIS_URL', async () => {
  const available = await redisReachable();
  let anvil: LocalAnvil;
  let database: TestDatabase;
  const prefix = `atelier-test-tx-${randomBytes(4).toString('hex')}`;
  const account = privateKeyToAccount(KEY);
  const pub = () => createPublicClient({ transport: http(anvil.rpcUrl), cacheTime: 0 });

  before(async () => {
    if (!available) return;
    [anvil, database] = await Promise.all([startLocalAnvil(), createTestDatabase()]);
  });
  after(async () => {
    await Promise.all([anvil?.stop(), database?.close()]);
    if (!available) return;
    const r = new Redis(REDIS_URL);
    const keys = await r.keys(`${prefix}:*`);
    if (keys.length) await r.del(...keys);
    r.disconnect();
  });

  test('two senders on one wallet: 60 concurrent sends, distinct contiguous nonces, one row each', {
    skip: !available && `no Redis at ${REDIS_URL}`,
  }, async () => {
    const make = () =>
      createTxSender({
        db: database.db,
        chainId: 31337,
        rpcUrl: anvil.rpcUrl,
        account,
        redisUrl: REDIS_URL,
        options: { queuePrefix: prefix },
      });
    const a = make();
    const b = make();
    try {
      const start = await pub().getTransactionCount({ address: account.address });
      const t0 = Date.now();
      const results = await Promise.all(
        Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).send({ purpose: 'test-redis', to: randomAddress(), value: 1n })),
      );
      console.log(`# 60 sends through Redis, two senders: ${Date.now() - t0} ms`);
      assert.ok(results.every((r) => r.status === 'mined'));
      assert.deepEqual(
        results.map((r) => r.nonce).sort((x, y) => x - y),
        Array.from({ length: 60 }, (_, i) => start + i),
      );
      assert.equal((await rowsOf(database.db)).filter((r) => r.purpose === 'test-redis').length, 60);
      // Idempotency holds across senders too.
      const req = { purpose: 'test-redis', to: randomAddress(), value: 2n, idempotencyKey: `redis-${prefix}` };
      const [x, y] = await Promise.all([a.send(req), b.send(req)]);
      assert.equal(x.hash, y.hash);
      // A permanent failure comes back through the queue as a clear error.
      await assert.rejects(
        a.send({ purpose: 'test-redis', to: randomAddress(), value: 10n ** 30n, gas: 21_000n }),
        (e: unknown) => e instanceof TxFailedError && /insufficient funds/i.test(e.message),
      );
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  test('a sender in another process shares the wallet safely', {
    skip: (!available && `no Redis at ${REDIS_URL}`) || (!process.env.DATABASE_URL && 'needs DATABASE_URL (PGlite is single-process)'),
  }, async () => {
    const here = createTxSender({
      db: database.db,
      chainId: 31337,
      rpcUrl: anvil.rpcUrl,
      account,
      redisUrl: REDIS_URL,
      options: { queuePrefix: prefix },
    });
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('test/chain/fixtures/redis-sender.ts')], {
        env: {
          ...process.env,
          RPC_URL: anvil.rpcUrl,
          PRIVATE_KEY: KEY,
          DB_URL: database.url!,
          REDIS_URL,
          QUEUE_PREFIX: prefix,
          COUNT: '30',
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout.on('data', (d) => (out += String(d)));
      const exited = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
      const mine = await Promise.all(
        Array.from({ length: 30 }, () => here.send({ purpose: 'test-redis-parent', to: randomAddress(), value: 1n })),
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

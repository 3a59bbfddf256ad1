/**
 * The tx sender on a real anvil: 100 concurrent sends, idempotency, failures that release their
 * nonce, transient RPC failures. Recovery and replacement: tx-sender-recovery.test.ts.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { privateKeyToAccount } from 'viem/accounts';
import { createPublicClient, http as viemHttp, type Address } from 'viem';
import { IdempotencyConflictError, TxFailedError, type TxSender } from '../../src/chain/tx/api.ts';
import { createTxSender } from '../../src/chain/tx/sender.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startLocalAnvil, type LocalAnvil } from '../helpers/anvil-local.ts';
import { COUNTER_INIT, COUNTER_RUNTIME, randomAddress, rowById, rowsOf } from './helpers.ts';

// Anvil dev account #1: this file's wallet (the dev key #0 is exercised elsewhere).
const KEY1 = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';

describe('tx sender', () => {
  let anvil: LocalAnvil;
  let database: TestDatabase;
  let sender: TxSender;
  const account = privateKeyToAccount(KEY1);
  let counter: Address;
  const pub = () => createPublicClient({ transport: viemHttp(anvil.rpcUrl), cacheTime: 0 });

  before(async () => {
    [anvil, database] = await Promise.all([startLocalAnvil(), createTestDatabase()]);
    sender = createTxSender({ db: database.db, chainId: 31337, rpcUrl: anvil.rpcUrl, account });
    const deployed = await sender.send({ purpose: 'test-deploy', data: COUNTER_INIT });
    counter = deployed.receipt.contractAddress!;
  });
  after(async () => {
    await sender?.close();
    await Promise.all([anvil?.stop(), database?.close()]);
  });

  test('the hand-written contract deploys with the expected runtime', async () => {
    assert.equal(await pub().getCode({ address: counter }), COUNTER_RUNTIME);
  });

  test('100 concurrent sends (transfers, calls, deploys) all land, distinct nonces, one row each', async () => {
    const before = await rowsOf(database.db);
    const startNonce = await pub().getTransactionCount({ address: account.address });
    const started = Date.now();
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => {
        if (i % 5 === 0) return sender.send({ purpose: 'test-deploy', data: COUNTER_INIT });
        if (i % 5 === 1) return sender.send({ purpose: 'test-call', to: counter, data: '0x' });
        return sender.send({ purpose: 'test-transfer', to: randomAddress(), value: BigInt(i + 1) });
      }),
    );
    const elapsed = Date.now() - started;
    console.log(`# 100 concurrent sends: ${elapsed} ms`);
    assert.ok(results.every((r) => r.status === 'mined' && r.receipt.status === 'success'));
    const nonces = results.map((r) => r.nonce).sort((a, b) => a - b);
    assert.deepEqual(
      nonces,
      Array.from({ length: 100 }, (_, i) => startNonce + i),
    );
    assert.equal(new Set(results.map((r) => r.hash)).size, 100);
    assert.equal(await pub().getTransactionCount({ address: account.address }), startNonce + 100);
    // Storage slot 0 counts the calls: every call ran exactly once.
    assert.equal(BigInt((await pub().getStorageAt({ address: counter, slot: '0x0' }))!), 20n);
    const rows = (await rowsOf(database.db)).filter((r) => !before.some((b) => b.id === r.id));
    assert.equal(rows.length, 100);
    assert.ok(rows.every((r) => r.status === 'mined' && r.raw_tx && r.receipt && r.attempts === 1));
    assert.deepEqual(
      rows.map((r) => r.nonce).sort((a, b) => a! - b!),
      nonces,
    );
    const deploys = results.filter((_, i) => i % 5 === 0);
    for (const d of deploys) assert.ok(d.receipt.contractAddress);
  });

  test('idempotency key: concurrent repeats get the same transaction, sent once', async () => {
    const nonceBefore = await pub().getTransactionCount({ address: account.address });
    const to = randomAddress();
    const req = { purpose: 'test-idem', to, value: 7n, idempotencyKey: `idem-${Date.now()}` };
    const [a, b, c] = await Promise.all([sender.send(req), sender.send(req), sender.send(req)]);
    assert.equal(a.hash, b.hash);
    assert.equal(a.hash, c.hash);
    assert.equal(a.id, b.id);
    const later = await sender.send(req); // after it is mined: replayed from the record
    assert.equal(later.hash, a.hash);
    assert.equal(later.receipt.transactionHash, a.hash);
    assert.equal(await pub().getTransactionCount({ address: account.address }), nonceBefore + 1);
    assert.equal(await pub().getBalance({ address: to }), 7n);
    await assert.rejects(sender.send({ ...req, value: 8n }), IdempotencyConflictError);
  });

  test('a revert at estimation fails the request clearly and sends nothing', async () => {
    const nonceBefore = await pub().getTransactionCount({ address: account.address });
    const err = await sender.send({ purpose: 'test-revert', to: counter, value: 1n }).catch((e) => e);
    assert.ok(err instanceof TxFailedError, String(err));
    assert.match(err.message, /revert/i);
    const row = await rowById(database.db, err.id);
    assert.equal(row.status, 'failed');
    assert.equal(row.nonce, null);
    assert.equal(await pub().getTransactionCount({ address: account.address }), nonceBefore);
  });

  test('a refused broadcast (insufficient funds) releases its nonce: the next sends do not stall', async () => {
    const nonceBefore = await pub().getTransactionCount({ address: account.address });
    const [poor, ok1, ok2] = await Promise.allSettled([
      // Explicit gas skips estimation, so the node itself refuses the signed transaction.
      sender.send({ purpose: 'test-poor', to: randomAddress(), value: 10n ** 30n, gas: 21_000n }),
      sender.send({ purpose: 'test-transfer', to: randomAddress(), value: 1n }),
      sender.send({ purpose: 'test-transfer', to: randomAddress(), value: 1n }),
    ]);
    assert.equal(poor.status, 'rejected');
    assert.match(String((poor as PromiseRejectedResult).reason), /insufficient funds/i);
    assert.equal(ok1.status, 'fulfilled');
    assert.equal(ok2.status, 'fulfilled');
    const got = [ok1, ok2].map((r) => (r as PromiseFulfilledResult<{ nonce: number }>).value.nonce).sort();
    assert.deepEqual(got, [nonceBefore, nonceBefore + 1]);
    const failed = await rowById(database.db, (poor as PromiseRejectedResult).reason.id);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.nonce, null);
  });

  test('transient RPC failures (503, dropped connections) are retried with backoff', async () => {
    // A proxy in front of anvil that fails every third request (503 or a dropped connection).
    let n = 0;
    let failures = 0;
    const proxy = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      n++;
      if (n % 3 === 0) {
        failures++;
        if (n % 2 === 0) return req.socket.destroy();
        res.writeHead(503).end('busy');
        return;
      }
      const upstream = await fetch(anvil.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: Buffer.concat(chunks),
      });
      res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(await upstream.text());
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const port = (proxy.address() as { port: number }).port;
    const flaky = createTxSender({
      db: database.db,
      chainId: 31337,
      rpcUrl: `http://127.0.0.1:${port}`,
      account,
      options: { retryBaseMs: 10, retryMaxMs: 50, retries: 10 },
    });
    try {
      const results = await Promise.all(
        Array.from({ length: 10 }, () => flaky.send({ purpose: 'test-flaky', to: randomAddress(), value: 1n })),
      );
      assert.ok(results.every((r) => r.status === 'mined'));
      assert.equal(new Set(results.map((r) => r.nonce)).size, 10);
      assert.ok(failures > 10, `injected ${failures} failures`);
    } finally {
      await flaky.close();
      await new Promise((r) => proxy.close(r));
    }
  });
});

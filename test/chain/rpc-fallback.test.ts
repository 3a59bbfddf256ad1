/**
 * RPC fallback (docs/signers-and-rpc.md "RPC URLs and fallback"): with the first of two RPC URLs
 * dead (a closed port) or rate limited (a proxy in front of anvil answering HTTP 429), the tx
 * sender's sends go through the second; the failures are counted (atelier_rpc_errors_total) and
 * the endpoint that failed is tried last while its failures are recent.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { privateKeyToAccount } from 'viem/accounts';
import { endpointHealth, rpcErrorCounts, rpcUrlList } from '../../src/chain/rpc-transport.ts';
import { ANVIL_PRIVATE_KEYS } from '../../src/chain/anvil.ts';
import { createTxSender } from '../../src/chain/tx/sender.ts';
import { startLocalAnvil, type LocalAnvil } from '../helpers/anvil-local.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { randomAddress } from './helpers.ts';

// Anvil dev accounts #2 and #3: this file's wallets.
const KEY2 = ANVIL_PRIVATE_KEYS[2];
const KEY3 = ANVIL_PRIVATE_KEYS[3];

async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** Forwards to anvil, but answers HTTP 429 (with Retry-After: 0) to every request `limited(n)` picks. */
async function rateLimitingProxy(target: string, limited: (n: number) => boolean) {
  let n = 0;
  const stats = { refused: 0, forwarded: 0 };
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (limited(n++)) {
      stats.refused++;
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' }).end(JSON.stringify({ error: 'rate limited' }));
      return;
    }
    stats.forwarded++;
    const up = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) });
    res.writeHead(up.status, { 'content-type': 'application/json' }).end(Buffer.from(await up.arrayBuffer()));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const rateLimited = (endpoint: number) =>
  rpcErrorCounts().find((c) => c.chainId === 31337 && c.endpoint === endpoint && c.reason === 'rate_limited')?.n ?? 0;

describe('RPC fallback and rate limits', { timeout: 120_000 }, () => {
  let anvil: LocalAnvil;
  let database: TestDatabase;
  before(async () => {
    [anvil, database] = await Promise.all([startLocalAnvil(), createTestDatabase()]);
  });
  after(async () => {
    await anvil?.stop();
    await database?.close();
  });

  test('first URL dead: every send goes through the second', async () => {
    const dead = `http://127.0.0.1:${await closedPort()}`;
    const sender = createTxSender({
      db: database.db,
      chainId: 31337,
      rpcUrl: `${dead},${anvil.rpcUrl}`,
      account: privateKeyToAccount(KEY2),
    });
    try {
      const to = randomAddress();
      const results = await Promise.all(Array.from({ length: 5 }, () => sender.send({ purpose: 'fallback', to, value: 7n })));
      assert.deepEqual(
        results.map((r) => r.status),
        Array(5).fill('mined'),
      );
      assert.equal(BigInt(await anvil.rpc<string>('eth_getBalance', [to, 'latest'])), 35n);
      const unreachable = rpcErrorCounts().find((c) => c.chainId === 31337 && c.endpoint === 0 && c.reason === 'unreachable');
      assert.ok(unreachable && unreachable.n > 0, 'the dead endpoint was counted');
    } finally {
      await sender.close();
    }
  });

  test('first URL answers 429: sends fall back to the second, none is lost, and the limited endpoint is tried last', async () => {
    const proxy = await rateLimitingProxy(anvil.rpcUrl, () => true);
    const rpcUrl = `${proxy.url},${anvil.rpcUrl}`;
    const sender = createTxSender({ db: database.db, chainId: 31337, rpcUrl, account: privateKeyToAccount(KEY3) });
    const limitedBefore = rateLimited(0);
    try {
      const to = randomAddress();
      const results = await Promise.all(Array.from({ length: 8 }, () => sender.send({ purpose: 'rate-limited', to, value: 3n })));
      assert.deepEqual(
        results.map((r) => r.status),
        Array(8).fill('mined'),
      );
      assert.equal(BigInt(await anvil.rpc<string>('eth_getBalance', [to, 'latest'])), 24n);
      assert.ok(proxy.stats.refused > 0, 'the first URL was asked first');
      assert.equal(proxy.stats.forwarded, 0);
      // Every 429 is counted against endpoint 0 (the position, never the URL).
      assert.equal(rateLimited(0) - limitedBefore, proxy.stats.refused);
      // Ranked by recent failures: the limited endpoint now comes last, so later requests skip it.
      assert.deepEqual(endpointHealth(31337, rpcUrlList(rpcUrl)).order(), [1, 0]);
      const refusedAfterBatch = proxy.stats.refused;
      const more = await sender.send({ purpose: 'rate-limited', to, value: 3n });
      assert.equal(more.status, 'mined');
      assert.equal(proxy.stats.refused, refusedAfterBatch, 'the send after the batch did not try the limited endpoint');
    } finally {
      await sender.close();
      await proxy.close();
    }
  });

  test('a single URL answering 429 to every other request: sends are retried, none is lost', async () => {
    const proxy = await rateLimitingProxy(anvil.rpcUrl, (n) => n % 2 === 0);
    const sender = createTxSender({
      db: database.db,
      chainId: 31337,
      rpcUrl: proxy.url,
      account: privateKeyToAccount(ANVIL_PRIVATE_KEYS[4]),
    });
    try {
      const to = randomAddress();
      const results = await Promise.all(Array.from({ length: 4 }, () => sender.send({ purpose: 'rate-limited-single', to, value: 5n })));
      assert.deepEqual(
        results.map((r) => r.status),
        Array(4).fill('mined'),
      );
      assert.equal(BigInt(await anvil.rpc<string>('eth_getBalance', [to, 'latest'])), 20n);
      assert.ok(proxy.stats.refused > 0);
    } finally {
      await sender.close();
      await proxy.close();
    }
  });
});

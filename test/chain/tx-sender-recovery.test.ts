/**
 * Recovery on a real anvil: stuck transactions replaced with higher fees, a sender process
 * SIGKILLed after broadcast and before broadcast, and reconcile() finishing the rows without a
 * duplicate transaction.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { createPublicClient, getAddress, http, keccak256, parseTransaction, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { openDatabase, type Database } from '../../src/db/client.ts';
import { chainTransactions } from '../../src/db/schema/index.ts';
import { createTxSender } from '../../src/chain/tx/sender.ts';
import { createTestDatabase } from '../helpers/db.ts';
import { startLocalAnvil, type LocalAnvil } from '../helpers/anvil-local.ts';
import { randomAddress, rowById } from './helpers.ts';

// Anvil dev accounts #2..#5 and #7: one wallet per scenario, so scenarios cannot disturb each other.
const KEYS = {
  stuck: '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  crashSent: '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  crashSigned: '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
  foreign: '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba',
  queued: '0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356',
} as const;

const FIXTURE = path.resolve('test/chain/fixtures/send-and-hang.ts');

describe('tx sender recovery', () => {
  let anvil: LocalAnvil;
  /** PostgreSQL: one throwaway database shared with the child. PGlite: a data directory the child and we open in turn. */
  let dbEnv: Record<string, string>;
  let shared: Database | undefined;
  let pgliteDir: string | undefined;
  const pub = () => createPublicClient({ transport: http(anvil.rpcUrl), cacheTime: 0 });

  async function withDb<T>(fn: (db: Database) => Promise<T>): Promise<T> {
    if (shared) return fn(shared);
    const d = await openDatabase({ dataDir: pgliteDir! });
    try {
      return await fn(d);
    } finally {
      await d.close();
    }
  }

  before(async () => {
    anvil = await startLocalAnvil();
    if (process.env.DATABASE_URL) {
      const d = await createTestDatabase();
      shared = d;
      dbEnv = { DB_URL: d.url! };
    } else {
      // PGlite is single-process: the child opens the directory, we reopen it after the kill.
      pgliteDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-txrec-'));
      const d = await openDatabase({ dataDir: pgliteDir });
      await d.migrate();
      await d.close();
      dbEnv = { PGLITE_DIR: pgliteDir };
    }
  });
  after(async () => {
    await anvil?.stop();
    await shared?.close();
    if (pgliteDir) fs.rmSync(pgliteDir, { recursive: true, force: true });
  });

  /** Runs the fixture until it prints `marker`; SIGKILLs it (unless it killed itself). */
  async function runAndKill(env: Record<string, string>, marker: 'SIGNED' | 'SENT') {
    const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
      env: { ...process.env, ...dbEnv, RPC_URL: anvil.rpcUrl, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => (err += String(d)));
    const exited = new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_c, s) => r(s)));
    const info = await new Promise<{ id: string; nonce: number; hash: Hex }>((resolve, reject) => {
      child.stdout.on('data', (d) => {
        out += String(d);
        const line = out.split('\n').find((l) => l.startsWith(`${marker} `));
        if (line) resolve(JSON.parse(line.slice(marker.length + 1)));
      });
      void exited.then(() => setTimeout(() => reject(new Error(`fixture exited: ${out} ${err}`)), 100));
    });
    child.kill('SIGKILL');
    assert.equal(await exited, 'SIGKILL');
    return info;
  }

  test('a stuck transaction is replaced with higher fees; the mined replacement wins', async () => {
    await withDb(async ({ db }) => {
      await anvil.rpc('evm_setAutomine', [false]);
      const account = privateKeyToAccount(KEYS.stuck);
      const sender = createTxSender({
        db,
        chainId: 31337,
        rpcUrl: anvil.rpcUrl,
        account,
        options: { stuckAfterMs: 300, pollIntervalMs: 50 },
      });
      try {
        const to = randomAddress();
        const pending = sender.send({ purpose: 'test-stuck', to, value: 5n });
        const rowOf = async () =>
          (
            await db
              .select()
              .from(chainTransactions)
              .where(eq(chainTransactions.to_address, getAddress(to)))
          )[0];
        let row = await rowOf();
        for (let i = 0; row?.status !== 'sent'; i++) {
          assert.ok(i < 250, `row never sent: ${row?.status}`);
          await new Promise((r) => setTimeout(r, 20));
          row = await rowOf();
        }
        const first = parseTransaction(row.raw_tx as Hex);
        const firstHash = row.hash as Hex;
        for (let i = 0; (row!.replaced_hashes as string[]).length < 1; i++) {
          assert.ok(i < 100, 'never replaced');
          await new Promise((r) => setTimeout(r, 50));
          row = await rowOf();
        }
        await anvil.rpc('evm_mine');
        const result = await pending;
        assert.equal(result.status, 'mined');
        assert.notEqual(result.hash, firstHash);
        const final = await rowById(db, result.id);
        assert.equal(final.status, 'mined');
        assert.equal(final.hash, result.hash);
        assert.ok((final.replaced_hashes as string[]).includes(firstHash));
        assert.ok(!(final.replaced_hashes as string[]).includes(result.hash));
        assert.ok(final.attempts >= 2);
        const mined = await pub().getTransaction({ hash: result.hash });
        assert.equal(mined.nonce, first.nonce);
        // At least +12.5 % on both fee fields.
        assert.ok(mined.maxFeePerGas! * 1000n >= first.maxFeePerGas! * 1125n);
        assert.ok(mined.maxPriorityFeePerGas! * 1000n >= first.maxPriorityFeePerGas! * 1125n);
        await assert.rejects(pub().getTransactionReceipt({ hash: firstHash }));
        assert.equal(await pub().getBalance({ address: to }), 5n);
      } finally {
        await anvil.rpc('evm_setAutomine', [true]);
        await sender.close();
      }
    });
  });

  test('killed after broadcast, before the receipt: reconcile finishes the row, no duplicate', async () => {
    const account = privateKeyToAccount(KEYS.crashSent);
    const to = randomAddress();
    await anvil.rpc('evm_setAutomine', [false]);
    let info;
    try {
      info = await runAndKill({ PRIVATE_KEY: KEYS.crashSent, TO: to, VALUE: '9', CRASH_AT: 'sent' }, 'SENT');
    } catch (e) {
      await anvil.rpc('evm_setAutomine', [true]);
      throw e;
    }
    await withDb(async ({ db }) => {
      const row = await rowById(db, info.id);
      assert.equal(row.status, 'sent');
      assert.equal(row.hash, info.hash);
      // A new sender starts while the transaction still waits in the pool: its reconcile resends
      // the same raw transaction (same hash), which cannot make a second one.
      const sender = createTxSender({ db, chainId: 31337, rpcUrl: anvil.rpcUrl, account, options: { autoReconcile: false } });
      try {
        const reconciling = sender.reconcile({ wait: true });
        await new Promise((r) => setTimeout(r, 300));
        await anvil.rpc('evm_mine');
        await anvil.rpc('evm_setAutomine', [true]);
        assert.deepEqual(await reconciling, { pending: 1, mined: 1, reverted: 0, failed: 0 });
        const final = await rowById(db, info.id);
        assert.equal(final.status, 'mined');
        assert.equal(final.hash, info.hash);
        assert.equal((final.receipt as { transactionHash: string }).transactionHash, info.hash);
        assert.equal(await pub().getTransactionCount({ address: account.address }), info.nonce + 1);
        assert.equal(await pub().getBalance({ address: to }), 9n);
        const all = await db.select().from(chainTransactions).where(eq(chainTransactions.from_address, account.address));
        assert.equal(all.length, 1);
        // The wallet carries on at the next nonce.
        const next = await sender.send({ purpose: 'test-after', to, value: 1n });
        assert.equal(next.nonce, info.nonce + 1);
      } finally {
        await anvil.rpc('evm_setAutomine', [true]);
        await sender.close();
      }
    });
  });

  test('killed after recording `signed`, before any broadcast: reconcile broadcasts the recorded transaction', async () => {
    const account = privateKeyToAccount(KEYS.crashSigned);
    const to = randomAddress();
    const info = await runAndKill({ PRIVATE_KEY: KEYS.crashSigned, TO: to, VALUE: '11', CRASH_AT: 'signed' }, 'SIGNED');
    await withDb(async ({ db }) => {
      const row = await rowById(db, info.id);
      assert.equal(row.status, 'signed');
      assert.equal(keccak256(row.raw_tx as Hex), info.hash);
      // The node never saw it.
      await assert.rejects(pub().getTransaction({ hash: info.hash }));
      assert.equal(await pub().getTransactionCount({ address: account.address, blockTag: 'pending' }), info.nonce);
      const sender = createTxSender({ db, chainId: 31337, rpcUrl: anvil.rpcUrl, account, options: { autoReconcile: false } });
      try {
        assert.deepEqual(await sender.reconcile({ wait: true }), { pending: 1, mined: 1, reverted: 0, failed: 0 });
        const final = await rowById(db, info.id);
        assert.equal(final.status, 'mined');
        assert.equal(final.hash, info.hash);
        assert.equal(await pub().getTransactionCount({ address: account.address }), info.nonce + 1);
        assert.equal(await pub().getBalance({ address: to }), 11n);
      } finally {
        await sender.close();
      }
    });
  });

  test('a nonce consumed by an earlier recorded hash resolves to that hash; by an unrecorded one, fails', async () => {
    const account = privateKeyToAccount(KEYS.foreign);
    await withDb(async ({ db }) => {
      const fees = await pub().estimateFeesPerGas();
      const nonce = await pub().getTransactionCount({ address: account.address });
      const sign = (n: number, bump: bigint, to: Hex) =>
        account.signTransaction({
          chainId: 31337,
          type: 'eip1559',
          nonce: n,
          to,
          value: 1n,
          gas: 21_000n,
          maxFeePerGas: fees.maxFeePerGas * bump,
          maxPriorityFeePerGas: fees.maxPriorityFeePerGas * bump,
        });
      // Nonce n: A was broadcast and mined; the row's current hash is B (a replacement that never got in).
      const to = randomAddress();
      const rawA = await sign(nonce, 1n, to);
      const rawB = await sign(nonce, 2n, to);
      await pub().sendRawTransaction({ serializedTransaction: rawA });
      // Nonce n+1: mined by a transaction that was never recorded (the wallet used elsewhere).
      const rawX = await sign(nonce + 1, 1n, randomAddress());
      const rawY = await sign(nonce + 1, 2n, to);
      await pub().sendRawTransaction({ serializedTransaction: rawX });
      const base = { purpose: 'test-foreign', chain_id: 31337, from_address: account.address, to_address: to, value: '1' };
      const [rowA] = await db
        .insert(chainTransactions)
        .values({ ...base, nonce, hash: keccak256(rawB), raw_tx: rawB, replaced_hashes: [keccak256(rawA)], status: 'sent' })
        .returning();
      const [rowX] = await db
        .insert(chainTransactions)
        .values({ ...base, nonce: nonce + 1, hash: keccak256(rawY), raw_tx: rawY, status: 'sent' })
        .returning();
      const sender = createTxSender({
        db,
        chainId: 31337,
        rpcUrl: anvil.rpcUrl,
        account,
        options: { autoReconcile: false, unknownNonceGraceMs: 200 },
      });
      try {
        assert.deepEqual(await sender.reconcile({ wait: true }), { pending: 2, mined: 1, reverted: 0, failed: 1 });
        const a = await rowById(db, rowA!.id);
        assert.equal(a.status, 'mined');
        assert.equal(a.hash, keccak256(rawA));
        assert.deepEqual(a.replaced_hashes, [keccak256(rawB)]);
        const x = await rowById(db, rowX!.id);
        assert.equal(x.status, 'failed');
        assert.match(x.error!, /did not record/);
        assert.equal(x.nonce, nonce + 1); // spent on chain: never handed out again
      } finally {
        await sender.close();
      }
    });
  });

  test('a row recorded `queued` whose requester died is signed and sent by reconcile', async () => {
    const account = privateKeyToAccount(KEYS.queued);
    const to = randomAddress();
    await withDb(async ({ db }) => {
      const [row] = await db
        .insert(chainTransactions)
        .values({ purpose: 'test-queued', chain_id: 31337, from_address: account.address, to_address: getAddress(to), value: '3' })
        .returning();
      const sender = createTxSender({ db, chainId: 31337, rpcUrl: anvil.rpcUrl, account, options: { autoReconcile: false } });
      try {
        assert.deepEqual(await sender.reconcile({ wait: true }), { pending: 1, mined: 1, reverted: 0, failed: 0 });
        assert.equal((await rowById(db, row!.id)).status, 'mined');
        assert.equal(await pub().getBalance({ address: to }), 3n);
      } finally {
        await sender.close();
      }
    });
  });

  test('another process killed after `signed`: a running sender of the wallet settles it by its catch-up, with no request', {
    skip: !process.env.DATABASE_URL && 'needs DATABASE_URL (two live processes on one database)',
  }, async () => {
    await withDb(async ({ db }) => {
      const key = '0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97'; // anvil #8
      // This process signs for the wallet too and is running before the other one dies.
      const here = createTxSender({
        db,
        chainId: 31337,
        rpcUrl: anvil.rpcUrl,
        account: privateKeyToAccount(key),
        options: { catchUpIntervalMs: 200 },
      });
      try {
        await here.ready();
        const info = await runAndKill({ PRIVATE_KEY: key, TO: randomAddress(), CRASH_AT: 'signed' }, 'SIGNED');
        // (It may be `sent` already: the catch-up runs every 200 ms.)
        const deadline = Date.now() + 20_000;
        while ((await rowById(db, info.id)).status !== 'mined') {
          assert.ok(Date.now() < deadline, 'settled by the catch-up within 20 s');
          await new Promise((r) => setTimeout(r, 100));
        }
        const receipt = await pub().getTransactionReceipt({ hash: info.hash });
        assert.equal(receipt.status, 'success');
      } finally {
        await here.close();
      }
    });
  });
});

/**
 * The chain went back under the sender (anvil restarted from an older state file, a node that
 * restarted, a reorg): evm_snapshot / evm_revert on a real anvil take the chain back. The sender
 * broadcasts the stored raw transactions again in nonce order (same hashes), fills a nonce no
 * row may use, never sends a transaction its client was told failed, and does it by itself
 * (periodic catch-up) without any new request. Queued intents past their deadline are cancelled.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { createPublicClient, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ANVIL_PRIVATE_KEYS } from '../../src/chain/anvil.ts';
import { createTxSender } from '../../src/chain/tx/sender.ts';
import type { TxResult, TxSender } from '../../src/chain/tx/api.ts';
import { chainTransactions } from '../../src/db/schema/index.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startLocalAnvil, type LocalAnvil } from '../helpers/anvil-local.ts';
import { randomAddress, rowById } from './helpers.ts';
import { waitFor } from '../helpers/wait.ts';

/** Polls until `check` is true. */
const until = (what: string, check: () => Promise<boolean>, timeoutMs = 20_000) =>
  waitFor(what, async () => ((await check()) ? true : undefined), timeoutMs);

describe('tx sender restores what the chain lost', () => {
  let anvil: LocalAnvil;
  let database: TestDatabase;
  const senders: TxSender[] = [];
  const pub = () => createPublicClient({ transport: http(anvil.rpcUrl), cacheTime: 0 });
  const make = (key: Hex, options = {}) => {
    const s = createTxSender({
      db: database.db,
      chainId: 31337,
      rpcUrl: anvil.rpcUrl,
      account: privateKeyToAccount(key),
      options: { catchUpIntervalMs: 0, ...options },
    });
    senders.push(s);
    return s;
  };
  const receiptOf = (hash: Hex) => pub().getTransactionReceipt({ hash });
  const hasReceipt = (hash: Hex) =>
    receiptOf(hash).then(
      () => true,
      () => false,
    );

  before(async () => {
    [anvil, database] = await Promise.all([startLocalAnvil(), createTestDatabase()]);
  });
  after(async () => {
    await Promise.all(senders.map((s) => s.close()));
    await Promise.all([anvil?.stop(), database?.close()]);
  });

  test('a lost tail of mined transactions is broadcast again in nonce order, with the same hashes', async () => {
    const key = ANVIL_PRIVATE_KEYS[1];
    const address = privateKeyToAccount(key).address;
    const s = make(key);
    await s.send({ purpose: 'test-restore', to: randomAddress(), value: 1n });
    const snapshot = await anvil.rpc<string>('evm_snapshot');
    const sent = await Promise.all(
      Array.from({ length: 5 }, (_, i) => s.send({ purpose: 'test-restore', to: randomAddress(), value: BigInt(i + 2) })),
    );
    const before = await pub().getTransactionCount({ address });
    await anvil.rpc('evm_revert', [snapshot]);
    assert.equal(await pub().getTransactionCount({ address }), before - 5, 'the chain lost the five');
    for (const r of sent) assert.equal(await hasReceipt(r.hash), false);

    await s.catchUp();
    await until('chain back at the recorded nonce', async () => (await pub().getTransactionCount({ address })) === before, 20_000);
    for (const r of sent) {
      const receipt = await receiptOf(r.hash);
      assert.equal(receipt.status, 'success', `${r.hash} mined again`);
      await until('row mined again', async () => (await rowById(database.db, r.id)).status === 'mined', 10_000);
    }
    // Nothing else was sent: one transaction per row, no filler.
    const rows = await database.db.select().from(chainTransactions).where(eq(chainTransactions.from_address, address));
    assert.equal(rows.length, 6);
  });

  test('a row its client was told failed is never sent again: its nonce gets a filler, later rows still land', async () => {
    const key = ANVIL_PRIVATE_KEYS[2];
    const address = privateKeyToAccount(key).address;
    const s = make(key);
    const snapshot = await anvil.rpc<string>('evm_snapshot');
    const sent: TxResult[] = [];
    for (let i = 0; i < 3; i++) sent.push(await s.send({ purpose: 'test-restore-gap', to: randomAddress(), value: 1n }));
    await anvil.rpc('evm_revert', [snapshot]);
    // The middle one was answered as failed (as if its nonce had been used by something else).
    await database.db
      .update(chainTransactions)
      .set({ status: 'failed', error: 'told the client it failed' })
      .where(eq(chainTransactions.id, sent[1]!.id));

    await s.catchUp();
    await until('three nonces used again', async () => (await pub().getTransactionCount({ address })) === 3, 20_000);
    await until('the last row mined', async () => (await rowById(database.db, sent[2]!.id)).status === 'mined', 10_000);
    assert.equal(await hasReceipt(sent[0]!.hash), true);
    assert.equal(await hasReceipt(sent[1]!.hash), false, 'the failed one is not on chain');
    assert.equal(await hasReceipt(sent[2]!.hash), true);
    const failed = await rowById(database.db, sent[1]!.id);
    assert.equal(failed.status, 'dropped');
    assert.equal(failed.nonce, null);
    const rows = await database.db.select().from(chainTransactions).where(eq(chainTransactions.from_address, address));
    const filler = rows.find((r) => r.purpose === 'nonce-filler');
    assert.ok(filler, 'a filler was recorded');
    assert.equal(filler.nonce, sent[1]!.nonce);
    await until('filler mined', async () => (await rowById(database.db, filler.id)).status === 'mined', 10_000);
  });

  test('the periodic catch-up restores a reorged-away transaction without any new request', async () => {
    const key = ANVIL_PRIVATE_KEYS[3];
    const address = privateKeyToAccount(key).address;
    const s = make(key, { catchUpIntervalMs: 200 });
    const snapshot = await anvil.rpc<string>('evm_snapshot');
    const r = await s.send({ purpose: 'test-restore-periodic', to: randomAddress(), value: 1n });
    await anvil.rpc('evm_revert', [snapshot]);
    assert.equal(await hasReceipt(r.hash), false);
    await until('the same transaction mined again', () => hasReceipt(r.hash), 20_000);
    await until('row mined', async () => (await rowById(database.db, r.id)).status === 'mined', 10_000);
    assert.equal(await pub().getTransactionCount({ address }), 1);
  });

  test('a queued intent older than its deadline is cancelled, never sent', async () => {
    const key = ANVIL_PRIVATE_KEYS[4];
    const address = privateKeyToAccount(key).address;
    const [row] = await database.db
      .insert(chainTransactions)
      .values({
        purpose: 'test-deadline',
        chain_id: 31337,
        from_address: address,
        to_address: randomAddress(),
        value: '1',
        status: 'queued',
        created_at: new Date(Date.now() - 10 * 60_000),
      })
      .returning();
    const s = make(key, { queuedDeadlineMs: 60_000 });
    await s.ready();
    const after = await rowById(database.db, row!.id);
    assert.equal(after.status, 'failed');
    assert.match(after.error ?? '', /cancelled.*deadline/);
    assert.equal(await pub().getTransactionCount({ address, blockTag: 'pending' }), 0, 'nothing was sent');
  });
});

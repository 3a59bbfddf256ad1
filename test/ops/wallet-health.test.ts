/**
 * Wallet health (docs/operations.md "Wallet health") on a real anvil and the real backend: a
 * platform wallet drained below its threshold emits exactly one `wallet.low_balance` per crossing
 * and shows in /readyz (details; readiness unchanged) and /metrics; refunding clears it; a
 * transaction left unmined past TX_STUCK_AFTER_MS is announced once as `transaction.stuck`.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { parseEther, toHex } from 'viem';
import { chainTransactions, webhookEvents } from '../../src/db/schema/index.ts';
import { parseThresholds } from '../../src/domain/wallet-threshold.ts';
import { walletHealthOn } from '../../src/services/wire-wallet-health.ts';
import { startMintingPlatform, type MintingPlatform } from '../minting/helpers.ts';

let mp: MintingPlatform;
before(async () => {
  mp = await startMintingPlatform({ worker: false });
});
after(async () => mp.close());

const eventsOf = async (type: string) => mp.database.db.select().from(webhookEvents).where(eq(webhookEvents.type, type));
const setBalance = (ether: string) => mp.anvil.rpc('anvil_setBalance', [mp.platformAddress, toHex(parseEther(ether))]);
const metric = async (name: string) => {
  const text = await (await fetch(`${mp.backendUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(mp.platformAddress.toLowerCase()));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
};

test('drained below the threshold: one wallet.low_balance per crossing, in /readyz and /metrics; a refund clears it', async () => {
  const health = walletHealthOn(
    mp.database.db,
    { client: () => mp.client, walletAddress: () => mp.platformAddress },
    { chainIds: [31337], thresholds: parseThresholds(parseEther('5').toString()), mints: 100, stuckAfterMs: 3_600_000 },
  );
  await setBalance('1');
  const first = await health.pass();
  assert.equal(first.wallets[0]!.low, true);
  assert.equal(first.wallets[0]!.crossed, true);
  assert.equal((await health.pass()).wallets[0]!.crossed, false, 'still low: no second announcement');
  const low = await eventsOf('wallet.low_balance');
  assert.equal(low.length, 1);
  const data = (low[0]!.payload as { data: Record<string, unknown> }).data;
  assert.equal(data.address, mp.platformAddress.toLowerCase());
  assert.equal(data.balance_wei, parseEther('1').toString());
  assert.equal(data.threshold_wei, parseEther('5').toString());

  const ready = await fetch(`${mp.backendUrl}/readyz`);
  assert.equal(ready.status, 200, 'a low wallet does not take the backend out of rotation');
  const report = (await ready.json()) as { details: { wallets: Array<{ address: string; low: boolean; balance_wei: string }> } };
  const shown = report.details.wallets.find((w) => w.address === mp.platformAddress.toLowerCase());
  assert.equal(shown?.low, true);
  assert.equal(shown?.balance_wei, parseEther('1').toString());
  assert.equal(await metric('atelier_wallet_low_balance'), 1);
  assert.equal(await metric('atelier_wallet_balance_ether'), 1);
  assert.equal(await metric('atelier_wallet_low_balance_threshold_ether'), 5);

  await setBalance('10');
  assert.equal((await health.pass()).wallets[0]!.low, false);
  assert.equal(await metric('atelier_wallet_low_balance'), 0);
  assert.equal((await eventsOf('wallet.low_balance')).length, 1);

  await setBalance('2');
  assert.equal((await health.pass()).wallets[0]!.crossed, true, 'a new crossing');
  assert.equal((await eventsOf('wallet.low_balance')).length, 2);
});

test('without a fixed threshold it is WALLET_LOW_BALANCE_MINTS mints at the chain’s gas price', async () => {
  const gasPrice = await mp.client.getGasPrice();
  const health = walletHealthOn(
    mp.database.db,
    { client: () => mp.client, walletAddress: () => mp.platformAddress },
    { chainIds: [31337], thresholds: parseThresholds(undefined), mints: 3, stuckAfterMs: 3_600_000 },
  );
  const r = await health.pass();
  assert.equal(r.wallets[0]!.thresholdWei, 3n * 200_000n * gasPrice);
});

test('a transaction unmined past TX_STUCK_AFTER_MS is announced once as transaction.stuck', async () => {
  const health = walletHealthOn(
    mp.database.db,
    { client: () => mp.client, walletAddress: () => mp.platformAddress },
    { chainIds: [31337], thresholds: parseThresholds('0'), mints: 1, stuckAfterMs: 60_000 },
  );
  const [stuck] = await mp.database.db
    .insert(chainTransactions)
    .values({
      purpose: 'mint',
      chain_id: 31337,
      from_address: mp.platformAddress,
      nonce: 999,
      hash: `0x${'5a'.repeat(32)}`,
      status: 'sent',
      created_at: sql`now() - interval '2 minutes'`,
    })
    .returning();
  await mp.database.db.insert(chainTransactions).values({
    purpose: 'mint',
    chain_id: 31337,
    from_address: mp.platformAddress,
    nonce: 1000,
    hash: `0x${'5b'.repeat(32)}`,
    status: 'sent',
  });
  assert.deepEqual(
    (await health.pass()).stuck.map((s) => s.id),
    [stuck!.id],
    'only the old one',
  );
  assert.deepEqual((await health.pass()).stuck, [], 'announced once');
  const events = await eventsOf('transaction.stuck');
  assert.equal(events.length, 1);
  assert.equal((events[0]!.payload as { data: { transaction_id: string; nonce: number } }).data.transaction_id, stuck!.id);
  // tidy: the sender must not try to follow rows no transaction stands behind
  await mp.database.db.delete(chainTransactions).where(sql`nonce >= 999`);
});

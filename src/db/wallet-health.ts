/**
 * The SQL of wallet health (services/wallet-health.ts; docs/operations.md "Wallet health"): the
 * balance a process read, compared in the database with the last one, so a crossing below the
 * threshold is announced once (`wallet.low_balance`) whichever process read it; and the platform
 * transactions left unmined too long (`transaction.stuck`, once per transaction).
 */
import { and, eq, sql } from 'drizzle-orm';
import { rows, type Db } from './client.ts';
import { walletHealth } from './schema/index.ts';
import { recordWebhookEvent } from './webhooks.ts';

export type WalletHealthRow = typeof walletHealth.$inferSelect;

/** Stores a balance read; `crossed` when this read took the wallet from healthy to low (its event is written with it). */
export async function recordWalletBalance(
  db: Db,
  r: { chainId: number; address: string; balanceWei: bigint; thresholdWei: bigint },
): Promise<{ low: boolean; crossed: boolean }> {
  const address = r.address.toLowerCase();
  const low = r.balanceWei < r.thresholdWei;
  return db.transaction(async (t) => {
    await t.insert(walletHealth).values({ chain_id: r.chainId, address, balance_wei: '0', threshold_wei: '0' }).onConflictDoNothing();
    const [before] = await t
      .select()
      .from(walletHealth)
      .where(and(eq(walletHealth.chain_id, r.chainId), eq(walletHealth.address, address)))
      .for('update');
    const crossed = low && !before!.low;
    const crossings = before!.low_crossings + (crossed ? 1 : 0);
    await t
      .update(walletHealth)
      .set({
        balance_wei: r.balanceWei.toString(),
        threshold_wei: r.thresholdWei.toString(),
        low,
        low_crossings: crossings,
        checked_at: sql`now()`,
      })
      .where(and(eq(walletHealth.chain_id, r.chainId), eq(walletHealth.address, address)));
    if (crossed) {
      await recordWebhookEvent(t, {
        key: `wallet.low_balance:${r.chainId}:${address}:${crossings}`,
        type: 'wallet.low_balance',
        ownerId: null,
        payload: {
          chain_id: r.chainId,
          address,
          balance_wei: r.balanceWei.toString(),
          threshold_wei: r.thresholdWei.toString(),
        },
      });
    }
    return { low, crossed };
  });
}

/** Every wallet's last read (/metrics, /readyz details, the console). */
export function walletHealthRows(db: Db): Promise<WalletHealthRow[]> {
  return db.select().from(walletHealth).orderBy(walletHealth.chain_id, walletHealth.address);
}

export interface StuckTransaction {
  id: string;
  chain_id: number;
  from_address: string;
  nonce: number | null;
  hash: string | null;
  purpose: string;
  attempts: number;
  replaced_hashes: string[];
  age_s: number;
}

/**
 * Platform transactions sent and still unmined `olderThanMs` after they were created (fee bumps
 * included: a bumped transaction keeps its row), each announced once by `transaction.stuck`.
 * Returns the ones announced now.
 */
export async function announceStuckTransactions(db: Db, olderThanMs: number): Promise<StuckTransaction[]> {
  const stuck = await rows<StuckTransaction>(
    db,
    sql`SELECT id, chain_id, from_address, nonce, hash, purpose, attempts, replaced_hashes,
               extract(epoch FROM now() - created_at)::float8 AS age_s
        FROM chain_transactions
        WHERE status IN ('signed', 'sent') AND created_at < now() - (${olderThanMs} * interval '1 millisecond')
          -- not announced yet (the event's id from its key, as recordWebhookEvent makes it)
          AND NOT EXISTS (SELECT 1 FROM webhook_events e
            WHERE e.id = 'msg_' || substr(encode(sha256(convert_to('transaction.stuck:' || chain_transactions.id, 'UTF8')), 'hex'), 1, 32))
        ORDER BY created_at LIMIT 100`,
  );
  const announced: StuckTransaction[] = [];
  for (const s of stuck) {
    const id = await recordWebhookEvent(db, {
      key: `transaction.stuck:${s.id}`,
      type: 'transaction.stuck',
      ownerId: null,
      payload: {
        transaction_id: s.id,
        chain_id: s.chain_id,
        from: s.from_address,
        nonce: s.nonce,
        hash: s.hash,
        replaced_hashes: s.replaced_hashes,
        purpose: s.purpose,
        attempts: s.attempts,
        age_seconds: Math.round(s.age_s),
      },
    });
    if (id) announced.push(s);
  }
  return announced;
}

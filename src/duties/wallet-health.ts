/**
 * The wallet-health duty (docs/operations.md "Wallet health"): one process at a time (the
 * `wallet-health` lease) reads the platform wallet's balance every WALLET_HEALTH_INTERVAL_MS and
 * sweeps for stuck transactions (services/wallet-health.ts).
 */
import type { WalletHealth } from '../services/wallet-health.ts';
import { type BackgroundDuty, every } from './runner.ts';

export function startWalletHealthDuty(
  health: WalletHealth,
  opts: { intervalMs: number; log: { warn(obj: object, msg: string): void } },
): BackgroundDuty {
  return every(
    opts.intervalMs,
    async () => {
      const r = await health.pass();
      for (const w of r.wallets) {
        if (w.crossed) {
          opts.log.warn(
            { chain_id: w.chainId, wallet: w.address, balance_wei: w.balanceWei.toString(), threshold_wei: w.thresholdWei.toString() },
            'platform wallet balance is below its threshold',
          );
        }
      }
      for (const t of r.stuck) opts.log.warn({ chain_id: t.chain_id, transaction: t.id, hash: t.hash }, 'platform transaction is stuck');
    },
    (err) => opts.log.warn({ err }, 'wallet health check failed'),
  );
}

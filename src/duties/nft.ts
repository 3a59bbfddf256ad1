/**
 * The background duties of a process with a chain: the MetadataUpdate emitter and the crash
 * repair (mints and deploys), each in one process at a time, the holder of its lease
 * (src/duties/runner.ts; every replica is a candidate and takes over when the holder dies); and
 * webhook delivery, in every process (its claims keep deliverers apart; docs/webhooks.md).
 */
import type { ChainServices } from '../chain/platform-chain.ts';
import type { Db } from '../db/client.ts';
import { deployServiceOf, metadataUpdatePortsOf, repairPortsOf } from '../services/wire-nft.ts';
import { fairSeedsOf } from '../services/wire-fairness.ts';
import { startRepairer } from './crash-repair.ts';
import { startFairnessDuty } from './fairness.ts';
import { startMetadataUpdater } from './metadata-updates.ts';
import { webhookDelivererOn, type WebhookSettings } from '../services/wire-webhooks.ts';
import type { WalletHealthSettings } from '../services/wallet-health.ts';
import { walletHealthOn } from '../services/wire-wallet-health.ts';
import { startWalletHealthDuty } from './wallet-health.ts';
import { allDuties, type BackgroundDuty, DUTY, every, startLeasedDuty } from './runner.ts';

export function startNftDuties(opts: {
  db: Db;
  chain: ChainServices;
  metadataBaseUrl: string;
  /** The NFT chain (the deploy service's default) and the lease time-to-live. */
  chainId: number;
  leaseTtlMs: number;
  webhooks: WebhookSettings;
  walletHealth: WalletHealthSettings & { intervalMs: number };
  log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
}): BackgroundDuty {
  const { db, chain, log } = opts;
  const deploy = deployServiceOf(db, { chainId: opts.chainId, metadataBaseUrl: opts.metadataBaseUrl, chain });
  const leased = (name: string, start: () => BackgroundDuty) =>
    startLeasedDuty({
      db,
      name,
      ttlMs: opts.leaseTtlMs,
      start,
      onError: (err) => log.warn({ err, duty: name }, 'duty lease failed'),
      onChange: (leader) => log.info({ duty: name, leader }, leader ? 'duty lease taken' : 'duty lease given up'),
    });
  const webhooks = webhookDelivererOn(db, opts.webhooks, log);
  return allDuties([
    every(
      1000,
      async () => {
        while ((await webhooks.pass()) > 0);
      },
      (err) => log.warn({ err }, 'webhook delivery failed'),
    ),
    leased(DUTY.metadataUpdates, () =>
      startMetadataUpdater(metadataUpdatePortsOf(db, chain), {
        onError: (err) => log.warn({ err }, 'MetadataUpdate failed'),
      }),
    ),
    leased('fairness', () =>
      startFairnessDuty(db, fairSeedsOf(db, { SEED_CONFIRMATIONS: 1 }, chain), {
        onError: (err) => log.warn({ err }, 'seed commit/reveal failed'),
      }),
    ),
    leased(DUTY.walletHealth, () =>
      startWalletHealthDuty(walletHealthOn(db, chain, opts.walletHealth), { intervalMs: opts.walletHealth.intervalMs, log }),
    ),
    leased(DUTY.crashRepair, () =>
      startRepairer(
        repairPortsOf(db, opts.metadataBaseUrl, () => deploy.recoverAll()),
        {
          onError: (err) => log.warn({ err }, 'crash repair failed'),
          onRepaired: (what) => log.info(what, 'crash repair'),
        },
      ),
    ),
  ]);
}

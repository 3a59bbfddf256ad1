/** The real ports of wallet health: db/wallet-health.ts on one database and the chain's clients. */
import type { Address } from 'viem';
import type { ChainServices } from '../chain/platform-chain.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { announceStuckTransactions, recordWalletBalance, walletHealthRows } from '../db/wallet-health.ts';
import { bindDb } from './ports.ts';
import { createWalletHealth, createWalletHealthReads, type WalletHealthSettings } from './wallet-health.ts';

export function walletHealthSettingsOf(
  config: Pick<Config, 'NFT_CHAIN_ID' | 'WALLET_LOW_BALANCE_WEI' | 'WALLET_LOW_BALANCE_MINTS' | 'TX_STUCK_AFTER_MS'>,
): WalletHealthSettings {
  return {
    chainIds: [config.NFT_CHAIN_ID],
    thresholds: config.WALLET_LOW_BALANCE_WEI,
    mints: config.WALLET_LOW_BALANCE_MINTS,
    stuckAfterMs: config.TX_STUCK_AFTER_MS,
  };
}

export function walletHealthOn(db: Db, chain: Pick<ChainServices, 'client' | 'walletAddress'>, settings: WalletHealthSettings) {
  return createWalletHealth(
    bindDb(db, { recordWalletBalance, announceStuckTransactions }),
    {
      walletAddress: (chainId) => chain.walletAddress(chainId),
      balance: (chainId, address) => chain.client(chainId).getBalance({ address: address as Address }),
      gasPrice: (chainId) => chain.client(chainId).getGasPrice(),
    },
    settings,
  );
}

/** The console's read of the stored wallet health (GET /api/wallet-health). */
export const walletHealthReadsOn = (db: Db) => createWalletHealthReads(bindDb(db, { walletHealthRows }));

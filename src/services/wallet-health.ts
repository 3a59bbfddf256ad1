/**
 * Wallet health (docs/operations.md "Wallet health"): reads the platform wallet's balance and the
 * gas price per chain, compares it with the chain's threshold, and stores the read; the database
 * announces a crossing below the threshold once (`wallet.low_balance`). Transactions unmined past
 * TX_STUCK_AFTER_MS are announced once each (`transaction.stuck`).
 */
import { chainName } from '../domain/chain-names.ts';
import { authorize, type Caller } from '../domain/policy.ts';
import { lowBalanceThreshold, thresholdFor } from '../domain/wallet-threshold.ts';
import { weiToEther } from '../domain/ether.ts';

export interface WalletHealthStore {
  recordWalletBalance(r: { chainId: number; address: string; balanceWei: bigint; thresholdWei: bigint }): Promise<{
    low: boolean;
    crossed: boolean;
  }>;
  announceStuckTransactions(olderThanMs: number): Promise<Array<{ id: string; chain_id: number; hash: string | null }>>;
}

export interface WalletChain {
  walletAddress(chainId: number): string;
  balance(chainId: number, address: string): Promise<bigint>;
  gasPrice(chainId: number): Promise<bigint>;
}

export interface WalletHealthSettings {
  chainIds: number[];
  thresholds: { all?: bigint; byChain: Map<number, bigint> };
  mints: number;
  stuckAfterMs: number;
}

export function createWalletHealth(store: WalletHealthStore, chain: WalletChain, s: WalletHealthSettings) {
  return {
    /** One read of every chain's wallet, then the stuck-transaction sweep. */
    async pass() {
      const wallets = [];
      for (const chainId of s.chainIds) {
        const address = chain.walletAddress(chainId);
        const fixedWei = thresholdFor(s.thresholds, chainId);
        const [balanceWei, gasPriceWei] = await Promise.all([
          chain.balance(chainId, address),
          fixedWei === undefined ? chain.gasPrice(chainId) : Promise.resolve(0n),
        ]);
        const thresholdWei = lowBalanceThreshold({ ...(fixedWei === undefined ? {} : { fixedWei }), mints: s.mints, gasPriceWei });
        const r = await store.recordWalletBalance({ chainId, address, balanceWei, thresholdWei });
        wallets.push({ chainId, address, balanceWei, thresholdWei, ...r });
      }
      const stuck = await store.announceStuckTransactions(s.stuckAfterMs);
      return { wallets, stuck };
    },
  };
}

export type WalletHealth = ReturnType<typeof createWalletHealth>;

/** A stored read of one wallet (db/wallet-health.ts `walletHealthRows`). */
export interface WalletHealthRead {
  chain_id: number;
  address: string;
  balance_wei: string;
  threshold_wei: string;
  low: boolean;
  checked_at: Date | string;
}

/**
 * The platform wallet's health as the duty last stored it, for the operator's console
 * (GET /api/wallet-health): the same rows /readyz and /metrics read, nothing computed again.
 */
export function createWalletHealthReads(store: { walletHealthRows(): Promise<WalletHealthRead[]> }) {
  return {
    async list(caller: Caller) {
      authorize(caller, 'platform.read_wallet_health');
      return (await store.walletHealthRows()).map((w) => ({
        chain_id: w.chain_id,
        chain_name: chainName(w.chain_id),
        address: w.address,
        balance_wei: w.balance_wei,
        balance_eth: weiToEther(w.balance_wei),
        threshold_wei: w.threshold_wei,
        threshold_eth: weiToEther(w.threshold_wei),
        low: w.low,
        checked_at: new Date(w.checked_at).toISOString(),
      }));
    },
  };
}

export type WalletHealthReads = ReturnType<typeof createWalletHealthReads>;

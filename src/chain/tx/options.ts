/** The sender's tunables and their defaults (pure). docs/chain.md explains each policy. */
import type { Hex } from 'viem';
import { MIN_BUMP_PERMILLE } from './fees.ts';

export interface TxSenderOptions {
  /** Receipt/nonce polling period. Default: the chain's (50 ms on the dev chain). */
  pollIntervalMs?: number;
  /** A sent transaction not mined after this long is replaced (same nonce, higher fees). Default 120 s (dev 10 s). */
  stuckAfterMs?: number;
  /** Fee bump per replacement in per mille, at least 125 (+12.5 %, what nodes require). Default 200. */
  feeBumpPermille?: number;
  /** Replacements never raise maxFeePerGas above this (wei). Default: no cap. */
  maxFeePerGasCap?: bigint;
  /** Replacements never raise maxFeePerGas above the node's current estimate × this (a bounded bump). Default 3. */
  maxFeeMultiplier?: number;
  /** The periodic catch-up (restore lost transactions, settle every unfinished row): its period. Default 5 s (dev 2 s); 0: off. */
  catchUpIntervalMs?: number;
  /** A `queued` intent not signed within this is cancelled (never sent later). Default 2 min. */
  queuedDeadlineMs?: number;
  /** A chain that lost more recorded transactions than this is treated as reset, not restored. Default 5000. */
  restoreMaxTxs?: number;
  /** Estimated gas × this / 100. Default 120. */
  gasMarginPercent?: number;
  /** send() gives up waiting (TxTimeoutError) after this; the row stays pending and is still finished. Default 10 min. */
  receiptTimeoutMs?: number;
  /** Transient RPC failures: retries and backoff. Defaults 6, 200 ms, 5 s. */
  retries?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** Per RPC call. Default 10 s. */
  rpcTimeoutMs?: number;
  /** How long a nonce may look consumed without a receipt for any recorded hash before the row fails. Default 60 s. */
  unknownNonceGraceMs?: number;
  /** Run reconcile() when created (sends wait for it). Default true. */
  autoReconcile?: boolean;
  /** Test hooks: run after the row is recorded `signed` (before broadcast) / `sent`. */
  hooks?: TxHooks;
}

export interface TxHooks {
  afterSigned?(info: { id: string; nonce: number; hash: Hex }): void | Promise<void>;
  afterSent?(info: { id: string; nonce: number; hash: Hex }): void | Promise<void>;
}

export type ResolvedOptions = Required<Omit<TxSenderOptions, 'maxFeePerGasCap' | 'hooks'>> &
  Pick<TxSenderOptions, 'maxFeePerGasCap' | 'hooks'>;

/** Fills in the defaults for a chain (`dev`: the anvil dev chain; `pollingIntervalMs`: its block time). */
export function resolveOptions(o: TxSenderOptions, chain: { dev: boolean; pollingIntervalMs: number }): ResolvedOptions {
  return {
    pollIntervalMs: o.pollIntervalMs ?? chain.pollingIntervalMs,
    stuckAfterMs: o.stuckAfterMs ?? (chain.dev ? 10_000 : 120_000),
    feeBumpPermille: Math.max(Number(MIN_BUMP_PERMILLE), o.feeBumpPermille ?? 200),
    gasMarginPercent: o.gasMarginPercent ?? 120,
    maxFeeMultiplier: Math.max(1.2, o.maxFeeMultiplier ?? 3),
    catchUpIntervalMs: o.catchUpIntervalMs ?? (chain.dev ? 2_000 : 5_000),
    queuedDeadlineMs: o.queuedDeadlineMs ?? 120_000,
    restoreMaxTxs: o.restoreMaxTxs ?? 5_000,
    receiptTimeoutMs: o.receiptTimeoutMs ?? 600_000,
    retries: o.retries ?? 6,
    retryBaseMs: o.retryBaseMs ?? 200,
    retryMaxMs: o.retryMaxMs ?? 5_000,
    rpcTimeoutMs: o.rpcTimeoutMs ?? 10_000,
    unknownNonceGraceMs: o.unknownNonceGraceMs ?? 60_000,
    autoReconcile: o.autoReconcile ?? true,
    maxFeePerGasCap: o.maxFeePerGasCap,
    hooks: o.hooks,
  };
}

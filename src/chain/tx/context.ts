/**
 * What every part of one sender shares: its wallet, database, RPC client (viem retries off: the
 * sender retries, tx/retry.ts), options and logger, plus the three calls they all make.
 */
import { getAddress, type Address, type LocalAccount, type PublicClient } from 'viem';
import { findTransaction, type ChainTransaction, type Wallet } from '../../db/chain-transactions.ts';
import type { Db } from '../../db/client.ts';
import { chainInfo, publicClientForUrl } from '../chains.ts';
import type { ChainLogger } from '../wallet.ts';
import type { TxSenderDeps } from './api.ts';
import { describeError } from './errors.ts';
import type { Fees } from './fees.ts';
import { resolveOptions, type ResolvedOptions } from './options.ts';
import { withRetry } from './retry.ts';

export interface SenderContext {
  readonly db: Db;
  readonly chainId: number;
  readonly address: Address;
  readonly wallet: Wallet;
  readonly account: LocalAccount;
  readonly client: PublicClient;
  readonly log: ChainLogger;
  readonly o: ResolvedOptions;
  /** The anvil dev chain, which may be reset under us (tx/nonce.ts). */
  readonly dev: boolean;
  /** An RPC call with transient retries, each logged. */
  retry<T>(what: string, fn: () => Promise<T>): Promise<T>;
  /** The node's current fee estimate (with retries). */
  currentFees(): Promise<Fees>;
  /** The row, which must exist. */
  load(id: string): Promise<ChainTransaction>;
}

const noop: ChainLogger = { info() {}, warn() {}, error() {} };

export function createSenderContext(deps: TxSenderDeps): SenderContext {
  const info = chainInfo(deps.chainId);
  const o = resolveOptions(deps.options ?? {}, info);
  const address = getAddress(deps.account.address);
  const log = deps.logger ?? noop;
  const client = publicClientForUrl(deps.chainId, deps.rpcUrl, { retryCount: 0, timeoutMs: o.rpcTimeoutMs });
  const retry = <T>(what: string, fn: () => Promise<T>): Promise<T> =>
    withRetry(fn, {
      retries: o.retries,
      baseMs: o.retryBaseMs,
      maxMs: o.retryMaxMs,
      onRetry: (err, attempt, delayMs) =>
        log.warn({ what, attempt, delayMs, err: describeError(err) }, 'tx sender: transient RPC failure, retrying'),
    });
  return {
    db: deps.db,
    chainId: deps.chainId,
    address,
    wallet: { chainId: deps.chainId, address },
    account: deps.account,
    client,
    log,
    o,
    dev: info.dev,
    retry,
    async currentFees() {
      const f = await retry('estimateFeesPerGas', () => client.estimateFeesPerGas());
      return { maxFeePerGas: f.maxFeePerGas, maxPriorityFeePerGas: f.maxPriorityFeePerGas };
    },
    async load(id) {
      const row = await findTransaction(deps.db, id);
      if (!row) throw new Error(`chain transaction ${id} not found`);
      return row;
    },
  };
}

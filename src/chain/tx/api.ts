/**
 * The sender's public API: what callers send, what they get back, and the errors they may see.
 * A revert is a result (`status: 'reverted'`), not an error; `TxFailedError` means nothing
 * reached the chain. Behaviour: docs/chain.md.
 */
import type { Address, Hex, LocalAccount, TransactionReceipt } from 'viem';
import type { Db } from '../../db/client.ts';
import type { ChainLogger } from '../wallet.ts';
import type { TxSenderOptions } from './options.ts';

export type { ChainTransaction as TxRow } from '../../db/chain-transactions.ts';
export type { TxStatus } from '../../domain/ports/tx-record.ts';
export type { TxSenderOptions } from './options.ts';

export interface TxRequest {
  /** What the write is for (≤ 50 chars), e.g. `mint`, `deploy-factory`. */
  purpose: string;
  /** Absent: contract creation with `data` as init code. */
  to?: Address;
  data?: Hex;
  value?: bigint;
  /** Same key → same transaction: a repeat waits for the first and never sends again. */
  idempotencyKey?: string;
  /** Gas limit; estimated (plus a margin) when absent. */
  gas?: bigint;
}

export interface TxResult {
  id: string;
  hash: Hex;
  nonce: number;
  status: 'mined' | 'reverted';
  receipt: TransactionReceipt;
}

export interface ReconcileSummary {
  /** Unfinished rows found (queued, signed, sent). */
  pending: number;
  /** With wait: how they ended. */
  mined?: number;
  reverted?: number;
  failed?: number;
}

export interface TxSenderDeps {
  db: Db;
  chainId: number;
  rpcUrl: string;
  /** A local (private key) account: the sender signs itself and never asks the node to. */
  account: LocalAccount;
  logger?: ChainLogger;
  options?: TxSenderOptions;
}

export interface TxSender {
  readonly chainId: number;
  readonly address: Address;
  /** Records, signs, sends and waits for the receipt. Rejects with TxFailedError when nothing could be sent. */
  send(req: TxRequest): Promise<TxResult>;
  /** Picks up unfinished rows of this wallet and chain; `wait` resolves once they are final. */
  reconcile(opts?: { wait?: boolean }): Promise<ReconcileSummary>;
  /** Resolves once the catch-up at creation ran (what the chain lost is broadcast again). */
  ready(): Promise<void>;
  /** A catch-up pass now: restores what the chain lost (gaps filled), then settles unfinished rows. */
  catchUp(): Promise<void>;
  close(): Promise<void>;
}

export class TxFailedError extends Error {
  constructor(
    readonly id: string,
    message: string,
  ) {
    super(message);
    this.name = 'TxFailedError';
  }
}

export class TxTimeoutError extends Error {
  constructor(
    readonly id: string,
    readonly hash: Hex | null,
  ) {
    super(`transaction ${id} (${hash ?? 'unsigned'}) not mined yet; it stays recorded and will still be finished`);
    this.name = 'TxTimeoutError';
  }
}

export class IdempotencyConflictError extends Error {
  constructor(readonly key: string) {
    super(`idempotency key "${key}" was already used for a different transaction`);
    this.name = 'IdempotencyConflictError';
  }
}

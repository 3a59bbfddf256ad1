/**
 * The transaction sender: the only code in Atelier that signs. Every write is recorded in
 * `chain_transactions` before it is sent, nonces are assigned by one owner per wallet, receipts
 * are awaited, stuck transactions are replaced, and a restart finishes whatever was pending.
 * States, guarantees and policies: docs/chain.md.
 *
 *   queued ──sign──▶ signed ──broadcast──▶ sent ──receipt──▶ mined | reverted
 *     │                │  (raw_tx stored first)  └─stuck: re-sign same nonce, higher fees
 *     └──▶ failed ◀────┘  (only when nothing reached the chain; the nonce is released)
 */
import { and, eq, inArray, isNotNull, max, sql } from 'drizzle-orm';
import {
  getAddress,
  keccak256,
  parseTransaction,
  type Address,
  type Hex,
  type LocalAccount,
  type PublicClient,
  type TransactionReceipt,
} from 'viem';
import type { Db } from '../db/client.ts';
import { chainTransactions } from '../db/schema/index.ts';
import { chainInfo, publicClientForUrl } from './chains.ts';
import { classifyError, describeError, isUniqueViolation, sleep, withRetry, type ErrorKind } from './tx-errors.ts';
import { createTxQueue, type TxQueue } from './tx-queue.ts';
import type { ChainLogger } from './wallet.ts';

/** `dropped`: finished on a dev chain that was reset since (anvil restarted without state); its nonce is released. */
export type TxStatus = 'queued' | 'signed' | 'sent' | 'mined' | 'reverted' | 'failed' | 'dropped';
export type TxRow = typeof chainTransactions.$inferSelect;

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

export interface TxSenderOptions {
  /** Receipt/nonce polling period. Default: the chain's (50 ms on the dev chain). */
  pollIntervalMs?: number;
  /** A sent transaction not mined after this long is replaced (same nonce, higher fees). Default 120 s (dev 10 s). */
  stuckAfterMs?: number;
  /** Fee bump per replacement in per mille, at least 125 (+12.5 %, what nodes require). Default 200. */
  feeBumpPermille?: number;
  /** Replacements never raise maxFeePerGas above this (wei). Default: no cap. */
  maxFeePerGasCap?: bigint;
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
  /** BullMQ key prefix (Redis mode). Default `atelier`. */
  queuePrefix?: string;
  /** Test hooks: run after the row is recorded `signed` (before broadcast) / `sent`. */
  hooks?: {
    afterSigned?(info: { id: string; nonce: number; hash: Hex }): void | Promise<void>;
    afterSent?(info: { id: string; nonce: number; hash: Hex }): void | Promise<void>;
  };
}

export interface TxSenderDeps {
  db: Db;
  chainId: number;
  rpcUrl: string;
  /** A local (private key) account: the sender signs itself and never asks the node to. */
  account: LocalAccount;
  logger?: ChainLogger;
  /** With it, nonce assignment runs in one BullMQ consumer per wallet across all processes. */
  redisUrl?: string;
  options?: TxSenderOptions;
}

export interface TxSender {
  readonly chainId: number;
  readonly address: Address;
  /** Records, signs, sends and waits for the receipt. Rejects with TxFailedError when nothing could be sent. */
  send(req: TxRequest): Promise<TxResult>;
  /** Picks up unfinished rows of this wallet and chain; `wait` resolves once they are final. */
  reconcile(opts?: { wait?: boolean }): Promise<ReconcileSummary>;
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

const t = chainTransactions;
const UNFINISHED: TxStatus[] = ['queued', 'signed', 'sent'];
const IN_FLIGHT: TxStatus[] = ['signed', 'sent'];
const noop: ChainLogger = { info() {}, warn() {}, error() {} };

/** A row whose transaction is signed (and maybe broadcast), tracked until it has a receipt. */
interface Watched {
  id: string;
  nonce: number;
  /** Every hash signed for this nonce, oldest first; the last one is `raw`. */
  hashes: Hex[];
  raw: Hex;
  /** The current raw has not been accepted by the node yet (status `signed`). */
  needsBroadcast: boolean;
  lastSignedAt: number;
  consumedSince?: number;
  waiters: Array<{ resolve(r: TxResult): void; reject(e: unknown): void }>;
}

function receiptJson(receipt: TransactionReceipt): unknown {
  return JSON.parse(JSON.stringify(receipt, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
}

const bump = (x: bigint, permille: bigint) => (x * (1000n + permille)) / 1000n + 1n;
const maxBig = (...xs: bigint[]) => xs.reduce((a, b) => (b > a ? b : a));

class Sender implements TxSender {
  readonly chainId: number;
  readonly address: Address;
  private readonly db: Db;
  private readonly account: LocalAccount;
  private readonly client: PublicClient;
  private readonly log: ChainLogger;
  private readonly o: Required<Omit<TxSenderOptions, 'maxFeePerGasCap' | 'hooks'>> & Pick<TxSenderOptions, 'maxFeePerGasCap' | 'hooks'>;
  private readonly queue: TxQueue | undefined;
  /** Tail of the in-process serial section (nonce → sign → record → broadcast). */
  private serialTail: Promise<unknown> = Promise.resolve();
  /** The next nonce this process would use; realigned from chain and database every time. */
  private localNext = 0;
  private readonly watched = new Map<string, Watched>();
  private loopRunning = false;
  private loopFailures = 0;
  private closed = false;
  private readonly ready: Promise<void>;
  private readonly dev: boolean;

  constructor(deps: TxSenderDeps) {
    const info = chainInfo(deps.chainId);
    this.chainId = deps.chainId;
    this.dev = info.dev;
    this.db = deps.db;
    this.account = deps.account;
    this.address = getAddress(deps.account.address);
    this.log = deps.logger ?? noop;
    const o = deps.options ?? {};
    this.o = {
      pollIntervalMs: o.pollIntervalMs ?? info.pollingIntervalMs,
      stuckAfterMs: o.stuckAfterMs ?? (info.dev ? 10_000 : 120_000),
      feeBumpPermille: Math.max(125, o.feeBumpPermille ?? 200),
      gasMarginPercent: o.gasMarginPercent ?? 120,
      receiptTimeoutMs: o.receiptTimeoutMs ?? 600_000,
      retries: o.retries ?? 6,
      retryBaseMs: o.retryBaseMs ?? 200,
      retryMaxMs: o.retryMaxMs ?? 5_000,
      rpcTimeoutMs: o.rpcTimeoutMs ?? 10_000,
      unknownNonceGraceMs: o.unknownNonceGraceMs ?? 60_000,
      autoReconcile: o.autoReconcile ?? true,
      queuePrefix: o.queuePrefix ?? 'atelier',
      maxFeePerGasCap: o.maxFeePerGasCap,
      hooks: o.hooks,
    };
    // viem's own retries are off: this module retries, so every retry is deliberate and logged.
    this.client = publicClientForUrl(deps.chainId, deps.rpcUrl, { retryCount: 0, timeoutMs: this.o.rpcTimeoutMs });
    if (deps.redisUrl) {
      this.queue = createTxQueue({
        redisUrl: deps.redisUrl,
        prefix: this.o.queuePrefix,
        name: `tx-${deps.chainId}-${this.address.toLowerCase()}`,
        execute: async (rowId, gas) => (await this.execute(rowId, gas)).status as TxStatus,
      });
    }
    this.ready = this.o.autoReconcile
      ? this.reconcile().then(
          () => undefined,
          (err) => this.log.error({ err: describeError(err) }, 'tx sender: reconcile at start failed'),
        )
      : Promise.resolve();
  }

  private retry<T>(what: string, fn: () => Promise<T>): Promise<T> {
    return withRetry(fn, {
      retries: this.o.retries,
      baseMs: this.o.retryBaseMs,
      maxMs: this.o.retryMaxMs,
      onRetry: (err, attempt, delayMs) =>
        this.log.warn({ what, attempt, delayMs, err: describeError(err) }, 'tx sender: transient RPC failure, retrying'),
    });
  }

  // ---------------------------------------------------------------- send

  async send(req: TxRequest): Promise<TxResult> {
    if (this.closed) throw new Error('tx sender is closed');
    if (!req.purpose || req.purpose.length > 50) throw new Error('purpose: 1 to 50 characters');
    if (req.value !== undefined && req.value < 0n) throw new Error('value: must not be negative');
    if (!req.to && !req.data) throw new Error('a contract creation needs data (init code)');
    await this.ready;
    let row = await this.insertOrGet(req);
    if (row.status === 'queued') row = await this.runQueued(row.id, req.gas);
    return this.outcome(row);
  }

  private async insertOrGet(req: TxRequest): Promise<TxRow> {
    const values = {
      purpose: req.purpose,
      chain_id: this.chainId,
      from_address: this.address,
      to_address: req.to ? getAddress(req.to) : null,
      data: req.data ? req.data.toLowerCase() : null,
      value: (req.value ?? 0n).toString(),
      idempotency_key: req.idempotencyKey ?? null,
      status: 'queued' as TxStatus,
    };
    if (!req.idempotencyKey) {
      const [row] = await this.db.insert(t).values(values).returning();
      return row!;
    }
    const [row] = await this.db.insert(t).values(values).onConflictDoNothing({ target: t.idempotency_key }).returning();
    if (row) return row;
    const [existing] = await this.db.select().from(t).where(eq(t.idempotency_key, req.idempotencyKey));
    if (
      !existing ||
      existing.chain_id !== values.chain_id ||
      existing.from_address.toLowerCase() !== values.from_address.toLowerCase() ||
      (existing.to_address ?? '').toLowerCase() !== (values.to_address ?? '').toLowerCase() ||
      (existing.data ?? '') !== (values.data ?? '') ||
      BigInt(existing.value) !== BigInt(values.value)
    ) {
      throw new IdempotencyConflictError(req.idempotencyKey);
    }
    return existing;
  }

  /** Gets a queued row signed and broadcast: here, or by the wallet's queue consumer in Redis mode. */
  private async runQueued(id: string, gas?: bigint): Promise<TxRow> {
    if (!this.queue) return this.execute(id, gas);
    await this.queue.run(id, gas, this.o.receiptTimeoutMs);
    const row = await this.load(id);
    if (row.status === 'queued') throw new TxTimeoutError(id, null);
    return row;
  }

  /** Turns a row that is past `queued` into the caller's answer. */
  private async outcome(row: TxRow): Promise<TxResult> {
    switch (row.status as TxStatus) {
      case 'failed':
      case 'dropped':
        throw new TxFailedError(row.id, `transaction ${row.id} (${row.purpose}) failed: ${row.error ?? 'unknown error'}`);
      case 'mined':
      case 'reverted': {
        const hash = row.hash as Hex;
        const receipt = await this.retry('getTransactionReceipt', () => this.client.getTransactionReceipt({ hash }));
        return { id: row.id, hash, nonce: row.nonce!, status: row.status as 'mined' | 'reverted', receipt };
      }
      case 'queued':
        throw new TxTimeoutError(row.id, null);
      default:
        return this.waitFor(row);
    }
  }

  private async load(id: string): Promise<TxRow> {
    const [row] = await this.db.select().from(t).where(eq(t.id, id));
    if (!row) throw new Error(`chain transaction ${id} not found`);
    return row;
  }

  // ---------------------------------------------------------------- the serial section

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.serialTail.then(fn, fn);
    this.serialTail = run.catch(() => {});
    return run;
  }

  /**
   * queued → signed → sent (or failed). Safe to call twice for one row, from two processes:
   * only the caller whose conditional `queued → signed` update wins broadcasts.
   */
  async execute(id: string, gasLimit?: bigint): Promise<TxRow> {
    let row = await this.load(id);
    if (row.status !== 'queued') return row;
    const to = (row.to_address ?? undefined) as Address | undefined;
    const data = (row.data ?? undefined) as Hex | undefined;
    const value = BigInt(row.value);
    // Gas and fees outside the serial section: slow calls there would stall every other send.
    let gas: bigint;
    let fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };
    try {
      gas =
        gasLimit ??
        ((await this.retry('estimateGas', () => this.client.estimateGas({ account: this.address, to, data, value }))) *
          BigInt(this.o.gasMarginPercent)) /
          100n;
      fees = await this.fees();
    } catch (err) {
      return this.markFailed(id, err);
    }

    return this.serial(async () => {
      row = await this.load(id);
      if (row.status !== 'queued') return row;
      for (let attempt = 0; attempt < 8; attempt++) {
        let nonce: number;
        let raw: Hex;
        try {
          nonce = await this.nextNonce();
          raw = await this.account.signTransaction!({
            chainId: this.chainId,
            type: 'eip1559',
            nonce,
            to: to ?? null,
            data,
            value,
            gas,
            ...fees,
          });
        } catch (err) {
          return this.markFailed(id, err);
        }
        const hash = keccak256(raw);
        let signed: TxRow | undefined;
        try {
          [signed] = await this.db
            .update(t)
            .set({ status: 'signed', nonce, hash, raw_tx: raw, attempts: sql`${t.attempts} + 1`, updated_at: new Date() })
            .where(and(eq(t.id, id), eq(t.status, 'queued')))
            .returning();
        } catch (err) {
          // The nonce is recorded by another row: someone else (another process) moved on; realign.
          if (isUniqueViolation(err, 'chain_transactions_wallet_nonce')) {
            this.localNext = nonce + 1;
            continue;
          }
          throw err;
        }
        if (!signed) return this.load(id);
        await this.o.hooks?.afterSigned?.({ id, nonce, hash });

        const kind = await this.broadcast(raw);
        if (kind === 'ok' || kind === 'already-known') {
          this.localNext = nonce + 1;
          await this.db
            .update(t)
            .set({ status: 'sent', updated_at: new Date() })
            .where(and(eq(t.id, id), eq(t.status, 'signed')));
          await this.o.hooks?.afterSent?.({ id, nonce, hash });
          return this.load(id);
        }
        if (kind === 'transient') {
          // The node may or may not have it: keep the nonce; the watcher rebroadcasts raw_tx.
          this.localNext = nonce + 1;
          this.log.warn({ id, nonce, hash }, 'tx sender: broadcast outcome unknown; will rebroadcast');
          return this.load(id);
        }
        if (kind === 'nonce-too-low' || kind === 'underpriced' || kind === 'fee-too-low') {
          // The node refused this exact transaction, so it can never be mined: unsign and retry.
          if (kind === 'fee-too-low') fees = await this.fees().catch(() => fees);
          else this.localNext = nonce + 1;
          this.log.warn({ id, nonce, reason: kind }, 'tx sender: node refused the nonce or fee; re-signing');
          await this.db
            .update(t)
            .set({ status: 'queued', nonce: null, hash: null, raw_tx: null, updated_at: new Date() })
            .where(and(eq(t.id, id), eq(t.status, 'signed')));
          continue;
        }
        // Permanent refusal: nothing reached the chain, so the nonce is released for the next send.
        this.localNext = nonce;
        return this.markFailed(id, kind.error, ['signed']);
      }
      return this.markFailed(id, new Error('could not find a usable nonce after 8 attempts'), ['queued']);
    });
  }

  private async fees(): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> {
    const f = await this.retry('estimateFeesPerGas', () => this.client.estimateFeesPerGas());
    return { maxFeePerGas: f.maxFeePerGas, maxPriorityFeePerGas: f.maxPriorityFeePerGas };
  }

  /**
   * The next nonce: the highest of the chain's pending count, the database's highest recorded
   * nonce + 1 (covers signed-but-unbroadcast rows and lagging RPC replicas) and this process's
   * counter. Read fresh each time, so another process or wallet user never causes a collision.
   */
  private async nextNonce(): Promise<number> {
    const pending = await this.retry('getTransactionCount', () =>
      this.client.getTransactionCount({ address: this.address, blockTag: 'pending' }),
    );
    const [r] = await this.db
      .select({ n: max(t.nonce) })
      .from(t)
      .where(and(eq(t.chain_id, this.chainId), eq(t.from_address, this.address), isNotNull(t.nonce)));
    let recorded = r?.n === null || r?.n === undefined ? 0 : Number(r.n) + 1;
    if (this.dev && Math.max(recorded, this.localNext) > pending) {
      // Dev chain reset (anvil restarted without its state): mined rows above the chain's nonce
      // belong to a chain that no longer exists. Only unfinished rows still hold nonces there;
      // without any, continuing from the recorded nonce would leave a gap nothing ever fills.
      const [u] = await this.db
        .select({ n: max(t.nonce) })
        .from(t)
        .where(and(eq(t.chain_id, this.chainId), eq(t.from_address, this.address), isNotNull(t.nonce), inArray(t.status, IN_FLIGHT)));
      const inFlight = u?.n === null || u?.n === undefined ? 0 : Number(u.n) + 1;
      if (inFlight <= pending) {
        if (recorded > pending) {
          this.log.warn({ chainId: this.chainId, pending, recorded }, 'tx sender: dev chain was reset; nonces start again from the chain');
          // Their nonces are free again on the new chain (the unique index would refuse them).
          await this.db
            .update(t)
            .set({
              status: 'dropped',
              nonce: null,
              error: sql`'dev chain reset: nonce ' || ${t.nonce} || ' was used on a chain that no longer exists' || coalesce('; ' || ${t.error}, '')`,
              updated_at: new Date(),
            })
            .where(
              and(
                eq(t.chain_id, this.chainId),
                eq(t.from_address, this.address),
                sql`${t.nonce} >= ${pending}`,
                inArray(t.status, ['mined', 'reverted', 'failed']),
              ),
            );
        }
        recorded = pending;
        this.localNext = pending;
      }
    }
    this.localNext = Math.max(pending, recorded, this.localNext);
    return this.localNext;
  }

  /** Broadcasts with transient retries; returns what the node said. */
  private async broadcast(raw: Hex): Promise<'ok' | Exclude<ErrorKind, 'permanent'> | { error: unknown }> {
    try {
      await this.retry('sendRawTransaction', () => this.client.sendRawTransaction({ serializedTransaction: raw }));
      return 'ok';
    } catch (err) {
      const kind = classifyError(err);
      return kind === 'permanent' ? { error: err } : kind;
    }
  }

  private async markFailed(id: string, err: unknown, from: TxStatus[] = ['queued']): Promise<TxRow> {
    const message = describeError(err);
    this.log.warn({ id, err: message }, 'tx sender: transaction failed before reaching the chain');
    await this.db
      .update(t)
      .set({ status: 'failed', error: message, nonce: null, hash: null, raw_tx: null, updated_at: new Date() })
      .where(and(eq(t.id, id), inArray(t.status, from)));
    return this.load(id);
  }

  // ---------------------------------------------------------------- receipts, replacement

  private track(row: TxRow): Watched {
    let w = this.watched.get(row.id);
    if (!w) {
      w = {
        id: row.id,
        nonce: row.nonce!,
        hashes: [...((row.replaced_hashes ?? []) as Hex[]), row.hash as Hex],
        raw: row.raw_tx as Hex,
        needsBroadcast: row.status === 'signed',
        lastSignedAt: Date.now(),
        waiters: [],
      };
      this.watched.set(row.id, w);
    }
    if (!this.loopRunning) void this.loop();
    return w;
  }

  private waitFor(row: TxRow): Promise<TxResult> {
    const w = this.track(row);
    return new Promise<TxResult>((resolve, reject) => {
      const timer = setTimeout(() => {
        w.waiters = w.waiters.filter((x) => x !== waiter);
        reject(new TxTimeoutError(row.id, w.hashes.at(-1) ?? null));
      }, this.o.receiptTimeoutMs);
      timer.unref?.();
      const waiter = {
        resolve: (r: TxResult) => (clearTimeout(timer), resolve(r)),
        reject: (e: unknown) => (clearTimeout(timer), reject(e)),
      };
      w.waiters.push(waiter);
    });
  }

  /** One loop per sender while anything is watched: one nonce read per tick for the whole wallet. */
  private async loop(): Promise<void> {
    this.loopRunning = true;
    try {
      while (!this.closed && this.watched.size > 0) {
        try {
          await this.tick();
          this.loopFailures = 0;
        } catch (err) {
          this.loopFailures++;
          this.log.warn({ err: describeError(err), failures: this.loopFailures }, 'tx sender: receipt poll failed');
        }
        const backoff = Math.min(this.o.retryMaxMs, this.o.pollIntervalMs * 2 ** Math.min(this.loopFailures, 10));
        await sleep(this.loopFailures ? backoff : this.o.pollIntervalMs);
      }
    } finally {
      this.loopRunning = false;
    }
  }

  private async tick(): Promise<void> {
    const mined = await this.client.getTransactionCount({ address: this.address, blockTag: 'latest' });
    const list = [...this.watched.values()].sort((a, b) => a.nonce - b.nonce);
    for (const w of list) {
      if (this.closed) return;
      if (w.nonce < mined) await this.resolveConsumed(w);
      else if (w.needsBroadcast) await this.rebroadcast(w);
      else if (Date.now() - w.lastSignedAt >= this.o.stuckAfterMs) await this.replace(w);
    }
  }

  /** The nonce is used on chain: whichever of our hashes has a receipt wins. */
  private async resolveConsumed(w: Watched): Promise<void> {
    for (const hash of [...w.hashes].reverse()) {
      let receipt: TransactionReceipt;
      try {
        receipt = await this.client.getTransactionReceipt({ hash });
      } catch (err) {
        if ((err as Error).name === 'TransactionReceiptNotFoundError') continue;
        throw err;
      }
      await this.finalize(w, receipt);
      return;
    }
    // A replacement may have been recorded by another process since we loaded the row.
    const row = await this.load(w.id);
    if (!IN_FLIGHT.includes(row.status as TxStatus)) return this.settleFromRow(w, row);
    const known = [...((row.replaced_hashes ?? []) as Hex[]), row.hash as Hex];
    if (known.some((h) => !w.hashes.includes(h))) {
      w.hashes = known;
      w.raw = row.raw_tx as Hex;
      return;
    }
    w.consumedSince ??= Date.now();
    if (Date.now() - w.consumedSince < this.o.unknownNonceGraceMs) return;
    // Keep the nonce on the row: it is spent on chain, so it must not be handed out again.
    const message = `nonce ${w.nonce} was used by a transaction this sender did not record (wallet used elsewhere?)`;
    await this.db
      .update(t)
      .set({ status: 'failed', error: message, updated_at: new Date() })
      .where(and(eq(t.id, w.id), inArray(t.status, IN_FLIGHT)));
    this.log.error({ id: w.id, nonce: w.nonce }, `tx sender: ${message}`);
    this.settle(w, undefined, new TxFailedError(w.id, message));
  }

  private async finalize(w: Watched, receipt: TransactionReceipt): Promise<void> {
    const status = receipt.status === 'success' ? 'mined' : 'reverted';
    const hash = receipt.transactionHash;
    await this.db
      .update(t)
      .set({
        status,
        hash,
        replaced_hashes: w.hashes.filter((h) => h !== hash),
        receipt: receiptJson(receipt),
        updated_at: new Date(),
      })
      .where(and(eq(t.id, w.id), inArray(t.status, IN_FLIGHT)));
    this.settle(w, { id: w.id, hash, nonce: w.nonce, status, receipt });
  }

  private async settleFromRow(w: Watched, row: TxRow): Promise<void> {
    if (row.status === 'failed') return this.settle(w, undefined, new TxFailedError(row.id, row.error ?? 'failed'));
    try {
      this.settle(w, await this.outcome(row));
    } catch (err) {
      this.settle(w, undefined, err);
    }
  }

  private settle(w: Watched, result?: TxResult, error?: unknown): void {
    this.watched.delete(w.id);
    for (const waiter of w.waiters) result ? waiter.resolve(result) : waiter.reject(error);
  }

  /** The node never confirmed it has the current raw transaction: send it again (same hash). */
  private async rebroadcast(w: Watched): Promise<void> {
    const kind = await this.broadcastOnce(w.raw);
    if (kind === 'ok' || kind === 'already-known' || kind === 'underpriced') {
      // underpriced: a higher-fee one of ours holds the nonce in the pool, which is fine too.
      w.needsBroadcast = false;
      w.lastSignedAt = Date.now();
      await this.db
        .update(t)
        .set({ status: 'sent', updated_at: new Date() })
        .where(and(eq(t.id, w.id), eq(t.status, 'signed')));
    } else if (kind !== 'nonce-too-low' && kind !== 'transient') {
      this.log.error({ id: w.id, nonce: w.nonce, reason: kind }, 'tx sender: rebroadcast refused');
      // Keep trying: the nonce is recorded and later nonces depend on it; a replacement may get in.
      w.needsBroadcast = false;
    }
  }

  private async broadcastOnce(raw: Hex): Promise<'ok' | ErrorKind> {
    try {
      await this.client.sendRawTransaction({ serializedTransaction: raw });
      return 'ok';
    } catch (err) {
      return classifyError(err);
    }
  }

  /** Same nonce, same call, fees up by at least feeBumpPermille; recorded before it is broadcast. */
  private async replace(w: Watched): Promise<void> {
    const old = parseTransaction(w.raw);
    const oldFee = old.maxFeePerGas ?? 0n;
    const oldTip = old.maxPriorityFeePerGas ?? 0n;
    const now = await this.fees().catch(() => ({ maxFeePerGas: 0n, maxPriorityFeePerGas: 0n }));
    const permille = BigInt(this.o.feeBumpPermille);
    let tip = maxBig(bump(oldTip, permille), now.maxPriorityFeePerGas);
    let fee = maxBig(bump(oldFee, permille), now.maxFeePerGas, tip);
    const cap = this.o.maxFeePerGasCap;
    if (cap !== undefined && fee > cap) {
      fee = cap;
      if (tip > fee) tip = fee;
      if (fee < bump(oldFee, 125n) || tip < bump(oldTip, 125n)) {
        // At the cap: a replacement would be refused; keep the current one in the pool instead.
        w.lastSignedAt = Date.now();
        w.needsBroadcast = true;
        this.log.warn({ id: w.id, nonce: w.nonce }, 'tx sender: stuck at the fee cap; rebroadcasting');
        return;
      }
    }
    const raw = await this.account.signTransaction!({
      chainId: this.chainId,
      type: 'eip1559',
      nonce: w.nonce,
      to: old.to ?? null,
      data: old.data,
      value: old.value ?? 0n,
      gas: old.gas,
      maxFeePerGas: fee,
      maxPriorityFeePerGas: tip,
    });
    const hash = keccak256(raw);
    const oldHash = w.hashes.at(-1)!;
    const [updated] = await this.db
      .update(t)
      .set({
        hash,
        raw_tx: raw,
        replaced_hashes: sql`${t.replaced_hashes} || ${JSON.stringify([oldHash])}::jsonb`,
        attempts: sql`${t.attempts} + 1`,
        updated_at: new Date(),
      })
      .where(and(eq(t.id, w.id), eq(t.hash, oldHash), inArray(t.status, IN_FLIGHT)))
      .returning();
    if (!updated) {
      // Another process replaced or finished it first: follow the row.
      const row = await this.load(w.id);
      if (!IN_FLIGHT.includes(row.status as TxStatus)) return this.settleFromRow(w, row);
      w.hashes = [...((row.replaced_hashes ?? []) as Hex[]), row.hash as Hex];
      w.raw = row.raw_tx as Hex;
      w.lastSignedAt = Date.now();
      return;
    }
    w.hashes.push(hash);
    w.raw = raw;
    w.lastSignedAt = Date.now();
    this.log.info({ id: w.id, nonce: w.nonce, oldHash, hash, maxFeePerGas: String(fee) }, 'tx sender: replaced a stuck transaction');
    w.needsBroadcast = true;
    await this.rebroadcast(w);
  }

  // ---------------------------------------------------------------- reconcile, close

  async reconcile(opts: { wait?: boolean } = {}): Promise<ReconcileSummary> {
    const rows = await this.db
      .select()
      .from(t)
      .where(and(eq(t.chain_id, this.chainId), eq(t.from_address, this.address), inArray(t.status, UNFINISHED)))
      .orderBy(t.created_at);
    const waits: Array<Promise<TxResult>> = [];
    for (const row of rows) {
      if (row.status === 'queued') {
        // Recorded but never signed (the requester stopped): finish the recorded intent.
        const run = this.runQueued(row.id).then((r) => this.outcome(r));
        waits.push(run);
      } else {
        const w = this.track(row);
        // The node may have lost it (restart, eviction); resending the same raw is harmless.
        w.needsBroadcast = true;
        waits.push(this.waitFor(row));
      }
    }
    if (rows.length) this.log.info({ pending: rows.length }, 'tx sender: reconciling unfinished transactions');
    if (!opts.wait) {
      for (const p of waits) p.catch(() => {});
      return { pending: rows.length };
    }
    const settled = await Promise.allSettled(waits);
    const count = (s: string) => settled.filter((r) => r.status === 'fulfilled' && r.value.status === s).length;
    return {
      pending: rows.length,
      mined: count('mined'),
      reverted: count('reverted'),
      failed: settled.filter((r) => r.status === 'rejected').length,
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue?.close();
    await this.serialTail.catch(() => {});
    for (const w of this.watched.values()) {
      this.settle(w, undefined, new Error('tx sender closed; the transaction stays recorded and will be reconciled'));
    }
  }
}

/**
 * One sender per wallet and chain in a process. In Redis mode, any number of processes may each
 * create one for the same wallet: nonces are assigned by a single queue consumer at a time.
 */
export function createTxSender(deps: TxSenderDeps): TxSender {
  return new Sender(deps);
}

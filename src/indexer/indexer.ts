/**
 * The ownership indexer's engine (docs/indexer.md): runs the stages, range by range, after
 * Ponder's split —
 *   sync (sync.ts: headers, logs, reorg checks; writes nothing) → decode (decode.ts, pure) →
 *   projections (projections.ts, pure) → store (the port store-port.ts: the only writer, one
 *   transaction per range) → publish (publish.ts: events after the commit) — plus the watchdog
 *   (watchdog.ts) and the follow loop with backoff.
 *
 * Invariants: nothing above head − confirmations is written or announced; a range is committed
 * whole or not at all; on a reorg the store rolls back to the common ancestor and the pass starts
 * again on the new branch; re-running any range adds nothing twice.
 */
import { getAddress } from 'viem';
import type { IndexerStatus } from '../domain/ports/indexer-rows.ts';
import { decodeLogs } from './decode.ts';
import type { IndexerEvents } from './events.ts';
import { defaultConfirmations, isRecent, nextRange, RangeSize, retryDelay, statusAt } from './plan.ts';
import { groupMints, latestPerToken } from './projections.ts';
import { Announced, eventsOf, publishAll, retractionsOf } from './publish.ts';
import type { IndexerStore } from './store-port.ts';
import { type BlockSource, checkLastIndexed, fetchRange, findCommonAncestor, ReorgDetected } from './sync.ts';
import { assess, DEFAULT_WATCHDOG, type LiveStatus, liveStatusOf, type WatchdogLimits } from './watchdog.ts';
import { trackOutage } from '../logging/dependency-outage.ts';

export interface IndexerLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

const silentLogger: IndexerLogger = { info() {}, warn() {}, error() {} };

export interface IndexerOptions {
  chainId: number;
  /** The one writer of the indexer's rows (createDbStore in production). */
  store: IndexerStore;
  /** The chain (JsonRpc in production). */
  source: BlockSource;
  /** The DiamondFactory whose CollectionCreated logs name the collections to follow. */
  factoryAddress?: string;
  /** First block to index (the factory's deployment block). */
  startBlock?: number;
  /** A block counts once head − number ≥ confirmations. Default 0 on the dev chain 31337, else 12. */
  confirmations?: number;
  pollIntervalMs?: number;
  /** Largest eth_getLogs range in blocks (the size adapts below it). Default 5000. */
  maxBlockRange?: number;
  /** Addresses per eth_getLogs call. Default 500. */
  addressChunk?: number;
  /** Blocks near the head whose headers are all checked and stored. Default 64. */
  recentWindow?: number;
  events?: IndexerEvents;
  logger?: IndexerLogger;
  watchdog?: Partial<WatchdogLimits>;
}

export interface RangeResult {
  from: number;
  to: number;
  logs: number;
  transfers: number;
}

/** Stored block hashes older than this many blocks below a range are pruned. */
const KEEP_BLOCKS = 100_000;
/** Deck links at most this often (the transfers route also matches unlinked rows). */
const LINK_EVERY_MS = 2000;
/** Reorgs handled within one pass before it gives up (and the loop retries). */
const MAX_REORGS_PER_PASS = 20;

export class Indexer {
  readonly chainId: number;
  readonly confirmations: number;
  private readonly store: IndexerStore;
  private readonly source: BlockSource;
  private readonly log: IndexerLogger;
  private readonly factory: string | undefined;
  private readonly startBlock: number;
  private readonly size: RangeSize;
  private readonly limits: WatchdogLimits;
  private readonly announced = new Announced();
  /** The loop runs; `stopping` asks the loop and syncOnce's range loop to end. */
  private running = false;
  private stopping = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private watchdogTimer: NodeJS.Timeout | undefined;
  private headBlock: number | null = null;
  private lastIndexed: number | null = null;
  private lastProgressAt: number | null = null;
  private lastLinkAt = 0;
  private warnings: string[] = [];
  /** Logs and transfers indexed by this process (bench). */
  totalLogs = 0;
  totalTransfers = 0;

  constructor(private readonly opts: IndexerOptions) {
    this.chainId = opts.chainId;
    this.store = opts.store;
    this.source = opts.source;
    this.log = opts.logger ?? silentLogger;
    this.factory = opts.factoryAddress ? getAddress(opts.factoryAddress) : undefined;
    this.startBlock = opts.startBlock ?? 0;
    this.confirmations = opts.confirmations ?? defaultConfirmations(opts.chainId);
    this.size = new RangeSize(opts.maxBlockRange ?? 5000);
    this.limits = { ...DEFAULT_WATCHDOG, ...opts.watchdog };
  }

  // ---------- lifecycle ----------

  /** Runs the follow loop in the background until stop(). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopping = false;
    this.loop = this.runLoop();
    this.watchdogTimer = setInterval(() => void this.checkWatchdog(), this.limits.intervalMs);
    this.watchdogTimer.unref();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.running = false;
    if (this.watchdogTimer) clearInterval(this.watchdogTimer);
    this.wake?.();
    await this.loop;
    this.loop = undefined;
  }

  /** Wakes the loop now instead of after the poll interval (tests, after a known transaction). */
  poke(): void {
    this.wake?.();
  }

  private async runLoop(): Promise<void> {
    let failures = 0;
    try {
      await this.store.ensureState(this.startBlock);
      await this.store.markStarted();
    } catch (err) {
      this.log.error({ err: (err as Error).message, chainId: this.chainId }, 'indexer: state not readable yet');
    }
    // A failing source (RPC node or database) is logged once with its cause when the failures
    // start and once when a pass succeeds again, not on every retry (docs/operations.md).
    const outage = trackOutage(`indexer source of chain ${this.chainId} (RPC or database)`, {}, (level, msg, fields) =>
      level === 'warn'
        ? this.log.error({ ...fields, chainId: this.chainId }, msg)
        : this.log.info({ ...fields, chainId: this.chainId }, msg),
    );
    while (!this.stopping) {
      try {
        await this.syncOnce();
        failures = 0;
        outage.recovered();
      } catch (err) {
        failures += 1;
        const message = err instanceof Error ? err.message : String(err);
        outage.failed(err);
        await this.store.recordError(message).catch(() => {});
      }
      if (this.stopping) break;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, retryDelay(failures, this.opts.pollIntervalMs ?? 1000));
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  /**
   * Full reindex: deletes every indexed row of this chain, clears the decks' owners and starts
   * again from the start block with status `reindexing` (until caught up, then `idle`).
   */
  async resetForReindex(): Promise<void> {
    await this.store.reset(this.startBlock);
    this.announced.clear();
    this.log.warn({ chainId: this.chainId, startBlock: this.startBlock }, 'indexer: full reindex started');
  }

  // ---------- one pass ----------

  /**
   * Indexes every confirmed block not indexed yet, range by range; returns when caught up.
   * Nothing else may write this chain's indexer rows meanwhile (one indexer per chain).
   */
  async syncOnce(): Promise<RangeResult[]> {
    const done: RangeResult[] = [];
    for (let reorgs = 0; ; reorgs++) {
      try {
        await this.pass(done);
        return done;
      } catch (err) {
        if (!(err instanceof ReorgDetected) || reorgs >= MAX_REORGS_PER_PASS) throw err;
        await this.rollback(err.atBlock);
      }
    }
  }

  private async pass(done: RangeResult[]): Promise<void> {
    const state = await this.store.ensureState(this.startBlock);
    const head = await this.source.blockNumber();
    this.headBlock = head;
    const safe = head - this.confirmations;
    let status: IndexerStatus = state.status;
    let last = state.last_indexed_block;
    let lastHash = state.last_indexed_hash;

    await checkLastIndexed(this.source, last, lastHash);
    await this.linkDecks();

    for (let range = nextRange(last, safe, this.size.current); range && !this.stopping; range = nextRange(last, safe, this.size.current)) {
      let result: RangeResult & { hash: string };
      try {
        result = await this.indexRange(range.from, range.to, lastHash, statusAt(status, range.to, safe), head);
      } catch (err) {
        if (err instanceof ReorgDetected) throw err;
        if (this.size.shrink(err)) {
          this.log.warn({ range: this.size.current, err: (err as Error).message }, 'indexer: smaller eth_getLogs range');
          continue;
        }
        throw err;
      }
      done.push({ from: result.from, to: result.to, logs: result.logs, transfers: result.transfers });
      last = range.to;
      lastHash = result.hash;
      status = statusAt(status, last, safe);
      this.lastIndexed = last;
      this.lastProgressAt = Date.now();
      this.size.grow(result.logs);
    }

    // Caught up (or nothing to do): settle the status and record the head.
    await this.store.settle(statusAt(status, last, safe), head);
    this.lastIndexed = last;
    this.lastProgressAt = Date.now();
    this.announced.prune();
  }

  private async indexRange(
    from: number,
    to: number,
    prevHash: string | null,
    status: IndexerStatus,
    head: number,
  ): Promise<RangeResult & { hash: string }> {
    // sync
    const fetched = await fetchRange(this.source, {
      from,
      to,
      prevHash,
      recent: isRecent(to, head, this.opts.recentWindow ?? 64),
      factory: this.factory,
      followed: await this.store.followedAddresses(),
      addressChunk: this.opts.addressChunk ?? 500,
    });
    // decode and projections
    const decoded = decodeLogs(fetched.logs, fetched.timestamps, this.factory);
    for (const s of decoded.skipped) this.log.warn({ tx: s.tx_hash, err: s.reason }, 'indexer: undecodable log skipped');
    const rows = {
      apps: decoded.apps,
      transfers: decoded.transfers,
      owners: decoded.owners,
      upgrades: decoded.upgrades,
      mints: groupMints(decoded.transfers),
    };
    // store
    const added = await this.store.commitRange({
      ...rows,
      from,
      to,
      lastHash: fetched.lastHash,
      status,
      head,
      latest: latestPerToken(decoded.transfers),
      blocks: fetched.blocks,
    });
    // publish
    const sink = this.opts.events;
    if (sink)
      publishAll(sink, eventsOf(rows, added, this.announced), (err) =>
        this.log.warn({ err: err.message }, 'indexer: event listener failed'),
      );

    this.totalLogs += fetched.logs.length;
    this.totalTransfers += decoded.transfers.length;
    if (fetched.logs.length) this.log.info({ chainId: this.chainId, from, to, logs: fetched.logs.length }, 'indexer: range indexed');
    // Keep the sparse hash history bounded (about once per 1,000 blocks).
    if (to % 1000 < to - from + 1) await this.store.pruneBlocks(to - KEEP_BLOCKS);
    return { from, to, hash: fetched.lastHash, logs: fetched.logs.length, transfers: decoded.transfers.length };
  }

  // ---------- reorgs and decks ----------

  /** Rolls back to the common ancestor of the stored blocks and the chain; returns it. */
  async rollback(atBlock: number): Promise<number> {
    const ancestor = await findCommonAncestor(
      this.source,
      (below, limit) => this.store.storedBlocks(below, limit),
      atBlock,
      this.startBlock,
    );
    const removed = await this.store.rollbackTo(ancestor);
    this.lastIndexed = ancestor.number;
    // Clients were told of these transfers; they are told they no longer happened (committed first).
    this.announced.forgetTxs(new Set(removed.map((t) => t.tx_hash)));
    const sink = this.opts.events;
    if (sink) publishAll(sink, retractionsOf(removed), (err) => this.log.warn({ err: err.message }, 'indexer: event listener failed'));
    this.log.warn(
      { chainId: this.chainId, detectedAt: atBlock, commonAncestor: ancestor.number, transfersRemoved: removed.length },
      'indexer: reorg, rolled back',
    );
    return ancestor.number;
  }

  /**
   * Transfers indexed before their deck existed carry deck_id null; link them and set the deck's
   * owner. Runs at most every 2 s unless forced (the transfers route also matches unlinked rows).
   */
  async linkDecks(force = false): Promise<void> {
    if (!force && Date.now() - this.lastLinkAt < LINK_EVERY_MS) return;
    this.lastLinkAt = Date.now();
    await this.store.linkDecks();
  }

  // ---------- watchdog ----------

  private progress() {
    return {
      running: this.running,
      headBlock: this.headBlock,
      lastIndexed: this.lastIndexed,
      lastProgressAt: this.lastProgressAt,
      confirmations: this.confirmations,
    };
  }

  /** Flags as of now; warnings as of the last watchdog check. */
  liveStatus(): LiveStatus {
    const p = this.progress();
    return liveStatusOf(p, assess(p, this.limits, Date.now()), this.warnings);
  }

  /** Refreshes the head and reports falling behind or no progress (logger.warn, liveStatus().warnings). */
  async checkWatchdog(): Promise<LiveStatus> {
    try {
      this.headBlock = await this.source.blockNumber();
    } catch {
      // An unreachable RPC shows up as a stall.
    }
    const p = this.progress();
    const a = assess(p, this.limits, Date.now());
    this.warnings = a.warnings;
    for (const w of a.warnings) this.log.warn({ chainId: this.chainId, lag: a.lag_blocks }, `indexer watchdog: ${w}`);
    return liveStatusOf(p, a, a.warnings);
  }
}

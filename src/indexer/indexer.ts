/**
 * The ownership indexer (docs/indexer.md): follows the factory's CollectionCreated and every
 * collection's Transfer, OwnershipTransferred and DiamondCut logs into PostgreSQL.
 *
 * - Block ranges of eth_getLogs (adaptive size) up to head − confirmations.
 * - One transaction per range: multi-row INSERT … ON CONFLICT DO NOTHING of every row, deck owners,
 *   block hashes and last_indexed_block together, so a crash anywhere leaves a consistent state and
 *   a restart re-runs at most one range without duplicates.
 * - Reorgs: the parent hash of the next block (or the hash of the last indexed block) is compared
 *   with the stored hash; on a mismatch the indexer walks back to the common ancestor, deletes
 *   everything above it in one transaction, recomputes the affected decks' owners and goes on.
 * - Events go out after the commit, once per log (socket.io, realtime.ts).
 */
import { decodeEventLog, getAddress, toEventSelector, type Hex } from 'viem';
import { sql } from 'drizzle-orm';
import { collectionAbi, diamondFactoryAbi } from '../../contracts/abi/index.ts';
import type { Database, Db } from '../db/client.ts';
import { appRoom, type IndexerEvent, type IndexerEvents } from './events.ts';
import { JsonRpc, type RawBlock, type RawLog } from './rpc.ts';

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
export type IndexerStatus = 'idle' | 'indexing' | 'reindexing';

const eventTopic = (abi: readonly unknown[], name: string) => {
  const item = (abi as { type: string; name: string }[]).find((x) => x.type === 'event' && x.name === name);
  if (!item) throw new Error(`event ${name} missing from the ABI`);
  return toEventSelector(item as never);
};
export const TOPICS = {
  Transfer: eventTopic(collectionAbi, 'Transfer'),
  OwnershipTransferred: eventTopic(collectionAbi, 'OwnershipTransferred'),
  DiamondCut: eventTopic(collectionAbi, 'DiamondCut'),
  CollectionCreated: eventTopic(diamondFactoryAbi, 'CollectionCreated'),
};

export interface IndexerLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

const silentLogger: IndexerLogger = { info() {}, warn() {}, error() {} };

export interface IndexerOptions {
  database: Database;
  chainId: number;
  rpcUrl: string;
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
  watchdog?: { intervalMs?: number; maxLagBlocks?: number; maxStallMs?: number };
}

export interface LiveStatus {
  running: boolean;
  head_block: number | null;
  lag_blocks: number | null;
  last_progress_at: string | null;
  behind: boolean;
  stalled: boolean;
  warnings: string[];
  confirmations: number;
}

export interface StateRow {
  id: string;
  status: IndexerStatus;
  last_indexed_block: number;
  last_indexed_hash: string | null;
  chain_id: number;
  started_at: Date | string | null;
  updated_at: Date | string | null;
  head_block: number | null;
  start_block: number | null;
  last_error: string | null;
}

export const stateId = (chainId: number) => `chain:${chainId}`;

/** Rows from drizzle's execute on both drivers (pg QueryResult and PGlite Results have .rows). */
export async function rows<T>(db: Db | Parameters<Parameters<Db['transaction']>[0]>[0], q: ReturnType<typeof sql>): Promise<T[]> {
  const r = (await db.execute(q)) as unknown as { rows: T[] };
  return r.rows;
}

export async function readState(db: Db, chainId: number): Promise<StateRow | undefined> {
  const [row] = await rows<StateRow>(db, sql`SELECT * FROM indexer_state WHERE id = ${stateId(chainId)}`);
  if (!row) return undefined;
  return {
    ...row,
    last_indexed_block: Number(row.last_indexed_block),
    head_block: row.head_block === null ? null : Number(row.head_block),
    start_block: row.start_block === null ? null : Number(row.start_block),
  };
}

const num = (h: string) => Number.parseInt(h, 16);
const topicAddress = (t: string) => getAddress(`0x${t.slice(26)}`);
const isoOf = (seconds: number) => new Date(seconds * 1000).toISOString();

interface TransferRow {
  collection_address: string;
  token_id: string;
  from_address: string;
  to_address: string;
  block_number: number;
  block_hash: string;
  tx_hash: string;
  log_index: number;
  timestamp: string;
}
interface OwnerRow {
  app_address: string;
  from_address: string;
  to_address: string;
  block_number: number;
  block_hash: string;
  tx_hash: string;
  log_index: number;
  timestamp: string;
}
interface UpgradeRow {
  contract_address: string;
  init_address: string;
  init_calldata: string;
  cuts: { facetAddress: string; action: 'add' | 'replace' | 'remove'; functionSelectors: string[] }[];
  block_number: number;
  block_hash: string;
  tx_hash: string;
  log_index: number;
  timestamp: string;
}
interface AppRow {
  address: string;
  factory_address: string;
  name: string;
  symbol: string;
  creator: string;
  block_number: number;
  block_hash: string;
  tx_hash: string;
  log_index: number;
  timestamp: string;
}
interface MintRow {
  app_address: string;
  to_address: string;
  start_token_id: string;
  quantity: number;
  block_number: number;
  block_hash: string;
  tx_hash: string;
  log_index: number;
  timestamp: string;
}

const CUT_ACTIONS = ['add', 'replace', 'remove'] as const;

class ReorgDetected extends Error {
  constructor(readonly atBlock: number) {
    super(`reorg detected at block ${atBlock}`);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface RangeResult {
  from: number;
  to: number;
  logs: number;
  transfers: number;
}

export class Indexer {
  readonly chainId: number;
  readonly confirmations: number;
  private readonly db: Db;
  private readonly rpc: JsonRpc;
  private readonly log: IndexerLogger;
  private readonly factory: string | undefined;
  private readonly startBlock: number;
  private range: number;
  private readonly maxRange: number;
  /** The background loop runs; `stopping` asks the loop and syncOnce's range loop to end. */
  private running = false;
  private stopping = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private watchdogTimer: NodeJS.Timeout | undefined;
  private headBlock: number | null = null;
  private lastIndexed: number | null = null;
  private lastProgressAt: number | null = null;
  private lastLinkAt = 0;
  private readonly emitted = new Map<string, true>();
  private warnings: string[] = [];
  /** Total logs written by this process (bench). */
  totalLogs = 0;
  totalTransfers = 0;

  constructor(private readonly opts: IndexerOptions) {
    this.chainId = opts.chainId;
    this.db = opts.database.db;
    this.rpc = new JsonRpc(opts.rpcUrl);
    this.log = opts.logger ?? silentLogger;
    this.factory = opts.factoryAddress ? getAddress(opts.factoryAddress) : undefined;
    this.startBlock = opts.startBlock ?? 0;
    this.confirmations = opts.confirmations ?? (opts.chainId === 31337 ? 0 : 12);
    this.maxRange = opts.maxBlockRange ?? 5000;
    this.range = this.maxRange;
  }

  // ---------- lifecycle ----------

  /** Runs the follow loop in the background until stop(). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopping = false;
    this.loop = this.runLoop();
    const wd = this.opts.watchdog ?? {};
    this.watchdogTimer = setInterval(() => void this.checkWatchdog(), wd.intervalMs ?? 10_000);
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
    await this.markStarted();
    while (!this.stopping) {
      try {
        await this.syncOnce();
        failures = 0;
      } catch (err) {
        failures += 1;
        const message = err instanceof Error ? err.message : String(err);
        this.log.error({ err: message, chainId: this.chainId }, 'indexer pass failed');
        await this.recordError(message).catch(() => {});
      }
      if (this.stopping) break;
      const wait = failures ? Math.min(30_000, 500 * 2 ** failures) : (this.opts.pollIntervalMs ?? 1000);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, wait);
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  // ---------- state ----------

  private async ensureState(): Promise<StateRow> {
    const existing = await readState(this.db, this.chainId);
    if (existing) return existing;
    await this.db.execute(sql`
      INSERT INTO indexer_state (id, status, last_indexed_block, last_indexed_hash, chain_id, started_at, updated_at, start_block)
      VALUES (${stateId(this.chainId)}, 'indexing', ${this.startBlock - 1}, NULL, ${this.chainId}, now(), now(), ${this.startBlock})
      ON CONFLICT (id) DO NOTHING`);
    return (await readState(this.db, this.chainId))!;
  }

  private async markStarted(): Promise<void> {
    await this.ensureState();
    await this.db.execute(sql`UPDATE indexer_state SET started_at = now(), updated_at = now() WHERE id = ${stateId(this.chainId)}`);
  }

  private async recordError(message: string): Promise<void> {
    await this.db.execute(
      sql`UPDATE indexer_state SET last_error = ${message.slice(0, 2000)}, updated_at = now() WHERE id = ${stateId(this.chainId)}`,
    );
  }

  /**
   * Full reindex: deletes every indexed row of this chain, clears the decks' owners and starts
   * again from the start block with status `reindexing` (until caught up, then `idle`).
   */
  async resetForReindex(): Promise<void> {
    await this.ensureState();
    const c = this.chainId;
    await this.db.transaction(async (tx) => {
      await tx.execute(sql`DELETE FROM transfers WHERE chain_id = ${c}`);
      await tx.execute(sql`DELETE FROM app_token_mints WHERE chain_id = ${c}`);
      await tx.execute(sql`DELETE FROM owner_token_transfers WHERE chain_id = ${c}`);
      await tx.execute(sql`DELETE FROM contract_upgrades WHERE chain_id = ${c}`);
      await tx.execute(sql`DELETE FROM apps WHERE chain_id = ${c}`);
      await tx.execute(sql`DELETE FROM indexed_blocks WHERE chain_id = ${c}`);
      await tx.execute(sql`
        UPDATE decks SET current_owner = NULL, last_transfer_at = NULL
        WHERE collection_id IN (SELECT id FROM collections WHERE chain_id = ${c})`);
      await tx.execute(sql`
        UPDATE indexer_state SET status = 'reindexing', last_indexed_block = ${this.startBlock - 1}, last_indexed_hash = NULL,
          start_block = ${this.startBlock}, started_at = now(), updated_at = now(), last_error = NULL
        WHERE id = ${stateId(c)}`);
    });
    this.emitted.clear();
    this.log.warn({ chainId: c, startBlock: this.startBlock }, 'indexer: full reindex started');
  }

  // ---------- one pass ----------

  /**
   * Indexes every confirmed block not indexed yet, range by range; returns when caught up.
   * Safe to call concurrently with nothing else writing this chain's indexer rows.
   */
  async syncOnce(): Promise<RangeResult[]> {
    const done: RangeResult[] = [];
    for (let attempt = 0; ; attempt++) {
      try {
        await this.syncInner(done);
        return done;
      } catch (err) {
        if (err instanceof ReorgDetected && attempt < 20) {
          await this.rollback(err.atBlock);
          continue;
        }
        throw err;
      }
    }
  }

  private async syncInner(done: RangeResult[]): Promise<void> {
    let state = await this.ensureState();
    const head = await this.rpc.blockNumber();
    this.headBlock = head;
    const safe = head - this.confirmations;
    let last = state.last_indexed_block;
    let lastHash = state.last_indexed_hash;

    // Is the last indexed block still canonical? (Covers a reorg that kept the height.)
    if (lastHash && last >= 0) {
      const b = await this.rpc.block(last);
      if (!b || b.hash !== lastHash) throw new ReorgDetected(last);
    }
    await this.linkDecks();

    while (last < safe && !this.stopping) {
      const from = last + 1;
      const to = Math.min(safe, from + this.range - 1);
      let result: { hash: string; logs: number; transfers: number };
      try {
        result = await this.indexRange(from, to, lastHash, state.status, safe, head);
      } catch (err) {
        if (err instanceof ReorgDetected) throw err;
        if (this.range > 1 && isRangeError(err)) {
          this.range = Math.max(1, Math.floor(this.range / 2));
          this.log.warn({ range: this.range, err: (err as Error).message }, 'indexer: smaller eth_getLogs range');
          continue;
        }
        throw err;
      }
      done.push({ from, to, logs: result.logs, transfers: result.transfers });
      last = to;
      lastHash = result.hash;
      this.lastIndexed = last;
      this.lastProgressAt = Date.now();
      if (result.logs < 2000 && this.range < this.maxRange) this.range = Math.min(this.maxRange, this.range * 2);
      state = { ...state, status: state.status === 'reindexing' && to < safe ? 'reindexing' : to >= safe ? 'idle' : state.status };
    }

    // Caught up (or nothing to do): settle the status and record the head.
    const status: IndexerStatus = last >= safe ? 'idle' : state.status === 'reindexing' ? 'reindexing' : 'indexing';
    await this.db.execute(sql`
      UPDATE indexer_state SET status = ${status}, head_block = ${head}, updated_at = now(), last_error = NULL
      WHERE id = ${stateId(this.chainId)} AND (status <> ${status} OR head_block IS DISTINCT FROM ${head} OR last_error IS NOT NULL)`);
    this.lastIndexed = last;
    this.lastProgressAt = Date.now();
    this.pruneEmitted();
  }

  /** Addresses to follow: collections from the factory plus collections in the database on this chain. */
  private async knownAddresses(): Promise<Set<string>> {
    const set = new Set<string>();
    const a = await rows<{ address: string }>(this.db, sql`SELECT address FROM apps WHERE chain_id = ${this.chainId}`);
    for (const r of a) set.add(getAddress(r.address));
    const c = await rows<{ contract_address: string }>(
      this.db,
      sql`SELECT DISTINCT contract_address FROM collections WHERE chain_id = ${this.chainId} AND contract_address IS NOT NULL`,
    );
    for (const r of c) {
      if (/^0x[0-9a-fA-F]{40}$/.test(r.contract_address)) set.add(getAddress(r.contract_address));
    }
    return set;
  }

  private async indexRange(
    from: number,
    to: number,
    prevHash: string | null,
    status: IndexerStatus,
    safe: number,
    head: number,
  ): Promise<{ hash: string; logs: number; transfers: number }> {
    const recent = to > head - (this.opts.recentWindow ?? 64);
    // Headers: every block of the range near the head, else the range's first and last.
    const headerNumbers = recent ? range(from, to) : from === to ? [from] : [from, to];
    const headers = await this.rpc.blocks(headerNumbers);
    const byNumber = new Map<number, RawBlock>();
    for (const h of headers) {
      if (!h) throw new ReorgDetected(from - 1); // the block vanished under us
      byNumber.set(num(h.number), h);
    }
    const first = byNumber.get(from)!;
    if (prevHash && first.parentHash !== prevHash) throw new ReorgDetected(from - 1);
    if (recent) {
      for (let n = from + 1; n <= to; n++) {
        if (byNumber.get(n)!.parentHash !== byNumber.get(n - 1)!.hash) throw new ReorgDetected(n - 1);
      }
    }

    // Logs: the factory's CollectionCreated first (new collections log in the same block).
    const factoryLogs = this.factory
      ? await this.rpc.getLogs({ fromBlock: from, toBlock: to, address: this.factory, topics: [TOPICS.CollectionCreated] })
      : [];
    const addresses = await this.knownAddresses();
    for (const l of factoryLogs) if (l.topics[1]) addresses.add(topicAddress(l.topics[1]));
    const list = [...addresses];
    const chunk = this.opts.addressChunk ?? 500;
    const collectionLogs: RawLog[] = [];
    for (let i = 0; i < list.length; i += chunk) {
      collectionLogs.push(
        ...(await this.rpc.getLogs({
          fromBlock: from,
          toBlock: to,
          address: list.slice(i, i + chunk),
          topics: [[TOPICS.Transfer, TOPICS.OwnershipTransferred, TOPICS.DiamondCut]],
        })),
      );
    }
    const all = [...factoryLogs, ...collectionLogs].filter((l) => !l.removed);
    all.sort((a, b) => num(a.blockNumber) - num(b.blockNumber) || num(a.logIndex) - num(b.logIndex));

    // Every log must belong to the blocks we checked (near the head) and carry a timestamp.
    const blockHashes = new Map<number, string>();
    const timestamps = new Map<number, number>();
    for (const h of byNumber.values()) timestamps.set(num(h.number), num(h.timestamp));
    const missingTs = new Set<number>();
    for (const l of all) {
      const n = num(l.blockNumber);
      const known = byNumber.get(n);
      if (known && known.hash !== l.blockHash) throw new ReorgDetected(from - 1);
      const seen = blockHashes.get(n);
      if (seen && seen !== l.blockHash) throw new ReorgDetected(from - 1);
      blockHashes.set(n, l.blockHash);
      if (l.blockTimestamp) timestamps.set(n, num(l.blockTimestamp));
      else if (!timestamps.has(n)) missingTs.add(n);
    }
    if (missingTs.size) {
      const extra = await this.rpc.blocks([...missingTs]);
      for (const b of extra) {
        if (!b) throw new ReorgDetected(from - 1);
        const n = num(b.number);
        if (blockHashes.get(n) !== b.hash) throw new ReorgDetected(from - 1);
        timestamps.set(n, num(b.timestamp));
      }
    }

    // Decode.
    const apps: AppRow[] = [];
    const transfers: TransferRow[] = [];
    const owners: OwnerRow[] = [];
    const upgrades: UpgradeRow[] = [];
    for (const l of all) {
      const block_number = num(l.blockNumber);
      const base = {
        block_number,
        block_hash: l.blockHash,
        tx_hash: l.transactionHash,
        log_index: num(l.logIndex),
        timestamp: isoOf(timestamps.get(block_number)!),
      };
      const t0 = l.topics[0];
      const address = getAddress(l.address);
      if (t0 === TOPICS.CollectionCreated && address === this.factory) {
        const ev = decodeEventLog({ abi: diamondFactoryAbi, data: l.data as Hex, topics: l.topics as [Hex, ...Hex[]] });
        if (ev.eventName !== 'CollectionCreated') continue;
        const args = ev.args as { diamond: string; name: string; symbol: string; owner: string };
        apps.push({
          ...base,
          address: getAddress(args.diamond),
          factory_address: address,
          name: args.name,
          symbol: args.symbol,
          creator: getAddress(args.owner),
        });
      } else if (t0 === TOPICS.Transfer && l.topics.length === 4) {
        transfers.push({
          ...base,
          collection_address: address,
          from_address: topicAddress(l.topics[1]!),
          to_address: topicAddress(l.topics[2]!),
          token_id: BigInt(l.topics[3]!).toString(),
        });
      } else if (t0 === TOPICS.OwnershipTransferred && l.topics.length === 3) {
        owners.push({ ...base, app_address: address, from_address: topicAddress(l.topics[1]!), to_address: topicAddress(l.topics[2]!) });
      } else if (t0 === TOPICS.DiamondCut) {
        try {
          const ev = decodeEventLog({ abi: collectionAbi, data: l.data as Hex, topics: l.topics as [Hex, ...Hex[]] });
          const args = ev.args as unknown as {
            _diamondCut: { facetAddress: string; action: number; functionSelectors: string[] }[];
            _init: string;
            _calldata: string;
          };
          const cutsIn = args._diamondCut;
          upgrades.push({
            ...base,
            contract_address: address,
            init_address: getAddress(args._init ?? ZERO_ADDRESS),
            init_calldata: args._calldata ?? '0x',
            cuts: cutsIn.map((c) => ({
              facetAddress: getAddress(c.facetAddress),
              action: CUT_ACTIONS[c.action] ?? 'add',
              functionSelectors: [...c.functionSelectors],
            })),
          });
        } catch (err) {
          this.log.warn({ tx: l.transactionHash, err: (err as Error).message }, 'indexer: undecodable DiamondCut log skipped');
        }
      }
    }
    const mints = groupMints(transfers);

    // The last state of each token in this range (ranges are applied in order).
    const latest = new Map<string, TransferRow>();
    for (const t of transfers) latest.set(`${t.collection_address}:${t.token_id}`, t);

    // Block hashes to keep: all checked headers, the blocks with logs.
    const blockRows = new Map<number, { block_number: number; block_hash: string; parent_hash: string | null }>();
    for (const [n, h] of blockHashes) blockRows.set(n, { block_number: n, block_hash: h, parent_hash: null });
    for (const h of byNumber.values())
      blockRows.set(num(h.number), { block_number: num(h.number), block_hash: h.hash, parent_hash: h.parentHash });
    const last = byNumber.get(to)!;

    const c = this.chainId;
    const nextStatus: IndexerStatus = to >= safe ? 'idle' : status === 'reindexing' ? 'reindexing' : 'indexing';
    const inserted = await this.db.transaction(async (tx) => {
      const newApps = apps.length
        ? await rows<{ tx_hash: string; log_index: number }>(
            tx,
            sql`
            INSERT INTO apps (chain_id, address, factory_address, name, symbol, creator, block_number, block_hash, tx_hash, log_index, timestamp)
            SELECT ${c}, v.address, v.factory_address, v.name, v.symbol, v.creator, v.block_number, v.block_hash, v.tx_hash, v.log_index, v.timestamp
            FROM json_to_recordset(${JSON.stringify(apps)}::json) AS v(address text, factory_address text, name text, symbol text, creator text,
              block_number bigint, block_hash text, tx_hash text, log_index int, timestamp timestamptz)
            ON CONFLICT DO NOTHING RETURNING tx_hash, log_index`,
          )
        : [];
      const newTransfers: { tx_hash: string; log_index: number }[] = [];
      for (let i = 0; i < transfers.length; i += 5000) {
        const part = transfers.slice(i, i + 5000);
        newTransfers.push(
          ...(await rows<{ tx_hash: string; log_index: number }>(
            tx,
            sql`
            WITH v AS (
              SELECT * FROM json_to_recordset(${JSON.stringify(part)}::json) AS v(collection_address text, token_id numeric,
                from_address text, to_address text, block_number bigint, block_hash text, tx_hash text, log_index int, timestamp timestamptz)
            ), cols AS (
              SELECT DISTINCT ON (lower(contract_address)) id, lower(contract_address) AS addr FROM collections
              WHERE chain_id = ${c} AND contract_address IS NOT NULL ORDER BY lower(contract_address), created_at DESC
            )
            INSERT INTO transfers (chain_id, collection_address, token_id, deck_id, from_address, to_address, block_number, block_hash, tx_hash, log_index, timestamp)
            SELECT ${c}, v.collection_address, v.token_id, d.id, v.from_address, v.to_address, v.block_number, v.block_hash, v.tx_hash, v.log_index, v.timestamp
            FROM v LEFT JOIN cols ON cols.addr = lower(v.collection_address)
                   LEFT JOIN decks d ON d.collection_id = cols.id AND d.token_id = v.token_id
            ON CONFLICT DO NOTHING RETURNING tx_hash, log_index`,
          )),
        );
      }
      const newMints = mints.length
        ? await rows<{ tx_hash: string; log_index: number }>(
            tx,
            sql`
            INSERT INTO app_token_mints (chain_id, app_address, to_address, start_token_id, quantity, block_number, block_hash, tx_hash, log_index, timestamp)
            SELECT ${c}, v.app_address, v.to_address, v.start_token_id, v.quantity, v.block_number, v.block_hash, v.tx_hash, v.log_index, v.timestamp
            FROM json_to_recordset(${JSON.stringify(mints)}::json) AS v(app_address text, to_address text, start_token_id numeric, quantity int,
              block_number bigint, block_hash text, tx_hash text, log_index int, timestamp timestamptz)
            ON CONFLICT DO NOTHING RETURNING tx_hash, log_index`,
          )
        : [];
      const newOwners = owners.length
        ? await rows<{ tx_hash: string; log_index: number }>(
            tx,
            sql`
            INSERT INTO owner_token_transfers (chain_id, app_address, from_address, to_address, block_number, block_hash, tx_hash, log_index, timestamp)
            SELECT ${c}, v.app_address, v.from_address, v.to_address, v.block_number, v.block_hash, v.tx_hash, v.log_index, v.timestamp
            FROM json_to_recordset(${JSON.stringify(owners)}::json) AS v(app_address text, from_address text, to_address text,
              block_number bigint, block_hash text, tx_hash text, log_index int, timestamp timestamptz)
            ON CONFLICT DO NOTHING RETURNING tx_hash, log_index`,
          )
        : [];
      const newUpgrades = upgrades.length
        ? await rows<{ tx_hash: string; log_index: number }>(
            tx,
            sql`
            INSERT INTO contract_upgrades (chain_id, contract_address, init_address, init_calldata, cuts, block_number, block_hash, tx_hash, log_index, timestamp)
            SELECT ${c}, v.contract_address, v.init_address, v.init_calldata, v.cuts, v.block_number, v.block_hash, v.tx_hash, v.log_index, v.timestamp
            FROM json_to_recordset(${JSON.stringify(upgrades)}::json) AS v(contract_address text, init_address text, init_calldata text, cuts jsonb,
              block_number bigint, block_hash text, tx_hash text, log_index int, timestamp timestamptz)
            ON CONFLICT DO NOTHING RETURNING tx_hash, log_index`,
          )
        : [];
      if (latest.size) {
        const owners = [...latest.values()].map((t) => ({ a: t.collection_address, t: t.token_id, o: t.to_address, ts: t.timestamp }));
        await tx.execute(sql`
          UPDATE decks d SET current_owner = v.o, last_transfer_at = v.ts, updated_at = now()
          FROM json_to_recordset(${JSON.stringify(owners)}::json) AS v(a text, t numeric, o text, ts timestamptz), collections c
          WHERE c.chain_id = ${c} AND lower(c.contract_address) = lower(v.a) AND d.collection_id = c.id AND d.token_id = v.t`);
      }
      await tx.execute(sql`
        INSERT INTO indexed_blocks (chain_id, block_number, block_hash, parent_hash)
        SELECT ${c}, v.block_number, v.block_hash, v.parent_hash
        FROM json_to_recordset(${JSON.stringify([...blockRows.values()])}::json) AS v(block_number bigint, block_hash text, parent_hash text)
        ON CONFLICT (chain_id, block_number) DO UPDATE SET block_hash = excluded.block_hash, parent_hash = excluded.parent_hash`);
      await tx.execute(sql`
        UPDATE indexer_state SET last_indexed_block = ${to}, last_indexed_hash = ${last.hash}, status = ${nextStatus},
          head_block = ${head}, updated_at = now(), last_error = NULL
        WHERE id = ${stateId(c)}`);
      return { newApps, newTransfers, newMints, newOwners, newUpgrades };
    });

    this.totalLogs += all.length;
    this.totalTransfers += transfers.length;
    this.publish(apps, transfers, mints, owners, upgrades, inserted);
    if (all.length) this.log.info({ chainId: c, from, to, logs: all.length }, 'indexer: range indexed');
    // Keep the sparse hash history bounded.
    if (to % 1000 < this.range) {
      await this.db.execute(sql`DELETE FROM indexed_blocks WHERE chain_id = ${c} AND block_number < ${to - 100_000}`);
    }
    return { hash: last.hash, logs: all.length, transfers: transfers.length };
  }

  // ---------- events ----------

  private publish(
    apps: AppRow[],
    transfers: TransferRow[],
    mints: MintRow[],
    owners: OwnerRow[],
    upgrades: UpgradeRow[],
    inserted: Record<'newApps' | 'newTransfers' | 'newMints' | 'newOwners' | 'newUpgrades', { tx_hash: string; log_index: number }[]>,
  ): void {
    const sink = this.opts.events;
    if (!sink) return;
    const keys = (list: { tx_hash: string; log_index: number }[]) => new Set(list.map((r) => `${r.tx_hash}:${r.log_index}`));
    const out: { order: [number, number]; ev: IndexerEvent }[] = [];
    const fresh = (set: Set<string>, r: { tx_hash: string; log_index: number }, kind: string) => {
      const key = `${r.tx_hash}:${r.log_index}`;
      const emittedKey = `${kind}:${key}`;
      if (!set.has(key) || this.emitted.has(emittedKey)) return false;
      this.emitted.set(emittedKey, true);
      return true;
    };
    const at = (r: { block_number: number; log_index: number }): [number, number] => [r.block_number, r.log_index];

    /** The events of each row inserted by this range and not announced before, in list order. */
    const collect = <R extends { tx_hash: string; log_index: number; block_number: number }>(
      list: R[],
      newRows: { tx_hash: string; log_index: number }[],
      kind: string,
      toEvents: (r: R) => IndexerEvent[],
    ) => {
      const set = keys(newRows);
      for (const r of list) {
        if (!fresh(set, r, kind)) continue;
        for (const ev of toEvents(r)) out.push({ order: at(r), ev });
      }
    };

    collect(apps, inserted.newApps, 'app', (a) => [
      {
        name: 'emprops:app:created',
        room: null,
        payload: { appAddress: a.address, ownerTokenId: a.address, type: 'collection', name: a.name, symbol: a.symbol, owner: a.creator },
      },
    ]);
    collect(owners, inserted.newOwners, 'owner', (o) => [
      o.from_address === ZERO_ADDRESS
        ? {
            name: 'emprops:ownerToken:minted',
            room: appRoom(o.app_address),
            payload: { tokenId: o.app_address, owner: o.to_address, contractAddress: o.app_address },
          }
        : {
            name: 'emprops:ownerToken:transferred',
            room: appRoom(o.app_address),
            payload: { tokenId: o.app_address, from: o.from_address, to: o.to_address, contractAddress: o.app_address },
          },
    ]);
    collect(mints, inserted.newMints, 'mint', (m) => [
      {
        name: 'emprops:appToken:minted',
        room: appRoom(m.app_address),
        payload: { appAddress: m.app_address, to: m.to_address, startTokenId: m.start_token_id, quantity: m.quantity, txHash: m.tx_hash },
      },
    ]);
    collect(
      transfers.filter((t) => t.from_address !== ZERO_ADDRESS), // announced as appToken:minted
      inserted.newTransfers,
      'transfer',
      (t) => [
        {
          name: 'emprops:appToken:transferred',
          room: appRoom(t.collection_address),
          payload: { tokenId: t.token_id, appAddress: t.collection_address, from: t.from_address, to: t.to_address, txHash: t.tx_hash },
        },
      ],
    );
    collect(upgrades, inserted.newUpgrades, 'upgrade', (u) =>
      u.cuts.map((cut) => ({
        name: 'emprops:contract:upgraded',
        room: appRoom(u.contract_address),
        payload: {
          contractType: 'collection',
          implementation: cut.facetAddress,
          contractAddress: u.contract_address,
          action: cut.action,
          selectors: cut.functionSelectors,
        },
      })),
    );
    out.sort((a, b) => a.order[0] - b.order[0] || a.order[1] - b.order[1]);
    for (const { ev } of out) {
      try {
        sink.publish(ev);
      } catch (err) {
        this.log.warn({ err: (err as Error).message }, 'indexer: event listener failed');
      }
    }
  }

  private pruneEmitted(): void {
    const max = 200_000;
    if (this.emitted.size <= max) return;
    let drop = this.emitted.size - max;
    for (const k of this.emitted.keys()) {
      this.emitted.delete(k);
      if (--drop <= 0) break;
    }
  }

  // ---------- reorgs ----------

  /** Walks back from `atBlock` to the newest stored block hash that is still canonical. */
  private async findCommonAncestor(atBlock: number): Promise<{ number: number; hash: string | null }> {
    let below = atBlock + 1;
    for (;;) {
      const stored = await rows<{ block_number: string | number; block_hash: string }>(
        this.db,
        sql`
        SELECT block_number, block_hash FROM indexed_blocks WHERE chain_id = ${this.chainId} AND block_number < ${below}
        ORDER BY block_number DESC LIMIT 64`,
      );
      if (stored.length === 0) return { number: this.startBlock - 1, hash: null };
      const chain = await this.rpc.blocks(stored.map((s) => Number(s.block_number)));
      for (let i = 0; i < stored.length; i++) {
        if (chain[i] && chain[i]!.hash === stored[i]!.block_hash)
          return { number: Number(stored[i]!.block_number), hash: stored[i]!.block_hash };
      }
      below = Number(stored[stored.length - 1]!.block_number);
    }
  }

  /** Deletes everything above the common ancestor and recomputes the owners it touched. */
  async rollback(atBlock: number): Promise<number> {
    const ancestor = await this.findCommonAncestor(atBlock);
    const c = this.chainId;
    const a = ancestor.number;
    const removed = await this.db.transaction(async (tx) => {
      const affected = await rows<{ collection_address: string; token_id: string }>(
        tx,
        sql`
        SELECT DISTINCT collection_address, token_id::text AS token_id FROM transfers WHERE chain_id = ${c} AND block_number > ${a}`,
      );
      const deleted = await rows<{ n: number }>(
        tx,
        sql`
        WITH d AS (DELETE FROM transfers WHERE chain_id = ${c} AND block_number > ${a} RETURNING 1) SELECT count(*)::int AS n FROM d`,
      );
      await tx.execute(sql`DELETE FROM app_token_mints WHERE chain_id = ${c} AND block_number > ${a}`);
      await tx.execute(sql`DELETE FROM owner_token_transfers WHERE chain_id = ${c} AND block_number > ${a}`);
      await tx.execute(sql`DELETE FROM contract_upgrades WHERE chain_id = ${c} AND block_number > ${a}`);
      await tx.execute(sql`DELETE FROM apps WHERE chain_id = ${c} AND block_number > ${a}`);
      await tx.execute(sql`DELETE FROM indexed_blocks WHERE chain_id = ${c} AND block_number > ${a}`);
      if (affected.length) {
        await tx.execute(sql`
          UPDATE decks d SET
            current_owner = (SELECT t.to_address FROM transfers t WHERE t.chain_id = ${c} AND t.collection_address = v.a AND t.token_id = v.t
                             ORDER BY t.block_number DESC, t.log_index DESC LIMIT 1),
            last_transfer_at = (SELECT t.timestamp FROM transfers t WHERE t.chain_id = ${c} AND t.collection_address = v.a AND t.token_id = v.t
                             ORDER BY t.block_number DESC, t.log_index DESC LIMIT 1),
            updated_at = now()
          FROM json_to_recordset(${JSON.stringify(affected.map((r) => ({ a: r.collection_address, t: r.token_id })))}::json) AS v(a text, t numeric), collections c
          WHERE c.chain_id = ${c} AND lower(c.contract_address) = lower(v.a) AND d.collection_id = c.id AND d.token_id = v.t`);
      }
      await tx.execute(sql`
        UPDATE indexer_state SET last_indexed_block = ${a}, last_indexed_hash = ${ancestor.hash},
          status = CASE WHEN status = 'reindexing' THEN 'reindexing' ELSE 'indexing' END, updated_at = now()
        WHERE id = ${stateId(c)}`);
      return deleted[0]?.n ?? 0;
    });
    this.log.warn({ chainId: c, detectedAt: atBlock, commonAncestor: a, transfersRemoved: removed }, 'indexer: reorg, rolled back');
    return a;
  }

  // ---------- decks created after their transfers ----------

  /**
   * Transfers indexed before their deck existed carry deck_id null; link them and set the deck's
   * owner. Runs at most every 2 s (the transfers route also matches by collection and token id).
   */
  async linkDecks(force = false): Promise<void> {
    if (!force && Date.now() - this.lastLinkAt < 2000) return;
    this.lastLinkAt = Date.now();
    const c = this.chainId;
    await this.db.transaction(async (tx) => {
      const linked = await rows<{ deck_id: string }>(
        tx,
        sql`
        UPDATE transfers t SET deck_id = d.id
        FROM collections c JOIN decks d ON d.collection_id = c.id
        WHERE t.deck_id IS NULL AND t.chain_id = ${c} AND c.chain_id = ${c} AND c.contract_address IS NOT NULL
          AND lower(c.contract_address) = lower(t.collection_address) AND d.token_id = t.token_id
        RETURNING d.id AS deck_id`,
      );
      if (!linked.length) return;
      const ids = [...new Set(linked.map((l) => l.deck_id))];
      await tx.execute(sql`
        UPDATE decks d SET current_owner = x.to_address, last_transfer_at = x.timestamp, updated_at = now()
        FROM (SELECT DISTINCT ON (t.deck_id) t.deck_id, t.to_address, t.timestamp FROM transfers t
              WHERE t.deck_id IN (SELECT value::uuid FROM json_array_elements_text(${JSON.stringify(ids)}::json))
              ORDER BY t.deck_id, t.block_number DESC, t.log_index DESC) x
        WHERE d.id = x.deck_id`);
    });
  }

  // ---------- watchdog ----------

  liveStatus(): LiveStatus {
    const wd = this.opts.watchdog ?? {};
    const lag =
      this.headBlock !== null && this.lastIndexed !== null ? Math.max(0, this.headBlock - this.confirmations - this.lastIndexed) : null;
    const behind = lag !== null && lag > (wd.maxLagBlocks ?? 100);
    const stalled = this.running && this.lastProgressAt !== null && Date.now() - this.lastProgressAt > (wd.maxStallMs ?? 60_000);
    return {
      running: this.running,
      head_block: this.headBlock,
      lag_blocks: lag,
      last_progress_at: this.lastProgressAt ? new Date(this.lastProgressAt).toISOString() : null,
      behind,
      stalled,
      warnings: [...this.warnings],
      confirmations: this.confirmations,
    };
  }

  /** Refreshes the head and reports falling behind or no progress (logger.warn, liveStatus().warnings). */
  async checkWatchdog(): Promise<LiveStatus> {
    try {
      this.headBlock = await this.rpc.blockNumber();
    } catch {
      /* the stall rule reports an unreachable RPC */
    }
    const s = this.liveStatus();
    const warnings: string[] = [];
    if (s.behind) warnings.push(`indexer is ${s.lag_blocks} blocks behind the head (${s.head_block})`);
    if (s.stalled) warnings.push(`indexer made no progress since ${s.last_progress_at}`);
    this.warnings = warnings;
    for (const w of warnings) this.log.warn({ chainId: this.chainId, lag: s.lag_blocks }, `indexer watchdog: ${w}`);
    return { ...s, warnings };
  }
}

function range(from: number, to: number): number[] {
  const out: number[] = [];
  for (let n = from; n <= to; n++) out.push(n);
  return out;
}

function isRangeError(err: unknown): boolean {
  const m = err instanceof Error ? err.message.toLowerCase() : '';
  return /range|too many|limit|exceed|timeout|timed out|response size|query returned more/.test(m);
}

/** Runs of Transfer-from-zero logs of one transaction, one recipient, consecutive ids and log indexes. */
export function groupMints(transfers: TransferRow[]): MintRow[] {
  type Run = MintRow & { lastId: bigint; lastLog: number };
  const out: Run[] = [];
  let cur: Run | undefined;
  for (const t of transfers) {
    if (t.from_address !== ZERO_ADDRESS) {
      cur = undefined;
      continue;
    }
    const id = BigInt(t.token_id);
    if (
      cur &&
      cur.tx_hash === t.tx_hash &&
      cur.app_address === t.collection_address &&
      cur.to_address === t.to_address &&
      id === cur.lastId + 1n &&
      t.log_index === cur.lastLog + 1
    ) {
      cur.quantity += 1;
      cur.lastId = id;
      cur.lastLog = t.log_index;
      continue;
    }
    cur = {
      app_address: t.collection_address,
      to_address: t.to_address,
      start_token_id: t.token_id,
      quantity: 1,
      block_number: t.block_number,
      block_hash: t.block_hash,
      tx_hash: t.tx_hash,
      log_index: t.log_index,
      timestamp: t.timestamp,
      lastId: id,
      lastLog: t.log_index,
    };
    out.push(cur);
  }
  return out.map(({ lastId: _i, lastLog: _l, ...m }) => m);
}

export { sleep };

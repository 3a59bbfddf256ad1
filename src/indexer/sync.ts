/**
 * Sync stage: blocks and logs from the chain, and reorg detection. Reads the chain (through a
 * `BlockSource`), writes nothing.
 *
 * Reorg rules (docs/indexer.md): the first header of a range must have the stored hash of the
 * block before it as its parent; near the head every header's parent must be the previous
 * header, and every log's block hash must be its header's (a reorg during the fetch). Any
 * mismatch throws `ReorgDetected`; the engine then rolls back to `findCommonAncestor`.
 */
import { getAddress } from 'viem';
import type { BlockRecord } from '../domain/ports/indexer-rows.ts';
import { COLLECTION_TOPICS, hexNumber, TOPICS, topicAddress } from './decode.ts';
import { headerNumbers } from './plan.ts';
import type { GetLogsFilter, RawBlock, RawLog } from './rpc.ts';

/** The chain as the indexer reads it (JsonRpc; an in-memory chain in unit tests). */
export interface BlockSource {
  blockNumber(): Promise<number>;
  /** Headers by number, in the order asked; null for a block the node does not have. */
  blocks(numbers: number[]): Promise<(RawBlock | null)[]>;
  getLogs(filter: GetLogsFilter): Promise<RawLog[]>;
}

export class ReorgDetected extends Error {
  constructor(
    /** The highest block that may still be canonical: the search for the common ancestor starts here. */
    readonly atBlock: number,
    reason: string,
  ) {
    super(`reorg detected at block ${atBlock}: ${reason}`);
    this.name = 'ReorgDetected';
  }
}

/** Throws ReorgDetected when the last indexed block is no longer canonical (a reorg that kept the height). */
export async function checkLastIndexed(source: BlockSource, last: number, hash: string | null): Promise<void> {
  if (!hash || last < 0) return;
  const [block] = await source.blocks([last]);
  if (!block || block.hash !== hash) throw new ReorgDetected(last, `block ${last} is no longer ${hash}`);
}

/** Headers of a range, checked: the chain links to `prevHash` and, near the head, block to block. */
export function checkHeaders(
  headers: readonly (RawBlock | null)[],
  range: { from: number; to: number; prevHash: string | null; recent: boolean },
): Map<number, RawBlock> {
  const { from, to, prevHash, recent } = range;
  const byNumber = new Map<number, RawBlock>();
  for (const h of headers) {
    if (!h) throw new ReorgDetected(from - 1, 'a block of the range vanished');
    byNumber.set(hexNumber(h.number), h);
  }
  const first = byNumber.get(from);
  if (!first || !byNumber.has(to)) throw new ReorgDetected(from - 1, 'the node did not return the range’s headers');
  if (prevHash && first.parentHash !== prevHash) throw new ReorgDetected(from - 1, `block ${from} does not follow ${prevHash}`);
  if (recent) {
    for (let n = from + 1; n <= to; n++) {
      const h = byNumber.get(n);
      if (!h || h.parentHash !== byNumber.get(n - 1)!.hash) throw new ReorgDetected(n - 1, `block ${n} does not follow block ${n - 1}`);
    }
  }
  return byNumber;
}

/**
 * Logs against the checked headers: one hash per block, the header's where known. Returns the
 * blocks' times (from the logs' blockTimestamp or the headers) and the blocks that still lack one.
 */
export function checkLogs(
  logs: readonly RawLog[],
  headers: ReadonlyMap<number, RawBlock>,
  from: number,
): { hashes: Map<number, string>; timestamps: Map<number, number>; missing: number[] } {
  const hashes = new Map<number, string>();
  const timestamps = new Map<number, number>();
  for (const h of headers.values()) timestamps.set(hexNumber(h.number), hexNumber(h.timestamp));
  const missing = new Set<number>();
  for (const l of logs) {
    const n = hexNumber(l.blockNumber);
    const header = headers.get(n);
    if (header && header.hash !== l.blockHash) throw new ReorgDetected(from - 1, `a log of block ${n} is from another branch`);
    const seen = hashes.get(n);
    if (seen && seen !== l.blockHash) throw new ReorgDetected(from - 1, `logs of block ${n} from two branches`);
    hashes.set(n, l.blockHash);
    if (l.blockTimestamp) timestamps.set(n, hexNumber(l.blockTimestamp));
    else if (!timestamps.has(n)) missing.add(n);
  }
  return { hashes, timestamps, missing: [...missing] };
}

/** Logs in chain order, without those a node marks as removed. */
export function orderLogs(logs: readonly RawLog[]): RawLog[] {
  return logs
    .filter((l) => !l.removed)
    .sort((a, b) => hexNumber(a.blockNumber) - hexNumber(b.blockNumber) || hexNumber(a.logIndex) - hexNumber(b.logIndex));
}

/** Checksummed, de-duplicated addresses; values that are not addresses are dropped. */
export function normalizeAddresses(list: Iterable<string>): string[] {
  const out = new Set<string>();
  for (const a of list) if (/^0x[0-9a-fA-F]{40}$/.test(a)) out.add(getAddress(a));
  return [...out];
}

export interface RangeRequest {
  from: number;
  to: number;
  /** Stored hash of block `from − 1` (null at the start or after a reindex). */
  prevHash: string | null;
  recent: boolean;
  /** The factory whose CollectionCreated logs add collections to follow. */
  factory?: string;
  /** Collections already followed (apps and collection records). */
  followed: readonly string[];
  /** Addresses per eth_getLogs call. */
  addressChunk: number;
}

export interface FetchedRange {
  from: number;
  to: number;
  /** Hash of block `to`: the next range's `prevHash`. */
  lastHash: string;
  /** Factory and collection logs in chain order. */
  logs: RawLog[];
  /** Unix seconds of every block with a log. */
  timestamps: Map<number, number>;
  /** Block hashes to keep: every checked header and every block with a log. */
  blocks: BlockRecord[];
}

/** Fetches and checks one range: headers, the factory's logs, then the followed collections' logs. */
export async function fetchRange(source: BlockSource, req: RangeRequest): Promise<FetchedRange> {
  const { from, to } = req;
  const headers = checkHeaders(await source.blocks(headerNumbers(from, to, req.recent)), req);

  // The factory first: a collection created in this range logs its own events in the same block.
  const factoryLogs = req.factory
    ? await source.getLogs({ fromBlock: from, toBlock: to, address: req.factory, topics: [TOPICS.CollectionCreated] })
    : [];
  const created = factoryLogs.flatMap((l) => (l.topics[0] === TOPICS.CollectionCreated && l.topics[1] ? [topicAddress(l.topics[1])] : []));
  const addresses = normalizeAddresses([...req.followed, ...created]);
  const collectionLogs: RawLog[] = [];
  for (let i = 0; i < addresses.length; i += req.addressChunk) {
    const address = addresses.slice(i, i + req.addressChunk);
    collectionLogs.push(...(await source.getLogs({ fromBlock: from, toBlock: to, address, topics: [COLLECTION_TOPICS] })));
  }
  const logs = orderLogs([...factoryLogs, ...collectionLogs]);

  const { hashes, timestamps, missing } = checkLogs(logs, headers, from);
  if (missing.length) {
    const extra = await source.blocks(missing);
    for (const b of extra) {
      const n = b ? hexNumber(b.number) : Number.NaN;
      if (!b || hashes.get(n) !== b.hash) throw new ReorgDetected(from - 1, `block ${n} changed during the fetch`);
      timestamps.set(n, hexNumber(b.timestamp));
    }
  }

  const blocks = new Map<number, BlockRecord>();
  for (const [n, hash] of hashes) blocks.set(n, { block_number: n, block_hash: hash, parent_hash: null });
  for (const h of headers.values()) {
    const n = hexNumber(h.number);
    blocks.set(n, { block_number: n, block_hash: h.hash, parent_hash: h.parentHash });
  }
  return { from, to, lastHash: headers.get(to)!.hash, logs, timestamps, blocks: [...blocks.values()] };
}

/**
 * The newest stored block at or below `atBlock` whose hash is still canonical, walking the stored
 * hashes downwards `batch` at a time; with none left, the start block − 1 (no hash).
 */
export async function findCommonAncestor(
  source: BlockSource,
  stored: (below: number, limit: number) => Promise<{ number: number; hash: string }[]>,
  atBlock: number,
  startBlock: number,
  batch = 64,
): Promise<{ number: number; hash: string | null }> {
  let below = atBlock + 1;
  for (;;) {
    const known = await stored(below, batch);
    if (known.length === 0) return { number: startBlock - 1, hash: null };
    const chain = await source.blocks(known.map((s) => s.number));
    for (let i = 0; i < known.length; i++) {
      if (chain[i]?.hash === known[i]!.hash) return known[i]!;
    }
    below = known[known.length - 1]!.number;
  }
}

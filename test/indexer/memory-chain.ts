/**
 * An in-memory chain for the indexer's unit tests: a `BlockSource` with raw blocks and logs, plus
 * builders of the logs the indexer follows (encoded with viem, as a node would answer). `reorg`
 * replaces the blocks above a height by a new branch (new hashes), like anvil_reorg.
 */
import { encodeAbiParameters, encodeEventTopics, type Hex } from 'viem';
import { collectionAbi, diamondFactoryAbi } from '../../contracts/abi/index.ts';
import type { GetLogsFilter, RawBlock, RawLog } from '../../src/indexer/rpc.ts';
import type { BlockSource } from '../../src/indexer/sync.ts';

export const ZERO = '0x0000000000000000000000000000000000000000';
// Lowercase (no checksum to get wrong); the indexer checksums what it stores.
export const FACTORY = '0xfac7000000000000000000000000000000000001';
export const ALICE = '0xa11ce00000000000000000000000000000000001';
export const BOB = '0xb0b0000000000000000000000000000000000002';
export const CAROL = '0xca40100000000000000000000000000000000003';

const hex = (n: number) => `0x${n.toString(16)}`;
const word = (prefix: number, n: number) => `0x${prefix.toString(16).padStart(8, '0')}${n.toString(16).padStart(56, '0')}`;

/** A log as the node returns it, before its block and position are known. */
export interface PendingLog {
  address: string;
  topics: string[];
  data: string;
  tx?: number;
}

export function transferLog(collection: string, from: string, to: string, tokenId: bigint): PendingLog {
  const topics = encodeEventTopics({ abi: collectionAbi, eventName: 'Transfer', args: { from: from as Hex, to: to as Hex, tokenId } });
  return { address: collection, topics: topics as string[], data: '0x' };
}

export function ownershipLog(collection: string, previousOwner: string, newOwner: string): PendingLog {
  const topics = encodeEventTopics({
    abi: collectionAbi,
    eventName: 'OwnershipTransferred',
    args: { previousOwner: previousOwner as Hex, newOwner: newOwner as Hex },
  });
  return { address: collection, topics: topics as string[], data: '0x' };
}

export function collectionCreatedLog(factory: string, diamond: string, name: string, symbol: string, owner: string): PendingLog {
  const topics = encodeEventTopics({
    abi: diamondFactoryAbi,
    eventName: 'CollectionCreated',
    args: { diamond: diamond as Hex, owner: owner as Hex },
  });
  const data = encodeAbiParameters([{ type: 'string' }, { type: 'string' }], [name, symbol]);
  return { address: factory, topics: topics as string[], data };
}

export function diamondCutLog(collection: string, facet: string, action: 0 | 1 | 2, selectors: Hex[]): PendingLog {
  const topics = encodeEventTopics({ abi: collectionAbi, eventName: 'DiamondCut' });
  const data = encodeAbiParameters(
    [
      {
        type: 'tuple[]',
        components: [
          { name: 'facetAddress', type: 'address' },
          { name: 'action', type: 'uint8' },
          { name: 'functionSelectors', type: 'bytes4[]' },
        ],
      },
      { type: 'address' },
      { type: 'bytes' },
    ],
    [[{ facetAddress: facet as Hex, action, functionSelectors: selectors }], ZERO, '0x'],
  );
  return { address: collection, topics: topics as string[], data };
}

interface Block {
  header: RawBlock;
  logs: RawLog[];
}

export class MemoryChain implements BlockSource {
  private blocksByNumber: Block[] = [];
  private branch = 1;
  private tx = 0;
  /** eth_getLogs calls (tests inspect ranges). */
  readonly getLogsCalls: GetLogsFilter[] = [];
  /** When set, eth_getLogs over more blocks than this fails like a provider's limit. */
  maxLogRange: number | undefined;
  /** Leave blockTimestamp out of logs (older nodes): the indexer must read headers. */
  omitLogTimestamps = false;

  constructor(genesisTime = 1_700_000_000) {
    this.blocksByNumber.push({
      header: { number: '0x0', hash: word(0, 0), parentHash: word(0, 0), timestamp: hex(genesisTime) },
      logs: [],
    });
  }

  get head(): number {
    return this.blocksByNumber.length - 1;
  }

  hashOf(n: number): string {
    return this.blocksByNumber[n]!.header.hash;
  }

  /** Mines one block with these logs (each its own transaction unless `tx` groups them). */
  mine(logs: PendingLog[] = []): number {
    const number = this.blocksByNumber.length;
    const parent = this.blocksByNumber[number - 1]!.header;
    const header: RawBlock = {
      number: hex(number),
      hash: word(this.branch, number),
      parentHash: parent.hash,
      timestamp: hex(Number.parseInt(parent.timestamp, 16) + 2),
    };
    const txOf = new Map<number, string>();
    const raw = logs.map((l, i) => {
      const key = l.tx ?? -(i + 1);
      if (!txOf.has(key)) txOf.set(key, word(0xeeee, ++this.tx));
      return {
        address: l.address,
        topics: l.topics,
        data: l.data,
        blockNumber: header.number,
        blockHash: header.hash,
        ...(this.omitLogTimestamps ? {} : { blockTimestamp: header.timestamp }),
        transactionHash: txOf.get(key)!,
        logIndex: hex(i),
      };
    });
    this.blocksByNumber.push({ header, logs: raw });
    return number;
  }

  mineEmpty(count: number): void {
    for (let i = 0; i < count; i++) this.mine();
  }

  /** Drops every block above `height`; the next mined blocks form a new branch (new hashes). */
  reorg(height: number): void {
    this.blocksByNumber = this.blocksByNumber.slice(0, height + 1);
    this.branch += 1;
  }

  async blockNumber(): Promise<number> {
    return this.head;
  }

  async blocks(numbers: number[]): Promise<(RawBlock | null)[]> {
    return numbers.map((n) => this.blocksByNumber[n]?.header ?? null);
  }

  async getLogs(f: GetLogsFilter): Promise<RawLog[]> {
    this.getLogsCalls.push(f);
    if (this.maxLogRange !== undefined && f.toBlock - f.fromBlock + 1 > this.maxLogRange) {
      throw new Error('query returned more than 10000 results');
    }
    const addresses =
      f.address === undefined ? undefined : (Array.isArray(f.address) ? f.address : [f.address]).map((a) => a.toLowerCase());
    const first = f.topics?.[0];
    const topics = first === undefined || first === null ? undefined : Array.isArray(first) ? first : [first];
    const out: RawLog[] = [];
    for (let n = f.fromBlock; n <= Math.min(f.toBlock, this.head); n++) {
      for (const l of this.blocksByNumber[n]!.logs) {
        if (addresses && !addresses.includes(l.address.toLowerCase())) continue;
        if (topics && !topics.includes(l.topics[0]!)) continue;
        out.push(l);
      }
    }
    return out;
  }
}

/**
 * Decode stage (pure): raw logs of a block range → the rows they mean. No I/O.
 *
 * - the factory's CollectionCreated → an app;
 * - a collection's Transfer (4 topics: ERC-721) → a transfer (from zero = a mint);
 * - OwnershipTransferred → an owner-token transfer; DiamondCut → a contract upgrade.
 *
 * Transfer and OwnershipTransferred have only indexed arguments, so their topics are read by
 * hand (the backfill's hot path: 10,000s of logs); the two events with data go through viem.
 * Logs come in (block, log index) order and every row keeps it.
 */
import { decodeEventLog, getAddress, type Hex, toEventSelector } from 'viem';
import { collectionAbi, diamondFactoryAbi } from '../../contracts/abi/index.ts';
import type { AppRecord, FacetCut, OwnerTransferRecord, TransferRecord, UpgradeRecord } from '../domain/ports/indexer-rows.ts';
import type { RawLog } from './rpc.ts';

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

const eventTopic = (abi: readonly unknown[], name: string) => {
  const item = (abi as { type: string; name: string }[]).find((x) => x.type === 'event' && x.name === name);
  if (!item) throw new Error(`event ${name} missing from the ABI`);
  return toEventSelector(item as Parameters<typeof toEventSelector>[0]);
};

export const TOPICS = {
  Transfer: eventTopic(collectionAbi, 'Transfer'),
  OwnershipTransferred: eventTopic(collectionAbi, 'OwnershipTransferred'),
  DiamondCut: eventTopic(collectionAbi, 'DiamondCut'),
  CollectionCreated: eventTopic(diamondFactoryAbi, 'CollectionCreated'),
};

/** The collection events every followed address is asked for (one eth_getLogs topic filter). */
export const COLLECTION_TOPICS = [TOPICS.Transfer, TOPICS.OwnershipTransferred, TOPICS.DiamondCut];

const CUT_ACTIONS = ['add', 'replace', 'remove'] as const;

export interface Decoded {
  apps: AppRecord[];
  transfers: TransferRecord[];
  owners: OwnerTransferRecord[];
  upgrades: UpgradeRecord[];
  /** Logs with a known topic that did not decode (logged, then skipped). */
  skipped: { tx_hash: string; log_index: number; reason: string }[];
}

export const hexNumber = (h: string) => Number.parseInt(h, 16);
/** The address in an indexed address topic (the last 20 of 32 bytes), checksummed. */
export const topicAddress = (topic: string) => getAddress(`0x${topic.slice(26)}`);

/** Checksums with a memo: a backfill sees a few addresses tens of thousands of times. */
function checksummer(): { address(raw: string): string; topic(topic: string): string } {
  const memo = new Map<string, string>();
  const address = (raw: string) => {
    let a = memo.get(raw);
    if (a === undefined) {
      a = getAddress(raw);
      memo.set(raw, a);
    }
    return a;
  };
  return { address, topic: (topic) => address(`0x${topic.slice(26)}`) };
}

/**
 * Decodes logs (sorted by block and log index) with their blocks' times (unix seconds by block
 * number). CollectionCreated counts only from `factory`; a log whose block has no time throws.
 */
export function decodeLogs(logs: readonly RawLog[], timestamps: ReadonlyMap<number, number>, factory?: string): Decoded {
  const out: Decoded = { apps: [], transfers: [], owners: [], upgrades: [], skipped: [] };
  const factoryAddress = factory ? getAddress(factory) : undefined;
  const checksum = checksummer();
  // One Date per block: many logs share one.
  const dates = new Map<number, Date>();
  const dateOf = (n: number) => {
    let d = dates.get(n);
    if (!d) {
      const seconds = timestamps.get(n);
      if (seconds === undefined) throw new Error(`decode: no timestamp for block ${n}`);
      d = new Date(seconds * 1000);
      dates.set(n, d);
    }
    return d;
  };

  for (const l of logs) {
    const block_number = hexNumber(l.blockNumber);
    const at = {
      block_number,
      block_hash: l.blockHash,
      tx_hash: l.transactionHash,
      log_index: hexNumber(l.logIndex),
      timestamp: dateOf(block_number),
    };
    const address = checksum.address(l.address);
    const t0 = l.topics[0];
    if (t0 === TOPICS.Transfer && l.topics.length === 4) {
      // The hot path: a literal without spreading `at` (one allocation per log, not two).
      out.transfers.push({
        block_number,
        block_hash: at.block_hash,
        tx_hash: at.tx_hash,
        log_index: at.log_index,
        timestamp: at.timestamp,
        collection_address: address,
        from_address: checksum.topic(l.topics[1]!),
        to_address: checksum.topic(l.topics[2]!),
        token_id: BigInt(l.topics[3]!).toString(),
      });
    } else if (t0 === TOPICS.OwnershipTransferred && l.topics.length === 3) {
      out.owners.push({
        ...at,
        app_address: address,
        from_address: checksum.topic(l.topics[1]!),
        to_address: checksum.topic(l.topics[2]!),
      });
    } else if (t0 === TOPICS.CollectionCreated && address === factoryAddress) {
      try {
        const ev = decodeEventLog({
          abi: diamondFactoryAbi,
          eventName: 'CollectionCreated',
          data: l.data as Hex,
          topics: l.topics as [Hex, ...Hex[]],
        });
        const args = ev.args as { diamond: string; name: string; symbol: string; owner: string };
        out.apps.push({
          ...at,
          address: getAddress(args.diamond),
          factory_address: address,
          name: args.name,
          symbol: args.symbol,
          creator: getAddress(args.owner),
        });
      } catch (err) {
        out.skipped.push({ tx_hash: l.transactionHash, log_index: at.log_index, reason: `CollectionCreated: ${(err as Error).message}` });
      }
    } else if (t0 === TOPICS.DiamondCut) {
      try {
        const ev = decodeEventLog({
          abi: collectionAbi,
          eventName: 'DiamondCut',
          data: l.data as Hex,
          topics: l.topics as [Hex, ...Hex[]],
        });
        const args = ev.args as unknown as {
          _diamondCut: readonly { facetAddress: string; action: number; functionSelectors: readonly string[] }[];
          _init?: string;
          _calldata?: string;
        };
        const cuts: FacetCut[] = args._diamondCut.map((c) => ({
          facetAddress: getAddress(c.facetAddress),
          action: CUT_ACTIONS[c.action] ?? 'add',
          functionSelectors: [...c.functionSelectors],
        }));
        out.upgrades.push({
          ...at,
          contract_address: address,
          init_address: getAddress(args._init ?? ZERO_ADDRESS),
          init_calldata: args._calldata ?? '0x',
          cuts,
        });
      } catch (err) {
        out.skipped.push({ tx_hash: l.transactionHash, log_index: at.log_index, reason: `DiamondCut: ${(err as Error).message}` });
      }
    }
  }
  return out;
}

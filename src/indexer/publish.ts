/**
 * Publish stage: the realtime events of a committed range (docs/api/nft.md §6.3, payloads in
 * docs/indexer.md), handed to the event hub (events.ts) that socket.io forwards to rooms.
 *
 * Invariants: events go out only after the range's transaction committed; only for rows the
 * inserts really added; at most once per log and kind in this process (`Announced`), in (block,
 * log index) order. Delivery is at most once: a crash between commit and emit loses them.
 */
import type {
  AppRecord,
  LogKey,
  MintRecord,
  OwnerTransferRecord,
  RemovedTransfer,
  TransferRecord,
  UpgradeRecord,
} from '../domain/ports/indexer-rows.ts';
import { ZERO_ADDRESS } from './decode.ts';
import { appRoom, type IndexerEvent } from './events.ts';

export interface RangeRows {
  apps: readonly AppRecord[];
  owners: readonly OwnerTransferRecord[];
  mints: readonly MintRecord[];
  transfers: readonly TransferRecord[];
  upgrades: readonly UpgradeRecord[];
}

/** The rows of each table the range's inserts really added (of transfers, at least those not from zero: mints are announced per mint call). */
export type Added = { [K in keyof RangeRows]: readonly LogKey[] };

const keyOf = (r: LogKey) => `${r.tx_hash}:${r.log_index}`;

/** Logs already announced by this process, per kind; bounded (the oldest are forgotten first). */
export class Announced {
  private readonly seen = new Set<string>();
  constructor(private readonly max = 200_000) {}

  /** True the first time (and records it). */
  first(kind: string, row: LogKey): boolean {
    const key = `${kind}:${keyOf(row)}`;
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    return true;
  }

  clear(): void {
    this.seen.clear();
  }

  /** Forgets every log of these transactions (a reorg removed them; re-mined, they are announced again). */
  forgetTxs(txHashes: Iterable<string>): void {
    const gone = new Set([...txHashes].map((h) => `${h}:`));
    if (gone.size === 0) return;
    for (const k of this.seen) {
      const tx = k.slice(k.indexOf(':') + 1, k.lastIndexOf(':') + 1);
      if (gone.has(tx)) this.seen.delete(k);
    }
  }

  /** Forgets the oldest entries beyond the bound. */
  prune(): void {
    let drop = this.seen.size - this.max;
    if (drop <= 0) return;
    for (const k of this.seen) {
      this.seen.delete(k);
      if (--drop <= 0) break;
    }
  }

  get size(): number {
    return this.seen.size;
  }
}

type Located = LogKey & { block_number: number };

/** The events of a committed range, in chain order. */
export function eventsOf(rows: RangeRows, added: Added, announced: Announced): IndexerEvent[] {
  const out: { block: number; log: number; ev: IndexerEvent }[] = [];
  const collect = <R extends Located>(
    list: readonly R[],
    addedRows: readonly LogKey[],
    kind: string,
    toEvents: (r: R) => IndexerEvent[],
  ) => {
    if (addedRows.length === 0) return;
    const fresh = new Set(addedRows.map(keyOf));
    for (const r of list) {
      if (!fresh.has(keyOf(r)) || !announced.first(kind, r)) continue;
      for (const ev of toEvents(r)) out.push({ block: r.block_number, log: r.log_index, ev });
    }
  };

  collect(rows.apps, added.apps, 'app', (a) => [
    {
      name: 'emprops:app:created',
      room: null, // nobody can be in the room of a collection before it exists
      payload: { appAddress: a.address, ownerTokenId: a.address, type: 'collection', name: a.name, symbol: a.symbol, owner: a.creator },
    },
  ]);
  collect(rows.owners, added.owners, 'owner', (o) => [
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
  collect(rows.mints, added.mints, 'mint', (m) => [
    {
      name: 'emprops:appToken:minted',
      room: appRoom(m.app_address),
      payload: { appAddress: m.app_address, to: m.to_address, startTokenId: m.start_token_id, quantity: m.quantity, txHash: m.tx_hash },
    },
  ]);
  // Mints are announced per call (above), not per token.
  collect(
    rows.transfers.filter((t) => t.from_address !== ZERO_ADDRESS),
    added.transfers,
    'transfer',
    (t) => [
      {
        name: 'emprops:appToken:transferred',
        room: appRoom(t.collection_address),
        payload: { tokenId: t.token_id, appAddress: t.collection_address, from: t.from_address, to: t.to_address, txHash: t.tx_hash },
      },
    ],
  );
  collect(rows.upgrades, added.upgrades, 'upgrade', (u) =>
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
  // Stable sort: events of one log keep their order (the cuts of one DiamondCut).
  return out.sort((a, b) => a.block - b.block || a.log - b.log).map((x) => x.ev);
}

/**
 * The retractions of transfers a reorg removed (mints included: a mint is a transfer from zero),
 * in chain order, to each collection's room: clients drop what they were told of them.
 */
export function retractionsOf(removed: readonly RemovedTransfer[]): IndexerEvent[] {
  return removed.map((t) => ({
    name: 'emprops:appToken:transfer_retracted',
    room: appRoom(t.collection_address),
    payload: {
      tokenId: t.token_id,
      appAddress: t.collection_address,
      from: t.from_address,
      to: t.to_address,
      txHash: t.tx_hash,
      logIndex: t.log_index,
      blockNumber: t.block_number,
    },
  }));
}

/** Hands events to the hub; a failing listener is reported and does not stop the others. */
export function publishAll(
  sink: { publish(event: IndexerEvent): void },
  events: readonly IndexerEvent[],
  onError: (err: Error) => void,
): void {
  for (const ev of events) {
    try {
      sink.publish(ev);
    } catch (err) {
      onError(err instanceof Error ? err : new Error(String(err)));
    }
  }
}

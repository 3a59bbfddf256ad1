/**
 * An in-memory `IndexerStore` for the engine's unit tests: the same contract as the database store
 * (src/indexer/store.ts) — unique rows by (tx hash, log index), all-or-nothing ranges, rollback
 * with owner recomputation — over arrays. `failCommits` makes the next commits throw before they
 * write anything (a crash inside the transaction).
 */
import type {
  AppRecord,
  BlockRecord,
  IndexerState,
  IndexerStatus,
  LogKey,
  MintRecord,
  OwnerTransferRecord,
  TransferRecord,
  UpgradeRecord,
} from '../../src/domain/ports/indexer-rows.ts';
import type { DeckMatch } from '../../src/db/ownership.ts';
import { deckLinks, ownersAfterRange, tokenKey } from '../../src/indexer/projections.ts';
import type { Added } from '../../src/indexer/publish.ts';
import type { IndexerStore, RangeWrite } from '../../src/indexer/store-port.ts';

export interface MemoryDeck {
  id: string;
  collection_address: string;
  token_id: string;
  current_owner: string | null;
  last_transfer_at: Date | null;
}

const key = (r: LogKey) => `${r.tx_hash}:${r.log_index}`;

export class MemoryStore implements IndexerStore {
  stateRow: IndexerState | undefined;
  apps: AppRecord[] = [];
  transfers: (TransferRecord & { deck_id: string | null })[] = [];
  mints: MintRecord[] = [];
  owners: OwnerTransferRecord[] = [];
  upgrades: UpgradeRecord[] = [];
  blocks = new Map<number, BlockRecord>();
  decks: MemoryDeck[] = [];
  /** Contract addresses of the platform's collection records (followed like apps). */
  records: string[] = [];
  failCommits = 0;
  commits = 0;

  constructor(readonly chainId: number) {}

  private matches(): DeckMatch[] {
    return this.decks.map((d) => ({
      deck_id: d.id,
      collection_address: d.collection_address,
      token_id: d.token_id,
      collection_created_at: new Date(0),
    }));
  }

  async state() {
    return this.stateRow ? { ...this.stateRow } : undefined;
  }

  async ensureState(startBlock: number) {
    this.stateRow ??= {
      id: `chain:${this.chainId}`,
      status: 'indexing',
      last_indexed_block: startBlock - 1,
      last_indexed_hash: null,
      chain_id: this.chainId,
      started_at: new Date(),
      updated_at: new Date(),
      head_block: null,
      start_block: startBlock,
      last_error: null,
    };
    return { ...this.stateRow };
  }

  async markStarted() {}

  async recordError(message: string) {
    if (this.stateRow) this.stateRow.last_error = message;
  }

  async settle(status: IndexerStatus, head: number) {
    if (this.stateRow) Object.assign(this.stateRow, { status, head_block: head, last_error: null });
  }

  async followedAddresses() {
    return [...this.apps.map((a) => a.address), ...this.records];
  }

  async commitRange(w: RangeWrite): Promise<Added> {
    if (this.failCommits > 0) {
      this.failCommits -= 1;
      throw new Error('connection lost during commit');
    }
    this.commits += 1;
    const insert = <R extends LogKey>(table: R[], rows: readonly R[]) => {
      const have = new Set(table.map(key));
      const added: LogKey[] = [];
      for (const r of rows) {
        if (have.has(key(r))) continue;
        have.add(key(r));
        table.push(r);
        added.push({ tx_hash: r.tx_hash, log_index: r.log_index });
      }
      return added;
    };
    const links = deckLinks(this.matches());
    const added: Added = {
      apps: insert(this.apps, w.apps),
      transfers: insert(
        this.transfers,
        w.transfers.map((t) => ({ ...t, deck_id: links.get(tokenKey(t)) ?? null })),
      ),
      mints: insert(this.mints, w.mints),
      owners: insert(this.owners, w.owners),
      upgrades: insert(this.upgrades, w.upgrades),
    };
    for (const o of ownersAfterRange(w.latest, this.matches())) {
      Object.assign(this.decks.find((d) => d.id === o.id)!, { current_owner: o.current_owner, last_transfer_at: o.last_transfer_at });
    }
    for (const b of w.blocks) this.blocks.set(b.block_number, b);
    Object.assign(this.stateRow!, { last_indexed_block: w.to, last_indexed_hash: w.lastHash, status: w.status, head_block: w.head });
    return added;
  }

  async storedBlocks(below: number, limit: number) {
    return [...this.blocks.values()]
      .filter((b) => b.block_number < below)
      .sort((a, b) => b.block_number - a.block_number)
      .slice(0, limit)
      .map((b) => ({ number: b.block_number, hash: b.block_hash }));
  }

  async pruneBlocks(below: number) {
    for (const n of [...this.blocks.keys()]) if (n < below) this.blocks.delete(n);
  }

  async rollbackTo(ancestor: { number: number; hash: string | null }) {
    const above = (r: { block_number: number }) => r.block_number > ancestor.number;
    const removed = this.transfers.filter(above).map((t) => ({
      collection_address: t.collection_address,
      token_id: String(t.token_id),
      from_address: t.from_address,
      to_address: t.to_address,
      tx_hash: t.tx_hash,
      log_index: t.log_index,
      block_number: t.block_number,
    }));
    this.transfers = this.transfers.filter((r) => !above(r));
    this.apps = this.apps.filter((r) => !above(r));
    this.mints = this.mints.filter((r) => !above(r));
    this.owners = this.owners.filter((r) => !above(r));
    this.upgrades = this.upgrades.filter((r) => !above(r));
    for (const n of [...this.blocks.keys()]) if (n > ancestor.number) this.blocks.delete(n);
    for (const d of this.decks) {
      const latest = this.transfers.filter((t) => tokenKey(t) === tokenKey(d)).at(-1);
      d.current_owner = latest?.to_address ?? null;
      d.last_transfer_at = latest?.timestamp ?? null;
    }
    Object.assign(this.stateRow!, {
      last_indexed_block: ancestor.number,
      last_indexed_hash: ancestor.hash,
      status: this.stateRow!.status === 'reindexing' ? 'reindexing' : 'indexing',
    });
    return removed;
  }

  async reset(startBlock: number) {
    await this.ensureState(startBlock);
    this.apps = [];
    this.transfers = [];
    this.mints = [];
    this.owners = [];
    this.upgrades = [];
    this.blocks.clear();
    for (const d of this.decks) Object.assign(d, { current_owner: null, last_transfer_at: null });
    Object.assign(this.stateRow!, { status: 'reindexing', last_indexed_block: startBlock - 1, last_indexed_hash: null });
  }

  async linkDecks() {
    const links = deckLinks(this.matches());
    let linked = 0;
    for (const t of this.transfers) {
      const deck = t.deck_id === null ? links.get(tokenKey(t)) : undefined;
      if (!deck) continue;
      t.deck_id = deck;
      linked += 1;
      const d = this.decks.find((x) => x.id === deck)!;
      const latest = this.transfers.filter((x) => tokenKey(x) === tokenKey(d)).at(-1)!;
      Object.assign(d, { current_owner: latest.to_address, last_transfer_at: latest.timestamp });
    }
    return linked;
  }
}

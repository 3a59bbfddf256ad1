import { bigint, index, integer, jsonb, numeric, pgTable, primaryKey, text, uniqueIndex, uuid, varchar } from 'drizzle-orm/pg-core';
import { ts } from './columns.ts';

/** Hashes of indexed blocks (the recent window fully, older ranges sparsely): reorg detection. */
export const indexedBlocks = pgTable(
  'indexed_blocks',
  {
    chain_id: integer('chain_id').notNull(),
    block_number: bigint('block_number', { mode: 'number' }).notNull(),
    block_hash: varchar('block_hash', { length: 66 }).notNull(),
    parent_hash: varchar('parent_hash', { length: 66 }),
  },
  (t) => [primaryKey({ columns: [t.chain_id, t.block_number] })],
);

/** §4.4 "apps": collections seen in the factory's CollectionCreated logs. */
export const apps = pgTable(
  'apps',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    chain_id: integer('chain_id').notNull(),
    address: varchar('address', { length: 42 }).notNull(),
    factory_address: varchar('factory_address', { length: 42 }).notNull(),
    name: text('name').notNull(),
    symbol: text('symbol').notNull(),
    creator: varchar('creator', { length: 42 }).notNull(),
    block_number: bigint('block_number', { mode: 'number' }).notNull(),
    block_hash: varchar('block_hash', { length: 66 }).notNull(),
    tx_hash: varchar('tx_hash', { length: 66 }).notNull(),
    log_index: integer('log_index').notNull(),
    timestamp: ts('timestamp').notNull(),
  },
  (t) => [uniqueIndex('apps_chain_address').on(t.chain_id, t.address), index().on(t.chain_id, t.block_number)],
);

/** §4.4 "app token mints": one row per mint call (a run of Transfer-from-zero logs of one tx). */
export const appTokenMints = pgTable(
  'app_token_mints',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    chain_id: integer('chain_id').notNull(),
    app_address: varchar('app_address', { length: 42 }).notNull(),
    to_address: varchar('to_address', { length: 42 }).notNull(),
    start_token_id: numeric('start_token_id', { precision: 78, scale: 0 }).notNull(),
    quantity: integer('quantity').notNull(),
    block_number: bigint('block_number', { mode: 'number' }).notNull(),
    block_hash: varchar('block_hash', { length: 66 }).notNull(),
    tx_hash: varchar('tx_hash', { length: 66 }).notNull(),
    /** log index of the run's first Transfer */
    log_index: integer('log_index').notNull(),
    timestamp: ts('timestamp').notNull(),
  },
  (t) => [
    uniqueIndex('app_token_mints_chain_tx_log').on(t.chain_id, t.tx_hash, t.log_index),
    index().on(t.chain_id, t.app_address, t.block_number),
    index().on(t.chain_id, t.block_number),
  ],
);

/** §4.4 "owner token" transfers: a collection's OwnershipTransferred logs (from zero = minted). */
export const ownerTokenTransfers = pgTable(
  'owner_token_transfers',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    chain_id: integer('chain_id').notNull(),
    app_address: varchar('app_address', { length: 42 }).notNull(),
    from_address: varchar('from_address', { length: 42 }).notNull(),
    to_address: varchar('to_address', { length: 42 }).notNull(),
    block_number: bigint('block_number', { mode: 'number' }).notNull(),
    block_hash: varchar('block_hash', { length: 66 }).notNull(),
    tx_hash: varchar('tx_hash', { length: 66 }).notNull(),
    log_index: integer('log_index').notNull(),
    timestamp: ts('timestamp').notNull(),
  },
  (t) => [
    uniqueIndex('owner_token_transfers_chain_tx_log').on(t.chain_id, t.tx_hash, t.log_index),
    index().on(t.chain_id, t.app_address, t.block_number),
    index().on(t.chain_id, t.block_number),
  ],
);

/** §4.4 "contract upgrades": DiamondCut logs of every collection. */
export const contractUpgrades = pgTable(
  'contract_upgrades',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    chain_id: integer('chain_id').notNull(),
    contract_address: varchar('contract_address', { length: 42 }).notNull(),
    init_address: varchar('init_address', { length: 42 }).notNull(),
    init_calldata: text('init_calldata').notNull(),
    cuts: jsonb('cuts').notNull(),
    block_number: bigint('block_number', { mode: 'number' }).notNull(),
    block_hash: varchar('block_hash', { length: 66 }).notNull(),
    tx_hash: varchar('tx_hash', { length: 66 }).notNull(),
    log_index: integer('log_index').notNull(),
    timestamp: ts('timestamp').notNull(),
  },
  (t) => [
    uniqueIndex('contract_upgrades_chain_tx_log').on(t.chain_id, t.tx_hash, t.log_index),
    index().on(t.chain_id, t.contract_address, t.block_number),
    index().on(t.chain_id, t.block_number),
  ],
);

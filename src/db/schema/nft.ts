/** Samples and payments, chain transactions, idempotency keys, transfers and the indexer state (docs/api/nft.md §2.9, §2.10). */
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  uuid,
  varchar,
} from 'drizzle-orm/pg-core';
import { createdAt, ts, updatedAt } from './columns.ts';
import { collections } from './content.ts';
export const samples = pgTable(
  'samples',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    collection_id: uuid('collection_id')
      .notNull()
      .references(() => collections.id, { onDelete: 'cascade' }),
    output_id: uuid('output_id').notNull(),
    job_id: text('job_id'),
    user_id: text('user_id'),
    wallet_address: varchar('wallet_address', { length: 42 }).notNull(),
    is_free: boolean('is_free').notNull(),
    payment_id: uuid('payment_id'),
    traits: jsonb('traits').notNull().default(sql`'[]'::jsonb`),
    created_at: createdAt(),
  },
  (t) => [index().on(t.collection_id, t.created_at)],
);

/**
 * Free-sample counters: one row per collection (subject '*') and one per user and collection.
 * Gated by `UPDATE … SET used = used + n WHERE used + n <= limit`.
 */
export const sampleAllowances = pgTable(
  'sample_allowances',
  {
    collection_id: uuid('collection_id')
      .notNull()
      .references(() => collections.id, { onDelete: 'cascade' }),
    subject: text('subject').notNull(),
    used: integer('used').notNull().default(0),
    updated_at: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.collection_id, t.subject] })],
);

/** A payment transaction hash is accepted once: the unique index is the guarantee. */
export const payments = pgTable(
  'payments',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    chain_id: integer('chain_id').notNull(),
    tx_hash: varchar('tx_hash', { length: 66 }).notNull(),
    token_address: varchar('token_address', { length: 42 }).notNull(),
    payer: varchar('payer', { length: 42 }).notNull(),
    recipient: varchar('recipient', { length: 42 }).notNull(),
    amount: numeric('amount', { precision: 78, scale: 0 }).notNull(),
    purpose: varchar('purpose', { length: 30 }).notNull(),
    collection_id: uuid('collection_id'),
    /** Samples this payment buys (a retry resumes up to it); null on rows from before resumable claims. */
    sample_count: integer('sample_count'),
    /** While set and in the future, a request is creating this payment's samples (retries wait). */
    lease_until: ts('lease_until'),
    /**
     * The chain-write key of the mint request that claimed it: a retry of that request (same
     * Idempotency-Key) after a crash before its mint transaction was recorded may use it again.
     */
    request_key: varchar('request_key', { length: 300 }),
    created_at: createdAt(),
  },
  (t) => [uniqueIndex('payments_chain_tx').on(t.chain_id, t.tx_hash)],
);

/**
 * Public mints per wallet and collection (max_per_wallet), taken in one conditional upsert
 * (`minted + n <= limit`), given back when the mint fails.
 */
export const mintWalletCounts = pgTable(
  'mint_wallet_counts',
  {
    collection_id: uuid('collection_id')
      .notNull()
      .references(() => collections.id, { onDelete: 'cascade' }),
    wallet: varchar('wallet', { length: 42 }).notNull(),
    minted: integer('minted').notNull().default(0),
    updated_at: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.collection_id, t.wallet] })],
);

// ---------- chain ----------

/** Every chain write, recorded before it is sent (DESIGN.md: the tx sender). */
export const chainTransactions = pgTable(
  'chain_transactions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    idempotency_key: text('idempotency_key').unique(),
    purpose: varchar('purpose', { length: 50 }).notNull(),
    chain_id: integer('chain_id').notNull(),
    from_address: varchar('from_address', { length: 42 }).notNull(),
    to_address: varchar('to_address', { length: 42 }),
    data: text('data'),
    value: numeric('value', { precision: 78, scale: 0 }).notNull().default('0'),
    nonce: integer('nonce'),
    hash: varchar('hash', { length: 66 }),
    /** The signed raw transaction of `hash`, stored before broadcast so a restart can resend it. */
    raw_tx: text('raw_tx'),
    replaced_hashes: jsonb('replaced_hashes').$type<string[]>().notNull().default(sql`'[]'::jsonb`),
    status: varchar('status', { length: 20 }).notNull().default('queued'),
    attempts: integer('attempts').notNull().default(0),
    receipt: jsonb('receipt'),
    error: text('error'),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
  (t) => [index().on(t.status), uniqueIndex('chain_transactions_wallet_nonce').on(t.chain_id, t.from_address, t.nonce)],
);

/** Request idempotency (Idempotency-Key header): the first response is replayed to retries. */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    key: text('key').notNull(),
    scope: text('scope').notNull(),
    status: varchar('status', { length: 20 }).notNull().default('in_progress'),
    status_code: integer('status_code'),
    response: jsonb('response'),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.key] })],
);

export const transfers = pgTable(
  'transfers',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    chain_id: integer('chain_id').notNull(),
    collection_address: varchar('collection_address', { length: 42 }).notNull(),
    token_id: numeric('token_id', { precision: 78, scale: 0 }).notNull(),
    deck_id: uuid('deck_id'),
    from_address: varchar('from_address', { length: 42 }).notNull(),
    to_address: varchar('to_address', { length: 42 }).notNull(),
    block_number: bigint('block_number', { mode: 'number' }).notNull(),
    block_hash: varchar('block_hash', { length: 66 }).notNull(),
    tx_hash: varchar('tx_hash', { length: 66 }).notNull(),
    log_index: integer('log_index').notNull(),
    timestamp: ts('timestamp').notNull(),
  },
  (t) => [
    uniqueIndex('transfers_chain_tx_log').on(t.chain_id, t.tx_hash, t.log_index),
    index().on(t.deck_id, t.block_number),
    index().on(t.chain_id, t.collection_address, t.token_id),
    index().on(t.chain_id, t.block_number),
  ],
);

export const indexerState = pgTable('indexer_state', {
  id: text('id').primaryKey(),
  status: varchar('status', { length: 20 }).notNull().default('idle'),
  last_indexed_block: bigint('last_indexed_block', { mode: 'number' }).notNull().default(0),
  last_indexed_hash: varchar('last_indexed_hash', { length: 66 }),
  chain_id: integer('chain_id').notNull(),
  started_at: ts('started_at'),
  updated_at: updatedAt(),
  /** Indexer extras (docs/indexer.md): chain head seen last, first block indexed, last error. */
  head_block: bigint('head_block', { mode: 'number' }),
  start_block: bigint('start_block', { mode: 'number' }),
  last_error: text('last_error'),
});

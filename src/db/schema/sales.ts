/** On-chain sale purchases the platform turned into artwork (docs/minting.md "On-chain sale"). */
import { bigint, index, integer, jsonb, numeric, pgTable, primaryKey, timestamp, uniqueIndex, uuid, varchar } from 'drizzle-orm/pg-core';

/**
 * One row per token of a `Purchase` event. The unique key (chain, tx hash, log index, token) makes
 * a token's artwork start once across replicas and restarts: the row is inserted before the
 * generation, and only the inserter starts it. A reorg that removes the purchase deletes the row
 * after cancelling its job and freeing its deck.
 */
export const salePurchases = pgTable(
  'sale_purchases',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    chain_id: integer('chain_id').notNull(),
    tx_hash: varchar('tx_hash', { length: 66 }).notNull(),
    log_index: integer('log_index').notNull(),
    token_id: bigint('token_id', { mode: 'number' }).notNull(),
    block_number: bigint('block_number', { mode: 'number' }).notNull(),
    /** The hash of the block that mined it: the tokens' fair seeds mix it in (docs/fairness.md). */
    block_hash: varchar('block_hash', { length: 66 }).notNull(),
    collection_id: uuid('collection_id').notNull(),
    buyer: varchar('buyer', { length: 42 }).notNull(),
    recipient: varchar('recipient', { length: 42 }).notNull(),
    /** none | buyer | invalid | oversized: whether the buyer's `data` chose the variables (else the platform drew them). */
    choices_status: varchar('choices_status', { length: 20 }).notNull(),
    choices: jsonb('choices').notNull().default({}),
    /** The Purchase event's payment: currency (zero address for native), amount for the whole purchase, its token count. */
    currency: varchar('currency', { length: 42 }),
    amount: numeric('amount', { precision: 78, scale: 0 }),
    quantity: integer('quantity'),
    /** Each payout recipient's share of `amount`, as the contract split it (domain/sale-config.ts splitPayouts). */
    payouts: jsonb('payouts'),
    deck_id: uuid('deck_id'),
    job_id: uuid('job_id'),
    /** A process is starting this row's artwork until then (a crashed start is retried after it). */
    lease_until: timestamp('lease_until', { withTimezone: true }),
    created_at: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('sale_purchases_event_token').on(t.chain_id, t.tx_hash, t.log_index, t.token_id),
    index('sale_purchases_collection_token').on(t.collection_id, t.token_id),
  ],
);

/**
 * Mint transactions the purchase follower read and found no Purchase in (an owner's own mintTo,
 * a minter contract): remembered so they never fill the follower's window again.
 */
export const saleScannedTxs = pgTable(
  'sale_scanned_txs',
  {
    chain_id: integer('chain_id').notNull(),
    tx_hash: varchar('tx_hash', { length: 66 }).notNull(),
    created_at: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.chain_id, t.tx_hash] })],
);

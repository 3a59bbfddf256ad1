/** Seed secrets and token receipts (docs/fairness.md). */
import { integer, jsonb, pgTable, primaryKey, text, uuid, varchar } from 'drizzle-orm/pg-core';
import { collections } from './content.ts';
import { createdAt, ts } from './columns.ts';

/**
 * One secret per deployed contract of a collection (a collection reset and redeployed gets a new
 * one). `secret` never leaves the platform before the reveal; `commit_tx_hash` is set once
 * commitSeed is mined, `reveal_tx_hash` once reveal is.
 */
export const seedSecrets = pgTable(
  'seed_secrets',
  {
    collection_id: uuid('collection_id')
      .notNull()
      .references(() => collections.id, { onDelete: 'cascade' }),
    chain_id: integer('chain_id').notNull(),
    contract_address: varchar('contract_address', { length: 42 }).notNull(),
    secret: varchar('secret', { length: 66 }).notNull(),
    commitment: varchar('commitment', { length: 66 }).notNull(),
    commit_tx_hash: varchar('commit_tx_hash', { length: 66 }),
    reveal_tx_hash: varchar('reveal_tx_hash', { length: 66 }),
    revealed_at: ts('revealed_at'),
    created_at: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.chain_id, t.contract_address] })],
);

/** A token's receipt, built once its artwork completed (keyed by that output: new artwork, new receipt). */
export const tokenReceipts = pgTable('token_receipts', {
  output_id: uuid('output_id').primaryKey(),
  collection_id: uuid('collection_id')
    .notNull()
    .references(() => collections.id, { onDelete: 'cascade' }),
  token_id: integer('token_id').notNull(),
  receipt: jsonb('receipt').notNull(),
  leaf: text('leaf').notNull(),
  created_at: createdAt(),
});

/** Seed secrets and token receipts (docs/fairness.md). */
import { bigint, integer, jsonb, pgTable, primaryKey, text, uuid, varchar } from 'drizzle-orm/pg-core';
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

/**
 * The deck of an exact collection's contract (docs/fairness.md "Exact counts"): dealt from the
 * committed secret before the first mint, its provenance hash set on chain once; at the reveal the
 * offset block, its hash and the offset; the BatchMetadataUpdate once every artwork completed.
 */
export const exactDecks = pgTable(
  'exact_decks',
  {
    collection_id: uuid('collection_id')
      .notNull()
      .references(() => collections.id, { onDelete: 'cascade' }),
    chain_id: integer('chain_id').notNull(),
    contract_address: varchar('contract_address', { length: 42 }).notNull(),
    /** The exact spec the deck was dealt from (domain/exact-deck.ts ExactSpec): later edits do not change it. */
    spec: jsonb('spec').notNull(),
    deck: jsonb('deck').notNull(),
    provenance_hash: varchar('provenance_hash', { length: 66 }).notNull(),
    provenance_tx_hash: varchar('provenance_tx_hash', { length: 66 }),
    offset_block: bigint('offset_block', { mode: 'number' }),
    offset_block_hash: varchar('offset_block_hash', { length: 66 }),
    reveal_offset: integer('reveal_offset'),
    assigned_at: ts('assigned_at'),
    batch_update_tx_hash: varchar('batch_update_tx_hash', { length: 66 }),
    created_at: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.chain_id, t.contract_address] })],
);

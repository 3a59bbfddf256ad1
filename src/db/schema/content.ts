import {
  bigint,
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  serial,
  text,
  uniqueIndex,
  uuid,
  varchar,
} from 'drizzle-orm/pg-core';
import { createdAt, ts, updatedAt } from './columns.ts';

export const socialLinks = pgTable(
  'social_links',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    social_org: varchar('social_org', { length: 30 }).notNull(),
    social_identifier: varchar('social_identifier', { length: 255 }).notNull(),
    miniapp_user_id: uuid('miniapp_user_id'),
    created_at: createdAt(),
  },
  (t) => [uniqueIndex('social_links_org_identifier').on(t.social_org, t.social_identifier)],
);

// ---------- collections ----------

export const collections = pgTable(
  'collections',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    user_id: text('user_id'),
    title: varchar('title', { length: 200 }).notNull(),
    description: text('description').notNull().default(''),
    editions: integer('editions').notNull().default(1),
    price: doublePrecision('price').notNull().default(0),
    blockchain: varchar('blockchain', { length: 20 }).notNull().default('ARBITRUM'),
    data: jsonb('data').notNull(),
    project_id: uuid('project_id'),
    social_org: varchar('social_org', { length: 30 }),
    social_identifier: varchar('social_identifier', { length: 255 }),
    is_custodial: boolean('is_custodial').notNull().default(false),
    custodied_for: uuid('custodied_for').references(() => socialLinks.id),
    status: varchar('status', { length: 20 }).notNull().default('draft'),
    cover_image_url: text('cover_image_url'),
    /** Custodial template collections: {type: 'dynamic_json', job_type, template} (docs/api/content.md §4.5). */
    component: jsonb('component'),
    /** Source details kept verbatim (e.g. cast_hash, miniapp_cover_image). */
    source_metadata: jsonb('source_metadata'),
    // deployment
    contract_address: varchar('contract_address', { length: 42 }),
    chain_id: integer('chain_id'),
    deploy_tx_hash: varchar('deploy_tx_hash', { length: 66 }),
    base_token_uri: text('base_token_uri'),
    mint_status: varchar('mint_status', { length: 20 }).notNull().default('draft'),
    // design stage
    max_supply: integer('max_supply'),
    tokens_minted: integer('tokens_minted').notNull().default(0),
    royalty_bps: integer('royalty_bps'),
    royalty_receiver: varchar('royalty_receiver', { length: 42 }),
    // feed and develop
    is_global: boolean('is_global').notNull().default(false),
    input_type: varchar('input_type', { length: 10 }),
    output_type: varchar('output_type', { length: 10 }),
    is_featured: boolean('is_featured').notNull().default(false),
    generations_per_payment: integer('generations_per_payment').notNull().default(1),
    // samples
    free_samples_per_collection: integer('free_samples_per_collection').notNull().default(10),
    free_samples_per_user: integer('free_samples_per_user').notNull().default(3),
    compute_cost_per_sample: numeric('compute_cost_per_sample', { precision: 78, scale: 0 }).notNull().default('1000000'),
    // mint policy (docs/minting.md "Mint policy"): who may mint besides the owner, and for what
    /** 'owner' (only the owner and the operator mint) or 'public' (anyone, paying mint_price). */
    mint_access: varchar('mint_access', { length: 10 }).notNull().default('owner'),
    /** Stablecoin units per token; null: `price` in whole stablecoins (6 decimals). */
    mint_price: numeric('mint_price', { precision: 78, scale: 0 }),
    /** Where public mint payments go; null: a public paid mint is refused until it is set. */
    payout_address: varchar('payout_address', { length: 42 }),
    max_per_wallet: integer('max_per_wallet'),
    /** Lowercase addresses allowed to mint publicly; null: no address list. */
    mint_allowlist: jsonb('mint_allowlist').$type<string[]>(),
    /** Merkle root of allowed addresses (sorted-pair keccak256, docs/minting.md); null: none. */
    mint_merkle_root: varchar('mint_merkle_root', { length: 66 }),
    mint_start: ts('mint_start'),
    mint_end: ts('mint_end'),
    // permanence (docs/permanence.md "Freezing"): set once the contract's metadata is frozen on
    // chain at the bundle `frozen_root_cid`; the metadata routes then answer the bundle's documents
    frozen_at: ts('frozen_at'),
    frozen_root_cid: text('frozen_root_cid'),
    /** The freezeMetadata() transaction when the platform sent it; null when the creator did. */
    frozen_tx_hash: varchar('frozen_tx_hash', { length: 66 }),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
  // (created_at, id): the collections list's keyset order (db/collection-views.ts).
  (t) => [index().on(t.user_id), index().on(t.contract_address, t.chain_id), index().on(t.created_at, t.id)],
);

// ---------- decks and outputs ----------

export const decks = pgTable(
  'decks',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    collection_id: uuid('collection_id')
      .notNull()
      .references(() => collections.id, { onDelete: 'cascade' }),
    user_id: text('user_id'),
    name: varchar('name', { length: 200 }).notNull().default(''),
    description: text('description').notNull().default(''),
    status: varchar('status', { length: 20 }).notNull().default('active'),
    output_count: integer('output_count').notNull().default(0),
    cover_output_id: uuid('cover_output_id'),
    published_at: ts('published_at'),
    is_custodial: boolean('is_custodial').notNull().default(false),
    custodied_for: uuid('custodied_for').references(() => socialLinks.id),
    // token fields (docs/api/nft.md §2.5)
    token_id: bigint('token_id', { mode: 'number' }),
    mint_tx_hash: varchar('mint_tx_hash', { length: 66 }),
    mint_recipient: varchar('mint_recipient', { length: 42 }),
    mint_status: varchar('mint_status', { length: 20 }),
    minted_at: ts('minted_at'),
    metadata_uri: text('metadata_uri'),
    current_owner: varchar('current_owner', { length: 42 }),
    last_transfer_at: ts('last_transfer_at'),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
  (t) => [index().on(t.collection_id), index().on(t.user_id), uniqueIndex('decks_collection_token').on(t.collection_id, t.token_id)],
);

export const flatFiles = pgTable(
  'flat_files',
  {
    id: serial('id').primaryKey(),
    url: text('url').notNull(),
    mime_type: varchar('mime_type', { length: 100 }).notNull(),
    size: integer('size'),
    user_id: text('user_id'),
    rel_type: varchar('rel_type', { length: 50 }).notNull().default('upload'),
    stream_asset_id: text('stream_asset_id'),
    stream_playback_id: text('stream_playback_id'),
    created_at: createdAt(),
  },
  (t) => [index().on(t.user_id)],
);

export const outputs = pgTable(
  'outputs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    collection_id: uuid('collection_id')
      .notNull()
      .references(() => collections.id, { onDelete: 'cascade' }),
    deck_id: uuid('deck_id').references(() => decks.id, { onDelete: 'set null' }),
    job_id: text('job_id'),
    user_id: text('user_id'),
    status: varchar('status', { length: 20 }).notNull().default('pending'),
    source: varchar('source', { length: 30 }).notNull().default('unknown'),
    url: text('url'),
    mime_type: varchar('mime_type', { length: 100 }),
    thumbnail_url: text('thumbnail_url'),
    flat_file_id: integer('flat_file_id').references(() => flatFiles.id),
    input_metadata: jsonb('input_metadata'),
    output_metadata: jsonb('output_metadata'),
    error_message: text('error_message'),
    is_custodial: boolean('is_custodial').notNull().default(false),
    custodied_for: uuid('custodied_for').references(() => socialLinks.id),
    parent_output_id: uuid('parent_output_id'),
    token_metadata: jsonb('token_metadata'),
    created_at: createdAt(),
    completed_at: ts('completed_at'),
    updated_at: updatedAt(),
  },
  (t) => [index().on(t.collection_id, t.status), index().on(t.deck_id), index().on(t.job_id), index().on(t.completed_at)],
);

/**
 * The whole data model of both spec documents, one PostgreSQL dialect for PGlite and PostgreSQL.
 * `user_id` columns are text: they hold the internal user uuid when the identity model resolved
 * one, else the provider id (content-service.md §2.8 rule 5), so no foreign key yet (rule 6).
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  real,
  serial,
  text,
  timestamp,
  uniqueIndex,
  uuid,
  varchar,
} from 'drizzle-orm/pg-core';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const createdAt = () => ts('created_at').notNull().defaultNow();
const updatedAt = () => ts('updated_at').notNull().defaultNow();

// ---------- identity ----------

export const users = pgTable('users', {
  id: uuid('id').primaryKey().defaultRandom(),
  email: varchar('email', { length: 255 }).unique(),
  display_name: varchar('display_name', { length: 255 }),
  avatar_url: varchar('avatar_url', { length: 500 }),
  created_at: createdAt(),
  updated_at: updatedAt(),
  last_login_at: ts('last_login_at'),
  is_active: boolean('is_active').notNull().default(true),
  is_blocked: boolean('is_blocked').notNull().default(false),
});

export const userIdentities = pgTable(
  'user_identities',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    user_id: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    provider: varchar('provider', { length: 30 }).notNull(),
    provider_user_id: varchar('provider_user_id', { length: 500 }).notNull(),
    provider_email: varchar('provider_email', { length: 255 }),
    provider_metadata: jsonb('provider_metadata'),
    linked_at: ts('linked_at').notNull().defaultNow(),
    last_used_at: ts('last_used_at'),
  },
  (t) => [uniqueIndex('user_identities_provider_uid').on(t.provider, t.provider_user_id), index().on(t.user_id)],
);

/** User API keys; only a SHA-256 hash is stored, the plaintext is shown once at creation. */
export const apiKeys = pgTable('api_keys', {
  id: uuid('id').primaryKey().defaultRandom(),
  user_id: text('user_id').notNull(),
  name: varchar('name', { length: 100 }).notNull(),
  key_hash: text('key_hash').notNull().unique(),
  key_prefix: varchar('key_prefix', { length: 16 }).notNull(),
  created_at: createdAt(),
  last_used_at: ts('last_used_at'),
  revoked_at: ts('revoked_at'),
});

/** Credit balance per user id; debited in one conditional statement per generation. */
export const creditBalances = pgTable('credit_balances', {
  user_id: text('user_id').primaryKey(),
  balance: integer('balance').notNull().default(0),
  updated_at: updatedAt(),
});

// ---------- custodial social links ----------

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
    /** Custodial template collections: {type: 'dynamic_json', job_type, template} (content-service.md §4.5). */
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
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
  (t) => [index().on(t.user_id), index().on(t.contract_address, t.chain_id)],
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
    // token fields (nft-service.md §2.5)
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

// ---------- jobs and workflows ----------

export const jobs = pgTable(
  'jobs',
  {
    id: text('id').primaryKey(),
    name: varchar('name', { length: 200 }).notNull().default(''),
    description: text('description').notNull().default(''),
    status: varchar('status', { length: 20 }).notNull().default('pending'),
    progress: real('progress'),
    error_message: text('error_message'),
    job_type: varchar('job_type', { length: 50 }).notNull().default('collection_generation'),
    priority: integer('priority').notNull().default(50),
    workflow_id: text('workflow_id'),
    workflow_output: text('workflow_output'),
    retry_count: integer('retry_count').notNull().default(0),
    data: jsonb('data').notNull(),
    user_id: text('user_id'),
    collection_id: uuid('collection_id'),
    output_id: uuid('output_id'),
    created_at: createdAt(),
    updated_at: updatedAt(),
    started_at: ts('started_at'),
    completed_at: ts('completed_at'),
  },
  (t) => [index().on(t.status), index().on(t.collection_id), index().on(t.user_id)],
);

export const jobSteps = pgTable(
  'job_steps',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    job_id: text('job_id')
      .notNull()
      .references(() => jobs.id, { onDelete: 'cascade' }),
    step_name: varchar('step_name', { length: 100 }).notNull(),
    step_type: varchar('step_type', { length: 50 }).notNull(),
    step_order: integer('step_order').notNull(),
    status: varchar('status', { length: 20 }).notNull().default('pending'),
    input_data: jsonb('input_data'),
    output_data: jsonb('output_data'),
    retry_attempt: integer('retry_attempt').notNull().default(0),
    error_message: text('error_message'),
    queue_job_id: text('queue_job_id'),
    started_at: ts('started_at'),
    completed_at: ts('completed_at'),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
  (t) => [uniqueIndex('job_steps_job_order_attempt').on(t.job_id, t.step_order, t.retry_attempt), index().on(t.status, t.created_at)],
);

/** Append-only; the bigserial id is the SSE event id, so a reconnect resumes after it. */
export const jobHistory = pgTable(
  'job_history',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    job_id: text('job_id')
      .notNull()
      .references(() => jobs.id, { onDelete: 'cascade' }),
    status: varchar('status', { length: 20 }).notNull(),
    message: text('message').notNull().default(''),
    progress: real('progress'),
    data: jsonb('data'),
    created_at: createdAt(),
  },
  (t) => [index().on(t.job_id, t.id)],
);

export const jobRetryBackups = pgTable(
  'job_retry_backups',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    job_id: text('job_id')
      .notNull()
      .references(() => jobs.id, { onDelete: 'cascade' }),
    retry_attempt: integer('retry_attempt').notNull(),
    original_status: varchar('original_status', { length: 20 }).notNull(),
    original_data: jsonb('original_data').notNull(),
    original_error: text('original_error'),
    original_workflow_output: text('original_workflow_output'),
    backed_up_at: createdAt(),
  },
  (t) => [uniqueIndex('job_retry_backups_job_attempt').on(t.job_id, t.retry_attempt)],
);

export const workflows = pgTable('workflows', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: varchar('name', { length: 100 }).notNull().unique(),
  label: varchar('label', { length: 200 }).notNull(),
  type: varchar('type', { length: 20 }).notNull().default('basic'),
  description: text('description').notNull().default(''),
  data: jsonb('data'),
  models: jsonb('models').$type<string[]>().notNull().default(sql`'[]'::jsonb`),
  custom_nodes: jsonb('custom_nodes').$type<string[]>().notNull().default(sql`'[]'::jsonb`),
  output_mime_type: varchar('output_mime_type', { length: 100 }).notNull().default('image/png'),
  display: boolean('display').notNull().default(true),
  order: integer('order').notNull().default(0),
  requires_api_key: boolean('requires_api_key').notNull().default(false),
  created_at: createdAt(),
  updated_at: updatedAt(),
});

// ---------- samples and payments ----------

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
    created_at: createdAt(),
  },
  (t) => [uniqueIndex('payments_chain_tx').on(t.chain_id, t.tx_hash)],
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

// ---------- indexer (docs/indexer.md) ----------

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

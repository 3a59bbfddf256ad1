import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex, uuid, varchar } from 'drizzle-orm/pg-core';
import { createdAt, ts, updatedAt } from './columns.ts';

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

/**
 * Sign-In with Ethereum nonces (docs/auth.md): single use, with an expiry; consumed by one
 * conditional UPDATE (`used_at IS NULL AND expires_at > now()`). A link nonce is issued to one
 * user (`user_id`); a sign-in nonce to nobody (`user_id` null): neither is accepted as the other.
 */
export const walletNonces = pgTable('wallet_nonces', {
  nonce: varchar('nonce', { length: 64 }).primaryKey(),
  user_id: text('user_id'),
  expires_at: ts('expires_at').notNull(),
  used_at: ts('used_at'),
  created_at: createdAt(),
});

/**
 * Platform sessions (docs/auth.md "Sessions"): the token a Sign-In with Ethereum login hands out.
 * Only its SHA-256 is stored; it expires (`expires_at`, at most JWT_MAX_AGE_SECONDS after
 * issue) and is revoked by sign-out (`revoked_at`). Every replica checks it in this table.
 */
export const userSessions = pgTable(
  'user_sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    user_id: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    token_hash: text('token_hash').notNull().unique(),
    /** How the session was opened: `siwe` (the wallet in `address`). */
    method: varchar('method', { length: 20 }).notNull(),
    address: varchar('address', { length: 42 }),
    created_at: createdAt(),
    expires_at: ts('expires_at').notNull(),
    revoked_at: ts('revoked_at'),
    last_used_at: ts('last_used_at'),
  },
  (t) => [index().on(t.user_id)],
);

/** Operations: leases of the singleton duties (src/duties/runner.ts, docs/operations.md). */
import { boolean, integer, numeric, pgTable, primaryKey, text, timestamp, varchar } from 'drizzle-orm/pg-core';

/**
 * One row per singleton duty (`metadata-updates`, `crash-repair`, `jobs-reconciler`,
 * `indexer:<chainId>`): the process holding it and until when. The holder renews `expires_at`
 * by heartbeat; anyone may take a row whose `expires_at` has passed (times from the database's
 * clock, never a process's).
 */
export const leases = pgTable('leases', {
  name: varchar('name', { length: 100 }).primaryKey(),
  holder: text('holder').notNull(),
  expires_at: timestamp('expires_at', { withTimezone: true }).notNull(),
  acquired_at: timestamp('acquired_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * The platform wallet's health per chain (docs/operations.md "Wallet health"): the last balance
 * read, the threshold it was compared with, and whether it is low. `low_crossings` counts the
 * times it went low: the `wallet.low_balance` event of each crossing is keyed by it, so a crossing
 * is announced once however many processes read the balance.
 */
export const walletHealth = pgTable(
  'wallet_health',
  {
    chain_id: integer('chain_id').notNull(),
    address: varchar('address', { length: 42 }).notNull(),
    balance_wei: numeric('balance_wei', { precision: 78, scale: 0 }).notNull(),
    threshold_wei: numeric('threshold_wei', { precision: 78, scale: 0 }).notNull(),
    low: boolean('low').notNull().default(false),
    low_crossings: integer('low_crossings').notNull().default(0),
    checked_at: timestamp('checked_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.chain_id, t.address] })],
);

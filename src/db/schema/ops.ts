/** Operations: leases of the singleton duties (src/duties/runner.ts, docs/operations.md). */
import { pgTable, text, timestamp, varchar } from 'drizzle-orm/pg-core';

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

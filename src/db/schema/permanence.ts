/** Content-addressed exports of collections (docs/permanence.md). */
import { sql } from 'drizzle-orm';
import { index, integer, pgTable, text, uniqueIndex, uuid, varchar } from 'drizzle-orm/pg-core';
import { collections } from './content.ts';
import { createdAt, ts } from './columns.ts';

/**
 * One export of a collection: `building` while the bundle is assembled (in the process that took
 * the request), then `ready` with the root CID and the CAR's storage key, or `failed` with why.
 * With a pin target configured, a ready export is then pinned there and read back (`pin_*`).
 * The gateway (`GET /ipfs/<cid>/…`) serves a ready export by its root or its images directory CID.
 */
export const collectionExports = pgTable(
  'collection_exports',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    collection_id: uuid('collection_id')
      .notNull()
      .references(() => collections.id, { onDelete: 'cascade' }),
    /** building | ready | failed */
    status: varchar('status', { length: 20 }).notNull().default('building'),
    /** sold_out | minting_off | sale_ended: why the sale counted as closed. */
    closed_reason: varchar('closed_reason', { length: 20 }).notNull(),
    requested_by: text('requested_by'),
    root_cid: text('root_cid'),
    images_cid: text('images_cid'),
    car_key: text('car_key'),
    car_bytes: integer('car_bytes'),
    token_count: integer('token_count'),
    error: text('error'),
    created_at: createdAt(),
    finished_at: ts('finished_at'),
    /** none | pinning | pinned | failed: the copy on the configured IPFS pin target (docs/permanence.md "Pinning"). */
    pin_status: varchar('pin_status', { length: 20 }).notNull().default('none'),
    /** Which target (kind and host), e.g. `kubo 127.0.0.1:5001`. */
    pin_target: text('pin_target'),
    pin_error: text('pin_error'),
    /** When the current pin attempt started: a `pinning` row no process finishes is taken over after a while. */
    pin_started_at: ts('pin_started_at'),
    pinned_at: ts('pinned_at'),
    /**
     * Touched every few seconds by the process building or pinning it: a `building` or `pinning`
     * row whose heartbeat stopped lost its process (kill -9), and another process takes it over.
     */
    heartbeat_at: ts('heartbeat_at').notNull().defaultNow(),
  },
  (t) => [
    index().on(t.collection_id, t.created_at),
    index().on(t.root_cid),
    index().on(t.images_cid),
    // One build at a time per collection, across replicas: a second request answers the first's row.
    uniqueIndex('collection_exports_one_building').on(t.collection_id).where(sql`status = 'building'`),
  ],
);

/**
 * Outbound webhooks (docs/webhooks.md): subscriptions, the transactional outbox of events, and
 * one delivery row per (subscription, event) with its attempt log.
 */
import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex, uuid, varchar } from 'drizzle-orm/pg-core';
import { createdAt, ts, updatedAt } from './columns.ts';

/**
 * A receiver. `owner_id` null is the operator's subscription (every collection); a user's sees
 * the events of records they own. The signing secret must be readable to sign, so it is stored as
 * is (docs/webhooks.md "Secrets"); after a rotation the previous one keeps signing beside the new
 * one until `previous_secret_expires_at`.
 */
export const webhookSubscriptions = pgTable(
  'webhook_subscriptions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    owner_id: text('owner_id'),
    url: text('url').notNull(),
    events: text('events').array().notNull(),
    secret: text('secret').notNull(),
    previous_secret: text('previous_secret'),
    previous_secret_expires_at: ts('previous_secret_expires_at'),
    enabled: boolean('enabled').notNull().default(true),
    /** Attempts that failed in a row (any delivery); reset by a success; disables at the limit. */
    consecutive_failures: integer('consecutive_failures').notNull().default(0),
    disabled_reason: text('disabled_reason'),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
  (t) => [index().on(t.owner_id)],
);

/**
 * The outbox: one row per event, written in the same transaction as the state change it reports
 * (db/webhook-outbox.ts), together with the delivery rows of the subscriptions it matches.
 */
export const webhookEvents = pgTable(
  'webhook_events',
  {
    /** The `webhook-id` header: stable across retries so receivers can deduplicate. */
    id: text('id').primaryKey(),
    type: varchar('type', { length: 64 }).notNull(),
    /** The owner of the record the event is about (null: the platform's). */
    owner_id: text('owner_id'),
    payload: jsonb('payload').notNull(),
    created_at: createdAt(),
  },
  (t) => [index().on(t.created_at)],
);

export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    subscription_id: uuid('subscription_id')
      .notNull()
      .references(() => webhookSubscriptions.id, { onDelete: 'cascade' }),
    event_id: text('event_id')
      .notNull()
      .references(() => webhookEvents.id, { onDelete: 'cascade' }),
    /** pending (due at next_attempt_at) | succeeded | failed (retries exhausted or subscription disabled). */
    status: varchar('status', { length: 16 }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    next_attempt_at: ts('next_attempt_at').notNull().defaultNow(),
    /** A deliverer's claim: nobody else sends it before this passes (a killed deliverer's claim lapses). */
    locked_until: ts('locked_until'),
    last_status_code: integer('last_status_code'),
    last_error: text('last_error'),
    last_duration_ms: integer('last_duration_ms'),
    delivered_at: ts('delivered_at'),
    created_at: createdAt(),
  },
  (t) => [
    uniqueIndex().on(t.subscription_id, t.event_id),
    index('webhook_deliveries_due').on(t.next_attempt_at).where(sql`status = 'pending'`),
  ],
);

/** The delivery log: every attempt with its answer and timing. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    delivery_id: uuid('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    attempt: integer('attempt').notNull(),
    status_code: integer('status_code'),
    error: text('error'),
    duration_ms: integer('duration_ms').notNull(),
    response_excerpt: text('response_excerpt'),
    created_at: createdAt(),
  },
  (t) => [index().on(t.delivery_id, t.created_at)],
);

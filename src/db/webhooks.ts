/**
 * Outbound webhooks (docs/webhooks.md): the outbox write that goes in the same transaction as the
 * state change it reports, subscriptions, and the deliverers' claims. Rows only.
 */
import { createHash } from 'node:crypto';
import { and, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import { rows, type Db, type Executor } from './client.ts';
import { webhookAttempts, webhookDeliveries, webhookEvents, webhookSubscriptions } from './schema/index.ts';
import { webhookMessageId } from '../domain/standard-webhooks.ts';

export type SubscriptionRow = typeof webhookSubscriptions.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type AttemptRow = typeof webhookAttempts.$inferSelect;

export interface OutboxEvent {
  /** What makes this event unique (e.g. `token.minted:<collection>:<token>`): a retried write adds nothing. */
  key: string;
  type: string;
  /** The owner of the record the event is about; null for the platform's. */
  ownerId: string | null;
  payload: Record<string, unknown>;
  /** Deliver only to this subscription (test events). */
  onlySubscriptionId?: string;
}

/**
 * Writes an event and one delivery per matching enabled subscription (the operator's, and the
 * record owner's). Call it with the transaction of the state change: both commit or neither.
 * Returns the event id, or undefined when the same key was recorded before.
 */
export async function recordWebhookEvent(db: Executor, e: OutboxEvent): Promise<string | undefined> {
  const id = webhookMessageId(createHash('sha256').update(e.key).digest('hex'));
  const body = { type: e.type, timestamp: new Date().toISOString(), data: e.payload };
  const inserted = await db
    .insert(webhookEvents)
    .values({ id, type: e.type, owner_id: e.ownerId, payload: body })
    .onConflictDoNothing()
    .returning({ id: webhookEvents.id });
  if (inserted.length === 0) return undefined;
  await db.execute(sql`
    INSERT INTO webhook_deliveries (subscription_id, event_id)
    SELECT s.id, ${id} FROM webhook_subscriptions s
    WHERE s.enabled
      AND ${e.onlySubscriptionId ? sql`s.id = ${e.onlySubscriptionId}` : sql`${e.type} = ANY(s.events) AND (s.owner_id IS NULL OR s.owner_id = ${e.ownerId})`}
    ON CONFLICT DO NOTHING`);
  return id;
}

export async function insertSubscription(
  db: Db,
  s: { ownerId: string | null; url: string; events: string[]; secret: string },
): Promise<SubscriptionRow> {
  const [row] = await db
    .insert(webhookSubscriptions)
    .values({ owner_id: s.ownerId, url: s.url, events: s.events, secret: s.secret })
    .returning();
  return row!;
}

export async function findSubscription(db: Db, id: string): Promise<SubscriptionRow | undefined> {
  const [row] = await db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, id));
  return row;
}

/** A user's subscriptions, or (ownerId undefined) every one: the operator's view. */
export async function listSubscriptions(db: Db, ownerId: string | null | undefined): Promise<SubscriptionRow[]> {
  const q = db.select().from(webhookSubscriptions);
  const filtered =
    ownerId === undefined
      ? q
      : q.where(ownerId === null ? isNull(webhookSubscriptions.owner_id) : eq(webhookSubscriptions.owner_id, ownerId));
  return filtered.orderBy(desc(webhookSubscriptions.created_at)).limit(500);
}

export async function updateSubscription(
  db: Db,
  id: string,
  set: Partial<
    Pick<
      SubscriptionRow,
      | 'url'
      | 'events'
      | 'enabled'
      | 'secret'
      | 'previous_secret'
      | 'previous_secret_expires_at'
      | 'disabled_reason'
      | 'consecutive_failures'
    >
  >,
): Promise<SubscriptionRow | undefined> {
  const [row] = await db
    .update(webhookSubscriptions)
    .set({ ...set, updated_at: sql`now()` })
    .where(eq(webhookSubscriptions.id, id))
    .returning();
  return row;
}

export async function deleteSubscription(db: Db, id: string): Promise<boolean> {
  const gone = await db.delete(webhookSubscriptions).where(eq(webhookSubscriptions.id, id)).returning({ id: webhookSubscriptions.id });
  return gone.length > 0;
}

export async function listDeliveries(db: Db, subscriptionId: string, limit: number) {
  return rows<DeliveryRow & { type: string; payload: unknown }>(
    db,
    sql`SELECT d.*, e.type, e.payload FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
        WHERE d.subscription_id = ${subscriptionId} ORDER BY d.created_at DESC, d.id LIMIT ${limit}`,
  );
}

export async function listAttempts(db: Db, deliveryIds: string[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  return db.select().from(webhookAttempts).where(inArray(webhookAttempts.delivery_id, deliveryIds)).orderBy(webhookAttempts.created_at);
}

export async function findDelivery(db: Db, id: string): Promise<DeliveryRow | undefined> {
  const [row] = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
  return row;
}

/** Sends one delivery again now (manual replay); a failed one is pending again. */
export async function requeueDelivery(db: Db, id: string): Promise<DeliveryRow | undefined> {
  const [row] = await db
    .update(webhookDeliveries)
    .set({ status: 'pending', next_attempt_at: sql`now()`, locked_until: null })
    .where(eq(webhookDeliveries.id, id))
    .returning();
  return row;
}

/** A claimed delivery with what sending it needs. */
export interface ClaimedDelivery {
  id: string;
  attempts: number;
  subscription_id: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  event_id: string;
  payload: unknown;
  event_created_at: Date;
}

/**
 * Claims up to `limit` due deliveries for `lockMs`: each is counted as an attempt and nobody else
 * claims it until the lock passes (a killed deliverer's claim lapses, and the delivery is sent
 * again). SKIP LOCKED keeps concurrent deliverers off each other's rows.
 */
export async function claimDueDeliveries(db: Db, limit: number, lockMs: number): Promise<ClaimedDelivery[]> {
  const claimed = await rows<ClaimedDelivery>(
    db,
    sql`WITH due AS (
          SELECT d.id FROM webhook_deliveries d
          JOIN webhook_subscriptions s ON s.id = d.subscription_id AND s.enabled
          WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND (d.locked_until IS NULL OR d.locked_until < now())
          ORDER BY d.next_attempt_at LIMIT ${limit}
          FOR UPDATE OF d SKIP LOCKED)
        UPDATE webhook_deliveries d SET attempts = d.attempts + 1, locked_until = now() + make_interval(secs => ${lockMs / 1000})
        FROM due, webhook_subscriptions s, webhook_events e
        WHERE d.id = due.id AND s.id = d.subscription_id AND e.id = d.event_id
        RETURNING d.id, d.attempts, d.subscription_id, s.url, s.secret, s.previous_secret, s.previous_secret_expires_at,
                  d.event_id, e.payload, e.created_at AS event_created_at`,
  );
  // Raw rows carry timestamps as text on PGlite and as Date on node-postgres.
  const date = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string));
  return claimed.map((c) => ({
    ...c,
    previous_secret_expires_at: date(c.previous_secret_expires_at),
    event_created_at: date(c.event_created_at)!,
  }));
}

export interface AttemptOutcome {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  responseExcerpt: string | null;
  /** When to try again after a failure; undefined: the retries are exhausted. */
  retryInMs: number | undefined;
  /** Failed attempts in a row after which a subscription is disabled. */
  disableAfter: number;
}

/**
 * Records one attempt's answer, fenced by the attempt number (a deliverer whose claim lapsed and
 * was taken over writes nothing). Returns whether the subscription was disabled by it.
 */
export async function finishAttempt(db: Db, d: ClaimedDelivery, o: AttemptOutcome): Promise<{ recorded: boolean; disabled: boolean }> {
  return db.transaction(async (t) => {
    const updated = await t
      .update(webhookDeliveries)
      .set(
        o.ok
          ? {
              status: 'succeeded',
              delivered_at: sql`now()`,
              locked_until: null,
              last_status_code: o.statusCode,
              last_error: null,
              last_duration_ms: o.durationMs,
            }
          : {
              status: o.retryInMs === undefined ? 'failed' : 'pending',
              next_attempt_at: o.retryInMs === undefined ? sql`now()` : sql`now() + make_interval(secs => ${o.retryInMs / 1000})`,
              locked_until: null,
              last_status_code: o.statusCode,
              last_error: o.error,
              last_duration_ms: o.durationMs,
            },
      )
      .where(and(eq(webhookDeliveries.id, d.id), eq(webhookDeliveries.attempts, d.attempts), eq(webhookDeliveries.status, 'pending')))
      .returning({ id: webhookDeliveries.id });
    if (updated.length === 0) return { recorded: false, disabled: false };
    await t.insert(webhookAttempts).values({
      delivery_id: d.id,
      attempt: d.attempts,
      status_code: o.statusCode,
      error: o.error,
      duration_ms: o.durationMs,
      response_excerpt: o.responseExcerpt,
    });
    if (o.ok) {
      await t.update(webhookSubscriptions).set({ consecutive_failures: 0 }).where(eq(webhookSubscriptions.id, d.subscription_id));
      return { recorded: true, disabled: false };
    }
    const [sub] = await t
      .update(webhookSubscriptions)
      .set({ consecutive_failures: sql`${webhookSubscriptions.consecutive_failures} + 1` })
      .where(eq(webhookSubscriptions.id, d.subscription_id))
      .returning({ failures: webhookSubscriptions.consecutive_failures, enabled: webhookSubscriptions.enabled });
    if (sub && sub.enabled && sub.failures >= o.disableAfter) {
      await t
        .update(webhookSubscriptions)
        .set({ enabled: false, disabled_reason: `disabled after ${sub.failures} failed attempts in a row`, updated_at: sql`now()` })
        .where(eq(webhookSubscriptions.id, d.subscription_id));
      return { recorded: true, disabled: true };
    }
    return { recorded: true, disabled: false };
  });
}

/**
 * `token.transferred` events for the transfers (not mints) a committed indexer range added, in the
 * indexer's transaction. Keyed by (chain, tx hash, log index) like the transfers themselves, so a
 * range committed again adds nothing. Written only while someone subscribes to them, so a
 * backfill with no subscriber pays one cheap check.
 */
export async function recordTransferEvents(db: Executor, chainId: number, fromBlock: number, toBlock: number): Promise<void> {
  await db.execute(sql`
    WITH ev AS (
      INSERT INTO webhook_events (id, type, owner_id, payload)
      SELECT 'msg_' || substr(encode(sha256(convert_to('token.transferred:' || tr.chain_id || ':' || lower(tr.tx_hash) || ':' || tr.log_index, 'UTF8')), 'hex'), 1, 32),
        'token.transferred', c.user_id,
        jsonb_build_object('type', 'token.transferred', 'timestamp', now(), 'data', jsonb_build_object(
          'collection_id', c.id, 'chain_id', tr.chain_id, 'contract_address', tr.collection_address, 'token_id', tr.token_id::text,
          'from', tr.from_address, 'to', tr.to_address, 'block_number', tr.block_number, 'tx_hash', tr.tx_hash, 'log_index', tr.log_index))
      FROM transfers tr
      LEFT JOIN collections c ON c.chain_id = tr.chain_id AND lower(c.contract_address) = lower(tr.collection_address)
      WHERE tr.chain_id = ${chainId} AND tr.block_number BETWEEN ${fromBlock} AND ${toBlock}
        AND tr.from_address <> '0x0000000000000000000000000000000000000000'
        AND EXISTS (SELECT 1 FROM webhook_subscriptions s WHERE s.enabled AND 'token.transferred' = ANY(s.events))
      ON CONFLICT DO NOTHING
      RETURNING id, owner_id)
    INSERT INTO webhook_deliveries (subscription_id, event_id)
    SELECT s.id, ev.id FROM ev, webhook_subscriptions s
    WHERE s.enabled AND 'token.transferred' = ANY(s.events) AND (s.owner_id IS NULL OR s.owner_id = ev.owner_id)
    ON CONFLICT DO NOTHING`);
}

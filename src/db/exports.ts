/**
 * Collection exports (docs/permanence.md): one row per requested bundle, `building` until the
 * process that took the request writes `ready` (root CID, CAR key) or `failed` (why); then, with
 * a pin target configured, its pin (`pin_status` pinning → pinned | failed). And the record of a
 * collection frozen on chain at a bundle, with its `collection.frozen` webhook event.
 */
import { and, desc, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { Db } from './client.ts';
import type { CollectionRow } from './collections.ts';
import { collectionExports, collections } from './schema/index.ts';
import { recordWebhookEvent } from './webhooks.ts';

export type ExportRow = typeof collectionExports.$inferSelect;

/** A new `building` export, or undefined when the collection already has one building (one per collection). */
export async function insertExport(
  db: Db,
  row: { collectionId: string; closedReason: string; requestedBy: string | null },
): Promise<ExportRow | undefined> {
  const [created] = await db
    .insert(collectionExports)
    .values({ collection_id: row.collectionId, closed_reason: row.closedReason, requested_by: row.requestedBy })
    .onConflictDoNothing()
    .returning();
  return created;
}

/** The collection's newest export, if any. */
export async function latestExport(db: Db, collectionId: string): Promise<ExportRow | undefined> {
  const [row] = await db
    .select()
    .from(collectionExports)
    .where(eq(collectionExports.collection_id, collectionId))
    .orderBy(desc(collectionExports.created_at), desc(collectionExports.id))
    .limit(1);
  return row;
}

export async function finishExport(
  db: Db,
  id: string,
  done: { rootCid: string; imagesCid: string; carKey: string; carBytes: number; tokenCount: number; pinTarget?: string },
): Promise<boolean> {
  const updated = await db
    .update(collectionExports)
    .set({
      status: 'ready',
      root_cid: done.rootCid,
      images_cid: done.imagesCid,
      car_key: done.carKey,
      car_bytes: done.carBytes,
      token_count: done.tokenCount,
      finished_at: sql`now()`,
      // With a pin target, the export is ready and its pin started in one write.
      ...(done.pinTarget
        ? { pin_status: 'pinning', pin_target: done.pinTarget, pin_started_at: sql`now()`, heartbeat_at: sql`now()` }
        : {}),
    })
    .where(and(eq(collectionExports.id, id), eq(collectionExports.status, 'building')))
    .returning({ id: collectionExports.id });
  return updated.length > 0;
}

export async function failExport(db: Db, id: string, error: string): Promise<void> {
  await db
    .update(collectionExports)
    .set({ status: 'failed', error: error.slice(0, 2000), finished_at: sql`now()` })
    .where(and(eq(collectionExports.id, id), eq(collectionExports.status, 'building')));
}

/** A ready export whose root or images directory is `cid` (the gateway's lookup). */
export async function readyExportByCid(db: Db, cid: string): Promise<ExportRow | undefined> {
  const [row] = await db
    .select()
    .from(collectionExports)
    .where(and(eq(collectionExports.status, 'ready'), or(eq(collectionExports.root_cid, cid), eq(collectionExports.images_cid, cid))))
    .orderBy(desc(collectionExports.created_at))
    .limit(1);
  return row;
}

/**
 * Claims a ready export for pinning in one conditional statement (docs/permanence.md "Pinning"):
 * from `none` or `failed`, or a `pinning` attempt whose heartbeat stopped before `staleBefore`
 * (its process died). Undefined when another request (any replica) holds it, or the export is not ready.
 */
export async function claimPin(db: Db, id: string, target: string, staleBefore: Date): Promise<ExportRow | undefined> {
  const [row] = await db
    .update(collectionExports)
    .set({
      pin_status: 'pinning',
      pin_target: target,
      pin_error: null,
      pin_started_at: sql`now()`,
      pinned_at: null,
      heartbeat_at: sql`now()`,
    })
    .where(
      and(
        eq(collectionExports.id, id),
        eq(collectionExports.status, 'ready'),
        or(
          inArray(collectionExports.pin_status, ['none', 'failed']),
          and(eq(collectionExports.pin_status, 'pinning'), lt(collectionExports.heartbeat_at, staleBefore)),
        ),
      ),
    )
    .returning();
  return row;
}

/** The end of a pin attempt: `pinned` (read back and checked) or `failed` with why. */
export async function finishPin(db: Db, id: string, outcome: { pinned: true } | { pinned: false; error: string }): Promise<void> {
  await db
    .update(collectionExports)
    .set(
      outcome.pinned
        ? { pin_status: 'pinned', pin_error: null, pinned_at: sql`now()` }
        : { pin_status: 'failed', pin_error: outcome.error.slice(0, 2000) },
    )
    .where(and(eq(collectionExports.id, id), eq(collectionExports.pin_status, 'pinning')));
}

/** The collection's newest ready export, if any (what freezing points the contract at). */
export async function latestReadyExport(db: Db, collectionId: string): Promise<ExportRow | undefined> {
  const [row] = await db
    .select()
    .from(collectionExports)
    .where(and(eq(collectionExports.collection_id, collectionId), eq(collectionExports.status, 'ready')))
    .orderBy(desc(collectionExports.finished_at), desc(collectionExports.id))
    .limit(1);
  return row;
}

/** What freezing writes back (docs/permanence.md "Freezing"). */
export interface FrozenWrite {
  collectionId: string;
  rootCid: string;
  baseUri: string;
  contractUri: string;
  /** The freezeMetadata() transaction when the platform sent it; null when the creator did. */
  txHash: string | null;
}

/**
 * Marks a collection frozen at a bundle, once: undefined when it already was (another request, a
 * replica). The `collection.frozen` webhook event commits with it (docs/webhooks.md "The outbox").
 */
export async function recordFrozen(db: Db, w: FrozenWrite): Promise<CollectionRow | undefined> {
  return db.transaction(async (t) => {
    const [row] = await t
      .update(collections)
      .set({ frozen_at: sql`now()`, frozen_root_cid: w.rootCid, frozen_tx_hash: w.txHash, updated_at: sql`now()` })
      .where(and(eq(collections.id, w.collectionId), isNull(collections.frozen_at)))
      .returning();
    if (row) {
      await recordWebhookEvent(t, {
        key: `collection.frozen:${row.id}:${row.chain_id}:${String(row.contract_address).toLowerCase()}`,
        type: 'collection.frozen',
        ownerId: row.user_id,
        payload: {
          collection_id: row.id,
          chain_id: row.chain_id,
          contract_address: row.contract_address,
          root_cid: w.rootCid,
          base_uri: w.baseUri,
          contract_uri: w.contractUri,
          tx_hash: w.txHash,
        },
      });
    }
    return row;
  });
}

/** Marks these exports as still worked on by this process (building, or pinning). */
export async function touchExports(db: Db, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.update(collectionExports).set({ heartbeat_at: sql`now()` }).where(inArray(collectionExports.id, ids));
}

/**
 * Takes over up to `limit` exports whose process stopped (docs/permanence.md "Crashes"): `building`
 * rows, and ready rows `pinning`, whose heartbeat is older than `staleMs`. One conditional
 * statement: of two processes asking at once, each row goes to one (its heartbeat is fresh for the
 * second). The caller builds or pins them again (both give the same bytes).
 */
export async function takeOverStaleExports(db: Db, staleMs: number, limit: number): Promise<ExportRow[]> {
  // The database's clock, as for leases: processes on skewed clocks agree on what is stale.
  const staleBefore = sql`now() - make_interval(secs => ${staleMs / 1000})`;
  const stale = db
    .select({ id: collectionExports.id })
    .from(collectionExports)
    .where(
      and(
        lt(collectionExports.heartbeat_at, staleBefore),
        or(
          eq(collectionExports.status, 'building'),
          and(eq(collectionExports.status, 'ready'), eq(collectionExports.pin_status, 'pinning')),
        ),
      ),
    )
    .limit(limit);
  return db
    .update(collectionExports)
    .set({ heartbeat_at: sql`now()` })
    .where(and(inArray(collectionExports.id, stale), lt(collectionExports.heartbeat_at, staleBefore)))
    .returning();
}

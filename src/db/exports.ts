/**
 * Collection exports (docs/permanence.md): one row per requested bundle, `building` until the
 * process that took the request writes `ready` (root CID, CAR key) or `failed` (why).
 */
import { and, desc, eq, or, sql } from 'drizzle-orm';
import type { Db } from './client.ts';
import { collectionExports } from './schema/index.ts';

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
  done: { rootCid: string; imagesCid: string; carKey: string; carBytes: number; tokenCount: number },
): Promise<void> {
  await db
    .update(collectionExports)
    .set({
      status: 'ready',
      root_cid: done.rootCid,
      images_cid: done.imagesCid,
      car_key: done.carKey,
      car_bytes: done.carBytes,
      token_count: done.tokenCount,
      finished_at: sql`now()`,
    })
    .where(and(eq(collectionExports.id, id), eq(collectionExports.status, 'building')));
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

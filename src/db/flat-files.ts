/** Flat files (content-service.md §2.3): one row per stored file that someone wants to refer to. */
import { eq } from 'drizzle-orm';
import type { Db } from './client.ts';
import { flatFiles } from './schema.ts';

export type FlatFileRow = typeof flatFiles.$inferSelect;

export interface NewFlatFile {
  /** The storage path (key), as /upload-base64 returns it. */
  url: string;
  mime_type: string;
  size: number;
  user_id: string | null;
  rel_type?: string;
}

export async function createFlatFile(db: Db, input: NewFlatFile): Promise<FlatFileRow> {
  const [row] = await db
    .insert(flatFiles)
    .values({
      url: input.url,
      mime_type: input.mime_type,
      size: input.size,
      user_id: input.user_id,
      rel_type: input.rel_type ?? 'upload',
    })
    .returning();
  return row!;
}

export async function findFlatFile(db: Db, id: number): Promise<FlatFileRow | null> {
  const [row] = await db.select().from(flatFiles).where(eq(flatFiles.id, id));
  return row ?? null;
}

export function presentFlatFile(row: FlatFileRow) {
  return {
    id: row.id,
    url: row.url,
    mime_type: row.mime_type,
    size: row.size,
    user_id: row.user_id,
    rel_type: row.rel_type,
    stream_asset_id: row.stream_asset_id,
    stream_playback_id: row.stream_playback_id,
    created_at: row.created_at.toISOString(),
  };
}

/** Flat files (docs/api/content.md §2.3): one row per stored file that someone wants to refer to. */
import { eq, inArray, sql } from 'drizzle-orm';
import type { Db } from './client.ts';
import { flatFiles } from './schema/index.ts';

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

/** The flat files with these ids (unknown ids are left out). */
export async function flatFilesByIds(db: Db, ids: readonly number[]): Promise<FlatFileRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(flatFiles)
    .where(inArray(flatFiles.id, [...ids]));
}

/**
 * The video provider's ids for a stored file (docs/video.md). `target` is the file's id, or an
 * output id (its flat file), or the provider's asset id already recorded. Returns the updated row,
 * or undefined when the target names no file.
 */
export async function setStreamIds(
  db: Db,
  target: { flatFileId?: number; outputId?: string; assetId?: string },
  ids: { assetId: string | null; playbackId: string | null | undefined },
): Promise<FlatFileRow | undefined> {
  const where =
    target.flatFileId !== undefined
      ? eq(flatFiles.id, target.flatFileId)
      : target.outputId !== undefined
        ? sql`${flatFiles.id} = (select flat_file_id from outputs where id = ${target.outputId}::uuid)`
        : target.assetId !== undefined
          ? eq(flatFiles.stream_asset_id, target.assetId)
          : undefined;
  if (!where) return undefined;
  const [row] = await db
    .update(flatFiles)
    .set({ stream_asset_id: ids.assetId, ...(ids.playbackId !== undefined ? { stream_playback_id: ids.playbackId } : {}) })
    .where(where)
    .returning();
  return row;
}

/** Flat files (content-service.md §2.3): one row per stored file that someone wants to refer to. */
import { inArray } from 'drizzle-orm';
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

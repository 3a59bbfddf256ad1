/**
 * Global collections (content-service.md §4.1 develop): collections marked `is_global` transform
 * outputs of other collections (for example image to video). Reads only; the collections table's
 * writes are src/db/collections.ts.
 */
import { and, asc, eq } from 'drizzle-orm';
import type { Db } from './client.ts';
import { collections } from './schema/index.ts';

export interface GlobalCollectionRow {
  id: string;
  title: string;
  description: string;
  input_type: string | null;
  output_type: string | null;
  cover_image_url: string | null;
}

/** Global collections, by title, optionally only those taking `inputType`. */
export function listGlobalCollections(db: Db, inputType?: string): Promise<GlobalCollectionRow[]> {
  return db
    .select({
      id: collections.id,
      title: collections.title,
      description: collections.description,
      input_type: collections.input_type,
      output_type: collections.output_type,
      cover_image_url: collections.cover_image_url,
    })
    .from(collections)
    .where(and(eq(collections.is_global, true), inputType ? eq(collections.input_type, inputType) : undefined))
    .orderBy(asc(collections.title));
}

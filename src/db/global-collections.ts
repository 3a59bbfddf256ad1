/**
 * Global collections (docs/api/content.md §4.1 develop): collections marked `is_global` transform
 * outputs of other collections (for example image to video). The list, the operator's mark, and
 * the built-in ones created on first start (docs/jobs.md "Develop").
 */
import { and, asc, eq, sql } from 'drizzle-orm';
import { notFound } from '../domain/errors.ts';
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

/** Marks a collection global (with what it takes and makes) or ordinary again. */
export async function setCollectionGlobal(
  db: Db,
  id: string,
  mark: { isGlobal: boolean; inputType: string | null; outputType: string | null },
): Promise<GlobalCollectionRow & { is_global: boolean }> {
  const [row] = await db
    .update(collections)
    .set({ is_global: mark.isGlobal, input_type: mark.inputType, output_type: mark.outputType, updated_at: sql`now()` })
    .where(eq(collections.id, id))
    .returning({
      id: collections.id,
      title: collections.title,
      description: collections.description,
      is_global: collections.is_global,
      input_type: collections.input_type,
      output_type: collections.output_type,
      cover_image_url: collections.cover_image_url,
    });
  if (!row) throw notFound(`collection ${id}`);
  return row;
}

/** One step whose picture is derived from ref_image_1 by the collection's workflow. */
const deriveData = (intent: string) => ({
  version: 'v2',
  steps: [{ id: 1, nodeName: 'develop', nodePayload: { intent, user_image: null, optional_ref_image: null, seed: null } }],
  generations: { hashes: [], generations: 0, use_custom_hashes: false },
  variables: [],
});

/**
 * The built-in global collections. Fixed ids make the seed idempotent across restarts and racing
 * replicas (insert … on conflict do nothing); a collection the operator edited is never overwritten.
 * `component.workflow` names the workflow their generations use (services/generation.ts).
 */
export const BUILTIN_GLOBAL_COLLECTIONS = [
  {
    id: '00000000-0000-4000-8000-00000000a001',
    title: 'Animate',
    description: 'Image → animation: a looping animated WebP made from the output by the built-in renderer.',
    input_type: 'image',
    output_type: 'image',
    workflow: 'animate',
    data: deriveData('animate the picture'),
  },
  {
    id: '00000000-0000-4000-8000-00000000a002',
    title: 'Variation',
    description: 'Image → image: a recoloured variation of the output by the built-in renderer.',
    input_type: 'image',
    output_type: 'image',
    workflow: 'image_variation',
    data: deriveData('a variation of the picture'),
  },
] as const;

/** Creates the built-in global collections that do not exist yet (platform-owned). */
export async function seedBuiltinGlobalCollections(db: Db, normalize: (data: unknown) => unknown): Promise<number> {
  let created = 0;
  for (const c of BUILTIN_GLOBAL_COLLECTIONS) {
    const rows = await db
      .insert(collections)
      .values({
        id: c.id,
        user_id: null,
        title: c.title,
        description: c.description,
        data: normalize(c.data),
        is_global: true,
        input_type: c.input_type,
        output_type: c.output_type,
        component: { type: 'global', workflow: c.workflow },
      })
      .onConflictDoNothing({ target: collections.id })
      .returning({ id: collections.id });
    created += rows.length;
  }
  return created;
}

/**
 * The wiring of the generation catalog (services/generation-catalog.ts): its reads bound to src/db,
 * one catalog per database. Apart from wire-content.ts so that generation.ts, which the content
 * wiring imports, can take it without a cycle.
 */
import type { Db } from '../db/client.ts';
import { collectionForGeneration } from '../db/collections.ts';
import { workflowForJob } from '../db/workflows.ts';
import { GenerationCatalog } from './generation-catalog.ts';

const catalogs = new WeakMap<Db, GenerationCatalog>();

/** The process's catalog for this database handle. */
export function catalogOn(db: Db): GenerationCatalog {
  let c = catalogs.get(db);
  if (!c) {
    c = new GenerationCatalog({ collection: (id) => collectionForGeneration(db, id), workflow: (w) => workflowForJob(db, w) });
    catalogs.set(db, c);
  }
  return c;
}

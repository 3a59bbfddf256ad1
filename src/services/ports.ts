/**
 * Ports: what a service needs from the outside, as interfaces it takes as parameters. The real
 * ones are db/ functions bound to one database (`bindDb`), chain/ actions bound to one process's
 * chain services, and the generation pipeline; unit tests pass small in-memory fakes.
 */
import type { Db } from '../db/client.ts';

// `any[]`: the widest parameter list a db function may have (each is checked where it is bound).
type DbFunction = (db: Db, ...args: any[]) => unknown;

/** Each function with its first parameter (the database) applied. */
export type BoundToDb<T extends Record<string, DbFunction>> = {
  [K in keyof T]: T[K] extends (db: Db, ...args: infer A) => infer R ? (...args: A) => R : never;
};

/** db/ query functions bound to one database: the real implementation of a store port. */
export function bindDb<T extends Record<string, DbFunction>>(db: Db, fns: T): BoundToDb<T> {
  const out: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(fns)) out[name] = (...args: unknown[]) => fn(db, ...args);
  return out as BoundToDb<T>;
}

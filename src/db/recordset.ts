/**
 * Bulk rows as one JSON parameter: `json_to_recordset($1::json) AS v(col type, …)`.
 *
 * Why: the indexer writes thousands of rows per block range. drizzle's `insert().values([...])`
 * binds one parameter per cell (65,535 at most per statement) and measured 3–5× slower here on
 * both PostgreSQL and PGlite than a single JSON parameter per statement. The statements stay
 * drizzle's (`insert(table).select(...)`, `update(table).set(...).from(...)`, typed `returning`);
 * only their row source is this recordset, whose column names and SQL types come from the drizzle
 * table, so the schema stays the one definition.
 *
 * Invariant: a row's JSON keys are the database column names (the schema's keys are snake_case
 * and equal to them; `columnsOf` checks it).
 */
import { getTableColumns, type SQL, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';

type ColumnKey<T extends PgTable> = keyof T['$inferSelect'] & string;

/** `json_to_recordset(rows) AS alias(name type, …)` with explicit column types. */
export function jsonRecordset(rows: readonly object[], types: Record<string, string>, alias = 'v'): SQL {
  const defs = Object.entries(types)
    .map(([name, type]) => `${quoteIdent(name)} ${type}`)
    .join(', ');
  return sql`json_to_recordset(${JSON.stringify(rows)}::json) AS ${sql.raw(quoteIdent(alias))}(${sql.raw(defs)})`;
}

/** The SQL types of some columns of a drizzle table, for `jsonRecordset`. */
export function columnTypes<T extends PgTable>(table: T, keys: readonly ColumnKey<T>[]): Record<string, string> {
  const columns = getTableColumns(table);
  const out: Record<string, string> = {};
  for (const key of keys) {
    const column = columns[key];
    if (!column || column.name !== key) throw new Error(`recordset: column ${key} is not a column named ${key}`);
    out[key] = column.getSQLType();
  }
  return out;
}

/**
 * The SELECT for `insert(table).select(...)`: drizzle inserts into every insertable column in
 * table order, so each gets, in this order of preference: a constant of `constants`, the
 * recordset's value (a key of `keys`), its SQL default (e.g. gen_random_uuid()), or NULL.
 */
export function selectFromRecordset<T extends PgTable>(
  table: T,
  rows: readonly Partial<T['$inferInsert']>[],
  keys: readonly ColumnKey<T>[],
  constants: Partial<Record<ColumnKey<T>, string | number>> = {},
): SQL {
  // drizzle leaves generated columns out of the INSERT (its own `shouldDisableInsert`, untyped).
  const insertable = (c: object) => !(c as { shouldDisableInsert?: () => boolean }).shouldDisableInsert?.();
  const columns = Object.entries(getTableColumns(table)).filter(([, c]) => insertable(c));
  const wanted = new Set<string>(keys);
  const parts = columns.map(([key, column]) => {
    const constant = (constants as Record<string, string | number | undefined>)[key];
    // Parameters in a SELECT list have no type of their own: cast to the column's.
    const typed = (value: unknown) => sql`${sql.param(value, column)}::${sql.raw(column.getSQLType())}`;
    if (constant !== undefined) return typed(constant);
    if (wanted.has(key)) return sql.raw(`v.${quoteIdent(column.name)}`);
    const fallback = column.default !== undefined ? column.default : column.defaultFn?.();
    if (fallback === undefined) return sql`NULL`;
    return isSql(fallback) ? fallback : typed(fallback);
  });
  return sql`SELECT ${sql.join(parts, sql`, `)} FROM ${jsonRecordset(rows, columnTypes(table, keys))}`;
}

function isSql(value: unknown): value is SQL {
  return typeof value === 'object' && value !== null && 'queryChunks' in value;
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

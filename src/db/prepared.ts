/**
 * Named (prepared) statements for the generation pipeline's hot path (docs/jobs.md
 * "Throughput"). drizzle's `execute` sends every statement unnamed, so PostgreSQL parses and plans
 * it again on every call; a named statement is parsed and planned once per pooled connection and
 * then only bound and run (measured here: a five-part CTE costs the server about half the CPU).
 * PGlite runs in this process: it gets the text and its parameters.
 *
 * A statement is a constant text with $n parameters under a unique name: node-postgres refuses a
 * name reused with another text, so two statements cannot silently share one.
 */
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { Db } from './client.ts';

export interface Statement {
  name: string;
  text: string;
}

type Client = pg.Pool | pg.Client | PGlite;

/** The driver's own client under the drizzle handle (node-postgres, or PGlite). */
function clientOf(db: Db): Client {
  return (db as unknown as { $client: Client }).$client;
}

/** Runs a named statement; its rows (column values as the driver parses them). */
export async function runStatement<T>(db: Db, s: Statement, values: unknown[]): Promise<T[]> {
  const client = clientOf(db);
  if (client instanceof pg.Pool || client instanceof pg.Client) {
    const r = await client.query({ name: s.name, text: s.text, values });
    return r.rows as T[];
  }
  const r = await (client as PGlite).query<T>(s.text, values);
  return r.rows;
}

/** The first row of a named statement, or undefined. */
export async function firstOf<T>(db: Db, s: Statement, values: unknown[]): Promise<T | undefined> {
  return (await runStatement<T>(db, s, values))[0];
}

/**
 * Builds a statement's text with numbered parameters: `p(value)` appends a value and returns its
 * placeholder. Callers that vary the text (variants) give each variant its own name.
 */
export function statementBuilder() {
  const values: unknown[] = [];
  return {
    values,
    p(value: unknown): string {
      values.push(value);
      return `$${values.length}`;
    },
  };
}

/** A statement written with `:name` parameters; `params` lists the names in $n order. */
export interface NamedStatement extends Statement {
  params: readonly string[];
}

/**
 * Turns `:name` parameters into `$n` once (casts such as `::jsonb` are left alone), so a long
 * statement reads by names and still runs as one named statement.
 */
export function namedStatement(name: string, text: string): NamedStatement {
  const params: string[] = [];
  const out = text.replace(/(?<![:\w]):([a-z_][a-z0-9_]*)/gi, (_, key: string) => {
    let i = params.indexOf(key);
    if (i < 0) i = params.push(key) - 1;
    return `$${i + 1}`;
  });
  return { name, text: out, params };
}

/** Runs a named statement with its parameters by name; a missing one is a bug, not a null. */
export function runNamed<T>(db: Db, s: NamedStatement, values: Record<string, unknown>): Promise<T[]> {
  return runStatement<T>(
    db,
    s,
    s.params.map((k) => {
      const v = values[k];
      if (v === undefined) throw new Error(`statement ${s.name}: parameter ${k} is missing`);
      return v;
    }),
  );
}

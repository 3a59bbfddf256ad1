/**
 * One database handle for both engines: node-postgres when DATABASE_URL is set, PGlite (embedded
 * PostgreSQL) in a data directory otherwise. Same schema, same migrations, same SQL.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import type { ExtractTablesWithRelations, SQLWrapper } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import * as schema from './schema/index.ts';
import { PrivateNodeFS } from './pglite-private-fs.ts';

export type Schema = typeof schema;
/** The database for both drivers: node-postgres and PGlite both are a PgDatabase over this schema. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
/** A transaction handle (what `db.transaction` passes to its callback). */
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Anything a query module can run on: the database or a transaction. */
export type Executor = Db | Tx;

/**
 * The rows of a raw SQL statement. Both drivers answer `execute` with an object holding `rows`
 * (pg's QueryResult, PGlite's Results), which drizzle types as `unknown` for the common base.
 */
export async function rows<T>(db: Executor, query: SQLWrapper): Promise<T[]> {
  const result = (await db.execute(query)) as { rows: T[] };
  return result.rows;
}

/** The first row of a raw SQL statement, or undefined. */
export async function firstRow<T>(db: Executor, query: SQLWrapper): Promise<T | undefined> {
  return (await rows<T>(db, query))[0];
}

/** Runs `fn` in a transaction (all of it or none of it). */
export function tx<T>(db: Db, fn: (t: Tx) => Promise<T>): Promise<T> {
  return db.transaction(fn);
}

export interface Database {
  db: Db;
  kind: 'postgres' | 'pglite';
  migrate(): Promise<void>;
  /** Checks the connection; used by /readyz. */
  ping(): Promise<void>;
  /**
   * LISTEN on a notification channel (NOTIFY, delivered at commit, from any process on this
   * database). The callback gets each payload; `onReconnect` is called after the listening
   * connection was lost and restored, when notifications may have been missed.
   */
  listen(channel: string, onPayload: (payload: string) => void, onReconnect?: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

export interface DatabaseOptions {
  /** postgres:// URL; when absent PGlite is used. */
  url?: string;
  /** PGlite data directory; absent means in memory. */
  dataDir?: string;
  poolSize?: number;
}

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  if (opts.url) {
    const pool = new pg.Pool({ connectionString: opts.url, max: opts.poolSize ?? 20 });
    // An idle client that errors (server restart) must not crash the process.
    pool.on('error', () => {});
    const db: Db = drizzlePg(pool, { schema });
    return {
      db,
      kind: 'postgres',
      migrate: () => migratePg(drizzlePg(pool), { migrationsFolder: MIGRATIONS_DIR }),
      ping: async () => {
        await pool.query('select 1');
      },
      listen: (channel, onPayload, onReconnect) => listenPg(opts.url!, channel, onPayload, onReconnect),
      close: () => pool.end(),
    };
  }
  if (opts.dataDir) fs.mkdirSync(opts.dataDir, { recursive: true });
  // On a data directory, through a file system whose chmods stay owner-only (db/pglite-private-fs.ts).
  const client = opts.dataDir ? new PGlite({ fs: new PrivateNodeFS(opts.dataDir) }) : new PGlite();
  await client.waitReady;
  const db: Db = drizzlePglite(client, { schema });
  return {
    db,
    kind: 'pglite',
    migrate: () => migratePglite(drizzlePglite(client), { migrationsFolder: MIGRATIONS_DIR }),
    ping: async () => {
      await client.query('select 1');
    },
    // PGlite is this process's own database: its notifications never cross a connection.
    listen: async (channel, onPayload) => {
      const stop = await client.listen(channel, onPayload);
      return () => stop();
    },
    close: () => client.close(),
  };
}

/** Quotes a channel name for LISTEN (an identifier, not a parameter). */
const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * A dedicated connection holding LISTEN (a pooled one would be handed to other queries). When it
 * drops, it reconnects with a growing delay and tells the caller, who re-reads what it may have missed.
 */
async function listenPg(
  url: string,
  channel: string,
  onPayload: (payload: string) => void,
  onReconnect?: () => void,
): Promise<() => Promise<void>> {
  let client: pg.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  let failures = 0;
  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: url });
    c.on('notification', (msg) => {
      if (msg.channel === channel) onPayload(msg.payload ?? '');
    });
    c.on('error', () => reconnect(c));
    c.on('end', () => reconnect(c));
    await c.connect();
    await c.query(`LISTEN ${quoteIdent(channel)}`);
    client = c;
    failures = 0;
  };
  const reconnect = (dead: pg.Client) => {
    if (stopped || client !== dead) return;
    client = undefined;
    dead.end().catch(() => undefined);
    const attempt = () => {
      if (stopped) return;
      connect().then(
        () => onReconnect?.(),
        () => {
          failures += 1;
          retry = setTimeout(attempt, Math.min(10_000, 100 * 2 ** failures));
        },
      );
    };
    retry = setTimeout(attempt, 100);
  };
  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    const c = client;
    client = undefined;
    await c?.end().catch(() => undefined);
  };
}

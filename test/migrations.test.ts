/** The committed migrations apply on PGlite and on PostgreSQL and yield the same tables. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { openDatabase, type Database } from '../src/db/client.ts';

const SERVER = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function columns(database: Database): Promise<string[]> {
  const { sql } = await import('drizzle-orm');
  const res = await database.db.execute(
    sql`select table_name, column_name, data_type from information_schema.columns where table_schema = 'public' order by table_name, column_name`,
  );
  const rows = (res as unknown as { rows: Array<Record<string, string>> }).rows;
  return rows.map((r) => `${r.table_name}.${r.column_name}:${r.data_type}`);
}

async function serverReachable(): Promise<boolean> {
  const c = new pg.Client({ connectionString: SERVER, connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    return false;
  }
}

test('migrations: PGlite and PostgreSQL end with the same schema; a second run is a no-op', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-mig-'));
  const lite = await openDatabase({ dataDir: dir });
  await lite.migrate();
  await lite.migrate();
  const liteColumns = await columns(lite);
  await lite.close();
  fs.rmSync(dir, { recursive: true, force: true });
  assert.ok(liteColumns.length > 100);
  for (const table of ['collections', 'decks', 'outputs', 'jobs', 'job_steps', 'job_history', 'transfers', 'payments']) {
    assert.ok(
      liteColumns.some((c) => c.startsWith(`${table}.`)),
      `table ${table}`,
    );
  }

  if (!(await serverReachable())) {
    // CI always has the server (.ci/run starts it); a laptop without PostgreSQL skips this half.
    t.skip(`no PostgreSQL at ${SERVER}`);
    return;
  }
  const name = `atelier_mig_${process.pid}`;
  const admin = new pg.Client({ connectionString: SERVER });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  try {
    const url = new URL(SERVER);
    url.pathname = `/${name}`;
    const server = await openDatabase({ url: url.toString() });
    await server.migrate();
    await server.migrate();
    const serverColumns = await columns(server);
    await server.close();
    assert.deepEqual(serverColumns, liteColumns);
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
});

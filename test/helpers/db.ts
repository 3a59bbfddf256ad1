/**
 * A fresh, migrated database per test file. With DATABASE_URL: a throwaway database on that
 * PostgreSQL server, dropped at close. Without: PGlite, copied from a migrated template directory
 * (a new PGlite costs seconds of initdb; reopening a copy costs a fraction of that).
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { MIGRATIONS_DIR, openDatabase, type Database } from '../../src/db/client.ts';

export interface TestDatabase extends Database {
  /** postgres:// URL of the throwaway database, when on PostgreSQL. */
  url?: string;
}

function migrationsHash(): string {
  const h = createHash('sha256');
  for (const f of fs.readdirSync(MIGRATIONS_DIR, { recursive: true }).map(String).sort()) {
    const p = path.join(MIGRATIONS_DIR, f);
    if (fs.statSync(p).isFile()) h.update(f).update(fs.readFileSync(p));
  }
  return h.digest('hex').slice(0, 16);
}

async function pgliteTemplate(): Promise<string> {
  const dir = path.join(os.tmpdir(), `atelier-pglite-template-${migrationsHash()}`);
  if (fs.existsSync(path.join(dir, 'PG_VERSION'))) return dir;
  const staging = `${dir}.${process.pid}.${randomBytes(4).toString('hex')}`;
  const db = await openDatabase({ dataDir: staging });
  await db.migrate();
  await db.close();
  try {
    fs.renameSync(staging, dir);
  } catch {
    fs.rmSync(staging, { recursive: true, force: true }); // another process won the race
  }
  return dir;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl) {
    const name = `atelier_t_${process.pid}_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    const database = await openDatabase({ url: url.toString() });
    await database.migrate();
    return {
      ...database,
      url: url.toString(),
      async close() {
        await database.close();
        const c = new pg.Client({ connectionString: serverUrl });
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await c.end();
      },
    };
  }
  const template = await pgliteTemplate();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-pglite-'));
  fs.cpSync(template, dir, { recursive: true });
  const database = await openDatabase({ dataDir: dir });
  await database.migrate(); // no-op on the template; keeps the code path honest
  return {
    ...database,
    async close() {
      await database.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

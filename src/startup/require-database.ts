/**
 * PostgreSQL at start-up: one query before the migrations, so an unreachable server stops the
 * start with its address and cause (`PostgreSQL 10.0.0.5:5432 unreachable (ECONNREFUSED): …`)
 * rather than drizzle's `Failed query: CREATE SCHEMA …` (docs/operations.md "Dependency failures
 * in the log"). The URL's credentials are never printed.
 */
import type { Database } from '../db/client.ts';
import { DependencyUnavailableError, endpointOf } from '../logging/dependency-outage.ts';

export async function requireDatabase(database: Database, url: string | undefined): Promise<Database> {
  if (!url) return database;
  try {
    await database.ping();
    return database;
  } catch (err) {
    await database.close().catch(() => undefined);
    throw new DependencyUnavailableError('PostgreSQL', err, endpointOf(url));
  }
}

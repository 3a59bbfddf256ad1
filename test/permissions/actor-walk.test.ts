/**
 * Who may do what, walked (docs/permissions.md): every operation of both
 * OpenAPI documents, for each actor — the operator (service key), the owner of the records the
 * request names, another signed-in user, and an anonymous caller — gets the status the table in
 * policy-table.ts expects. The route list comes from /openapi.json, so a route without an entry
 * fails. One platform (real anvil, database and apps), every request through app.inject().
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { defaultParam, injector, makeFixtures, type Fixtures } from './fixtures.ts';
import { TABLE, type ActorName, type Entry } from './policy-table.ts';
import { startWalkPlatform, type WalkPlatform } from '../helpers/inject-platform.ts';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
// Refusals first: a record an allowed actor changes is not the one a refused actor is asked about.
const ACTORS: ActorName[] = ['anonymous', 'other', 'owner', 'operator'];

interface Operation {
  app: 'backend' | 'admin';
  method: string;
  path: string;
  operationId: string;
  /** The document marks it public (`security: []`). */
  public: boolean;
}

let p: WalkPlatform;
let f: Fixtures;
before(async () => {
  p = await startWalkPlatform();
  f = await makeFixtures(p);
});
after(() => p?.close());

/** The operations of an app's /openapi.json, as a client reads it. */
async function operations(app: 'backend' | 'admin'): Promise<Operation[]> {
  const res = await p[app].inject({ method: 'GET', url: '/openapi.json' });
  assert.equal(res.statusCode, 200);
  const doc = res.json() as { paths: Record<string, Record<string, { operationId?: string; security?: unknown[] }>> };
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([m]) => METHODS.includes(m))
      .map(([method, op]) => ({
        app,
        method: method.toUpperCase(),
        path,
        operationId: op.operationId ?? `${method} ${path}`,
        public: Array.isArray(op.security) && op.security.length === 0,
      })),
  );
}

async function ask(op: Operation, entry: Entry, actor: ActorName) {
  const params = { ...(entry.params?.(f) ?? {}), ...((await entry.fresh?.(f)) ?? {}) };
  const url = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURI(params[name] ?? defaultParam(f, op.path, name)));
  const query = entry.query ? `?${new URLSearchParams(entry.query(f))}` : '';
  const headers = { ...f.headers[actor], ...(actor === 'operator' && entry.operatorNamesUser ? { user_id: f.operatorUserId } : {}) };
  const body = entry.body?.(f);
  return injector(p, op.app)(op.method, url + query, headers, body);
}

for (const app of ['backend', 'admin'] as const) {
  test(`${app}: every operation has a policy entry and answers each actor as the table says`, { timeout: 300_000 }, async () => {
    const ops = await operations(app);
    assert.ok(ops.length > 15, `operations found: ${ops.length}`);
    const missing = ops.filter((o) => !TABLE[o.operationId]).map((o) => `${o.operationId} (${o.method} ${o.path})`);
    assert.deepEqual(missing, [], 'operations without an entry in test/permissions/policy-table.ts');
    const wrong: string[] = [];
    for (const op of ops) {
      const entry = TABLE[op.operationId]!;
      // What /docs shows (a lock or none) agrees with the table.
      if (op.public !== (entry.documentedPublic ?? entry.expect.anonymous !== 401))
        wrong.push(`${op.operationId}: documented public=${op.public}`);
      for (const actor of ACTORS) {
        const r = await ask(op, entry, actor);
        const want = entry.expect[actor];
        const okay = want === 'ok' ? (r.status >= 200 && r.status < 300) || (entry.alsoOk ?? []).includes(r.status) : r.status === want;
        if (!okay) {
          const error = typeof r.body === 'object' && r.body ? (r.body.error ?? r.body.message) : String(r.body).slice(0, 80);
          wrong.push(`${op.operationId} ${actor}: want ${want}, got ${r.status} ${JSON.stringify(error)}`);
        }
      }
    }
    assert.deepEqual(wrong, []);
  });
}

test('the table has no entry for an operation that no longer exists', async () => {
  const known = new Set([...(await operations('backend')), ...(await operations('admin'))].map((o) => o.operationId));
  assert.deepEqual(
    Object.keys(TABLE).filter((id) => !known.has(id)),
    [],
  );
});

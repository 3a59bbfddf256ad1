/**
 * Bad input never gets a 500. Every route of both OpenAPI documents is called with malformed path
 * parameters, unknown ids, empty, wrongly typed and malformed JSON bodies, and junk query values;
 * each answer must be a 4xx (or a 503 naming a dependency this test platform leaves unconfigured,
 * such as the chain or the job queue), in the app's error shape.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { asService, call, startTestPlatform, type TestPlatform } from './helpers/platform.ts';

let p: TestPlatform;
before(async () => {
  p = await startTestPlatform();
});
after(() => p.close());

const UNKNOWN_UUID = '00000000-0000-4000-8000-000000000000';

type Operation = { method: string; path: string; query: string[] };

async function operations(baseUrl: string): Promise<Operation[]> {
  const doc = (await call(`${baseUrl}/openapi.json`)).body as {
    paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string }> }>>;
  };
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      ops.push({ method: method.toUpperCase(), path, query: (op.parameters ?? []).filter((x) => x.in === 'query').map((x) => x.name) });
    }
  }
  return ops;
}

const fill = (path: string, value: string) => path.replace(/\{[^}]+\}/g, value).replace(/\*$/, value);

function inputs(op: Operation): Array<{ url: string; raw?: string; body?: unknown }> {
  const paths = /\{|\*$/.test(op.path)
    ? [fill(op.path, 'not-a-uuid'), fill(op.path, UNKNOWN_UUID), fill(op.path, '..%2F..%2Fetc%2Fpasswd')]
    : [op.path];
  const junkQuery = op.query.map((q) => `${q}=%00%ff-1e309`).join('&');
  const out: Array<{ url: string; raw?: string; body?: unknown }> = [];
  for (const path of paths) {
    if (op.method === 'GET' || op.method === 'DELETE') {
      out.push({ url: path }, { url: `${path}?${junkQuery}` });
    } else {
      out.push(
        { url: path, body: {} },
        { url: path, raw: '{"unterminated": ' },
        { url: path, body: [1, 2, 3] },
        { url: path, body: { collectionId: 5, title: [], data: 'x', count: -1, variables: 'no', recipient: 'nope', chainId: 'x' } },
      );
    }
  }
  return out;
}

for (const app of ['backend', 'admin'] as const) {
  test(`${app}: no route answers 500 to bad input`, async () => {
    const base = app === 'backend' ? p.backendUrl : p.adminUrl;
    const ops = await operations(base);
    assert.ok(ops.length > (app === 'backend' ? 60 : 15), `only ${ops.length} operations documented`);
    const failures: string[] = [];
    for (const op of ops) {
      for (const input of inputs(op)) {
        const res = await call(`${base}${input.url}`, {
          method: op.method,
          headers: asService({ user_id: 'robustness-user' }),
          ...(input.raw !== undefined ? { raw: input.raw } : input.body !== undefined ? { body: input.body } : {}),
        });
        const desc = `${op.method} ${input.url} ${input.raw ?? JSON.stringify(input.body ?? '')} → ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`;
        if (res.status >= 500 && res.status !== 503) failures.push(desc);
        else if (res.status >= 400) {
          const body = res.body as Record<string, unknown> | string;
          const message = typeof body === 'object' && body ? body.error : undefined;
          if (typeof message !== 'string' || message.length === 0) failures.push(`no error message: ${desc}`);
        }
      }
    }
    assert.deepEqual(failures, []);
  });
}

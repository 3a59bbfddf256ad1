/**
 * Every operation of both OpenAPI documents is documented: a summary, a description, an
 * operationId (unique in its document), and a response schema for its success status. Public
 * routes (metadata, feed documents, health) carry no security requirement, so /docs shows them
 * without a lock.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { call, startTestPlatform, type TestPlatform } from './helpers/platform.ts';

let p: TestPlatform;
before(async () => {
  p = await startTestPlatform();
});
after(() => p.close());

type Op = {
  summary?: string;
  description?: string;
  operationId?: string;
  security?: unknown[];
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
};

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

for (const app of ['backend', 'admin'] as const) {
  test(`${app}: every operation has a summary, a description, an operationId and a 2xx response schema`, async () => {
    const base = app === 'backend' ? p.backendUrl : p.adminUrl;
    const doc = (await call(`${base}/openapi.json`)).body as { paths: Record<string, Record<string, Op>> };
    const missing: string[] = [];
    const ids = new Map<string, string>();
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        if (!METHODS.includes(method)) continue;
        const name = `${method.toUpperCase()} ${path}`;
        if (!op.summary?.trim()) missing.push(`${name}: summary`);
        if (!op.description?.trim()) missing.push(`${name}: description`);
        if (!op.operationId) missing.push(`${name}: operationId`);
        else if (ids.has(op.operationId)) missing.push(`${name}: operationId ${op.operationId} also used by ${ids.get(op.operationId)}`);
        else ids.set(op.operationId, name);
        const success = Object.entries(op.responses ?? {}).filter(([code]) => /^2\d\d$/.test(code));
        const documented = success.some(([, r]) => Object.values(r.content ?? {}).some((c) => c.schema !== undefined));
        // A stream (SSE) or a file documents its content type without a JSON schema.
        const streamed = success.some(([, r]) => Object.keys(r.content ?? {}).some((t) => !t.includes('json')));
        if (!documented && !streamed) missing.push(`${name}: 2xx response schema`);
      }
    }
    // Every tag an operation uses has a description (the section headings of /docs).
    const described = new Map(
      ((doc as { tags?: Array<{ name: string; description?: string }> }).tags ?? []).map((t) => [t.name, t.description]),
    );
    for (const [path, methods] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(methods))
        for (const tag of (op as { tags?: string[] }).tags ?? [])
          if (!described.get(tag)?.trim()) missing.push(`${method.toUpperCase()} ${path}: tag ${tag} has no description`);
    assert.deepEqual([...new Set(missing)], []);
  });
}

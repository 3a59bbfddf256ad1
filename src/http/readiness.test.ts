import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runReadiness } from './readiness.ts';

test('every dependency is named with its state; one failing makes the whole not ready', async () => {
  const report = await runReadiness({
    database: async () => undefined,
    queue: async () => {
      throw new Error('connect ECONNREFUSED 127.0.0.1:6379\n    at stack line');
    },
  });
  assert.deepEqual(report, { status: 'not ready', checks: { database: 'ok', queue: 'connect ECONNREFUSED 127.0.0.1:6379' } });
});

test('a check that never answers is cut off and named', async () => {
  const report = await runReadiness({ chain: () => new Promise(() => undefined) }, 50);
  assert.equal(report.status, 'not ready');
  assert.equal(report.checks.chain, 'no answer within 50 ms');
});

test('credentials in a URL never reach the report', async () => {
  const report = await runReadiness({
    database: async () => {
      throw new Error('cannot reach postgres://user:secret@db.internal:5432/app');
    },
  });
  assert.doesNotMatch(report.checks.database!, /secret/);
});

test('all ok is ready', async () => {
  assert.deepEqual(await runReadiness({ database: async () => 1 }), { status: 'ready', checks: { database: 'ok' } });
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JobRow } from '../db/jobs.ts';
import { AppError } from '../domain/errors.ts';
import type { Caller } from '../domain/policy.ts';
import type { JobEvent } from '../generation/job-events.ts';
import { createJobService, flatFileIdsOf, type JobPorts } from './jobs.ts';

const alice: Caller = { kind: 'user', userId: 'alice' };
const bob: Caller = { kind: 'user', userId: 'bob' };
const operator: Caller = { kind: 'service', userId: null };

function fakes(opts: { applied?: boolean } = {}) {
  const jobs = new Map<string, JobRow>([
    [
      'j-alice',
      { id: 'j-alice', user_id: 'alice', status: 'processing', output_id: 'o-1', data: { outputs: [{ flat_file_id: 4 }] } } as JobRow,
    ],
    ['j-platform', { id: 'j-platform', user_id: null, status: 'failed', output_id: null, data: {} } as JobRow],
  ]);
  const events: Array<[string, JobEvent]> = [];
  const outputs: string[] = [];
  const ports: JobPorts = {
    jobs: {
      find: async (id) => jobs.get(id) ?? null,
      historyAfter: async () => [],
      streamSnapshot: async (cursors) => ({ jobs: cursors.flatMap((c) => jobs.get(c.jobId) ?? []), history: [] }),
      steps: async () => [],
      retryBackups: async () => [],
    },
    flatFiles: { byIds: async (ids) => ids.map((id) => ({ id }) as never) },
    apply: async (jobId, event) => {
      events.push([jobId, event]);
      return { applied: opts.applied ?? true };
    },
    outputs: {
      complete: async (id, url) => void outputs.push(`complete ${id} ${url}`),
      fail: async (id, message) => void outputs.push(`fail ${id} ${message}`),
    },
    credits: { balance: async () => 5, costPerGeneration: 1 },
  };
  return { service: createJobService(ports), events, outputs };
}

const kind = (k: string) => (e: unknown) => e instanceof AppError && e.kind === k;

test('a job is seen by its owner and the operator; anyone else, and a platform job for users, is 404', async () => {
  const { service } = fakes();
  assert.equal((await service.get(alice, 'j-alice')).id, 'j-alice');
  assert.equal((await service.get(operator, 'j-platform')).id, 'j-platform');
  await assert.rejects(service.get(bob, 'j-alice'), kind('not_found'));
  await assert.rejects(service.get(alice, 'j-platform'), kind('not_found'));
  await assert.rejects(service.get(operator, 'nope'), kind('not_found'));
});

test('the failsafes are the operator’s: the job’s own user gets 403 and nothing is applied', async () => {
  const { service, events, outputs } = fakes();
  await assert.rejects(service.forceComplete(alice, 'j-alice', { workflowOutput: 'u' }), kind('forbidden'));
  await assert.rejects(service.forceFail(alice, 'j-alice', {}), kind('forbidden'));
  await assert.rejects(service.forceFail(bob, 'j-alice', {}), kind('not_found'), 'not even its existence leaks');
  assert.deepEqual(events, []);
  assert.deepEqual(outputs, []);
});

test('failsafe complete: the open output completes with the URL, then the complete event (failsafe)', async () => {
  const { service, events, outputs } = fakes();
  await service.forceComplete(operator, 'j-alice', { workflowOutput: 'https://cdn/x.png', metadata: { a: 1 } });
  assert.deepEqual(outputs, ['complete o-1 https://cdn/x.png']);
  assert.deepEqual(events, [
    ['j-alice', { type: 'complete', workflowOutput: 'https://cdn/x.png', metadata: { a: 1 }, source: 'failsafe' }],
  ]);
});

test('failsafe fail: a forced error with a default message; the output fails only when the event applied', async () => {
  const applied = fakes();
  await applied.service.forceFail(operator, 'j-alice', { details: { why: 'x' } });
  assert.deepEqual(applied.events, [
    ['j-alice', { type: 'error', message: 'job failed (reported by failsafe)', details: { why: 'x' }, force: true, source: 'failsafe' }],
  ]);
  assert.deepEqual(applied.outputs, ['fail o-1 job failed (reported by failsafe)']);
  const already = fakes({ applied: false });
  await already.service.forceFail(operator, 'j-alice', { message: 'late' });
  assert.deepEqual(already.outputs, []);
});

test('forensics reads the flat files its recorded outputs name', async () => {
  const { service } = fakes();
  const f = await service.forensics(alice, 'j-alice');
  assert.deepEqual(
    f.flatFiles.map((x) => x.id),
    [4],
  );
  assert.deepEqual(flatFileIdsOf({ outputs: [{ flat_file_id: 1 }, { flat_file_id: 1 }, { flat_file_id: 'x' }, null] }), [1]);
  assert.deepEqual(flatFileIdsOf(null), []);
});

test('credits are the caller’s; a service call naming nobody is 401', async () => {
  const { service } = fakes();
  assert.deepEqual(await service.credits(alice), { user_id: 'alice', balance: 5, cost_per_generation: 1 });
  await assert.rejects(service.credits(operator), kind('unauthorized'));
});

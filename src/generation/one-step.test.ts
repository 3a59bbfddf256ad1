import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JobRow, JobStepRow } from '../db/jobs.ts';
import { attemptTimes, oneStepId, oneStepRow, stepsOf } from './one-step.ts';
import { buildStepPayload } from './pipeline.ts';

const step = (nodeName: string) => ({
  id: 0,
  nodeName,
  nodePayload: { intent: `draw ${nodeName}`, user_image: null, optional_ref_image: null, seed: null },
});
const data = (steps: unknown[]) => ({
  collectionId: 'c',
  variables: { color: 'red' },
  requestedVariables: {},
  traits: [],
  seed: 7,
  steps,
  referenceImages: [],
  workflow: { id: 'w', name: 'procedural', type: 'basic', models: [], custom_nodes: [] },
  deckId: 'd',
  outputId: 'o',
  source: 'direct_api',
});
const t0 = new Date('2030-01-01T00:00:00Z');
const t1 = new Date('2030-01-01T00:00:05Z');
const job = (over: Partial<JobRow> = {}): JobRow =>
  ({
    id: 'job-1',
    status: 'completed',
    retry_count: 0,
    data: data([step('image')]),
    error_message: null,
    output_id: 'o',
    priority: 60,
    step_output: { key: 'k.png', url: 'http://x/k.png', mime_type: 'image/png', size: 3, connector: 'procedural' },
    started_at: t0,
    completed_at: t1,
    created_at: t0,
    updated_at: t1,
    ...over,
  }) as JobRow;

describe('one-step jobs: the job is its step', () => {
  test('the step shows the queued payload, the job’s state and times, and the kept output', () => {
    const row = oneStepRow(job())!;
    assert.deepEqual(row.input_data, buildStepPayload({ id: 'job-1', output_id: 'o', data: job().data, priority: 60 }, 0, 0));
    assert.deepEqual(
      [row.step_name, row.step_type, row.step_order, row.status, row.retry_attempt, row.queue_job_id],
      ['image', 'basic', 0, 'completed', 0, 'job-1-s0-r0'],
    );
    assert.deepEqual(row.output_data, job().step_output);
    assert.deepEqual([row.started_at, row.completed_at, row.created_at, row.updated_at], [t0, t1, t0, t1]);
    assert.equal(row.error_message, null);
  });

  test('a failed attempt shows the error; the id is a uuid, the same on every read, and differs per attempt', () => {
    const row = oneStepRow(job({ status: 'failed', error_message: 'boom', completed_at: null, step_output: null, retry_count: 2 }))!;
    assert.deepEqual([row.status, row.error_message, row.completed_at, row.output_data], ['failed', 'boom', null, null]);
    assert.equal(row.queue_job_id, 'job-1-s0-r2');
    assert.match(row.id, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(row.id, oneStepId('job-1', 2));
    assert.notEqual(oneStepId('job-1', 1), oneStepId('job-1', 2));
  });

  test('a job of several steps has rows: nothing is made up for it', () => {
    assert.equal(oneStepRow(job({ data: data([step('image'), step('refine')]) })), null);
    assert.deepEqual(stepsOf(job({ data: data([step('image'), step('refine')]) }), []), []);
  });

  test('the steps read adds the current attempt’s step only when no row holds it', () => {
    const earlier = { ...oneStepRow(job({ status: 'failed', retry_count: 0 }))!, id: 'row-0' } as JobStepRow;
    const current = job({ retry_count: 1 });
    const steps = stepsOf(current, [earlier]);
    assert.deepEqual(
      steps.map((s) => [s.id, s.retry_attempt, s.status]),
      [
        ['row-0', 0, 'failed'],
        [oneStepId('job-1', 1), 1, 'completed'],
      ],
    );
    // A row of the current attempt (a reconciler re-queued the step under another id) is shown as it is.
    const own = { ...earlier, id: 'row-1', retry_attempt: 1, status: 'processing' } as JobStepRow;
    assert.deepEqual(stepsOf(current, [earlier, own]), [earlier, own]);
  });
  test("a later attempt's step has its attempt's times (from the history), not the job's first ones", () => {
    const at = (s: number) => new Date(t0.getTime() + s * 1000);
    const history = [
      { data: { event: 'node_started', step_order: 0, retry_attempt: 0 }, created_at: at(1) },
      { data: { event: 'error', source: 'worker' }, created_at: at(2) },
      { data: { event: 'retry', retry_attempt: 1 }, created_at: at(3) },
      { data: { event: 'node_started', step_order: 0, retry_attempt: 1 }, created_at: at(5) },
      { data: { event: 'node_started', step_order: 0, retry_attempt: 1 }, created_at: at(9) },
      { data: { event: 'retry', retry_attempt: 2 }, created_at: at(11) },
    ];
    assert.deepEqual(attemptTimes(history, 1), { created_at: at(3), started_at: at(5) });
    assert.deepEqual(attemptTimes(history, 2), { created_at: at(11), started_at: null });
    const failed = job({ status: 'failed', retry_count: 1, started_at: at(1), completed_at: null, step_output: null });
    const row = oneStepRow(failed, history)!;
    assert.deepEqual([row.created_at, row.started_at], [at(3), at(5)]);
    const pending = oneStepRow(job({ status: 'pending', retry_count: 2, started_at: at(1), completed_at: null }), history)!;
    assert.deepEqual([pending.created_at, pending.started_at], [at(11), null], 'not started yet');
    // The first attempt: the job's own times (a history without its entry, too).
    assert.deepEqual([oneStepRow(job(), [])!.created_at, oneStepRow(job(), [])!.started_at], [t0, t0]);
    assert.deepEqual(stepsOf(failed, [], history)[0]!.started_at, at(5));
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../domain/errors.ts';
import {
  buildJobData,
  buildStepPayload,
  loadGenerationData,
  queueJobId,
  queueOptions,
  STEP_ATTEMPTS,
  withDefaultStep,
  type JobWorkflow,
} from './pipeline.ts';

const workflow: JobWorkflow = { id: 'wf-1', name: 'procedural', type: 'basic', models: ['m.safetensors'], custom_nodes: ['node-a'] };

const collection = (data: unknown, title = 'Neon Cats') => ({ id: 'c0ffee00-0000-4000-8000-000000000001', title, data });

const twoSteps = {
  version: 'v2',
  steps: [
    { id: 1, nodeName: 'image', nodePayload: { intent: 'a $color cat', width: 512, height: 256 } },
    { id: 2, nodeName: 'upscale', nodePayload: { intent: 'upscale the $color cat', seed: 7 } },
  ],
  variables: [{ name: 'color', is_feature: true, feature_name: 'Color', value: [{ value: 'red', display_name: 'Crimson' }] }],
};

const jobData = (data: unknown, over: Partial<Parameters<typeof buildJobData>[0]> = {}) =>
  buildJobData({
    collection: collection(data),
    workflow,
    requestedVariables: {},
    seed: 1234,
    socialPfp: null,
    deckId: 'deck-1',
    outputId: 'out-1',
    source: 'direct_api',
    ...over,
  });

function assertCorrupted(fn: () => unknown, detail?: RegExp) {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof AppError);
    assert.equal(e.kind, 'invalid');
    assert.equal(e.message, 'COLLECTION_CORRUPTED');
    assert.equal(e.extra?.code, 'COLLECTION_CORRUPTED');
    assert.equal(typeof e.extra?.userMessage, 'string');
    if (detail) assert.match(String(e.extra?.message), detail);
    return true;
  });
}

describe('job data', () => {
  test('variables are resolved once and steps substituted; traits come from feature variables', () => {
    const d = jobData(twoSteps, { requestedVariables: { color: 'red' } });
    assert.equal(d.variables.color, 'red');
    assert.deepEqual(d.traits, [{ trait_type: 'Color', value: 'Crimson' }]);
    assert.equal(d.steps[0]!.nodePayload.intent, 'a red cat');
    assert.equal(d.steps[1]!.nodePayload.intent, 'upscale the red cat');
    assert.equal(d.seed, 1234);
    assert.deepEqual(d.requestedVariables, { color: 'red' });
    assert.deepEqual(d.workflow, workflow);
    assert.equal(d.mintState, undefined);
  });

  test('a collection without steps generates one image from its title and its non-image variables', () => {
    const d = withDefaultStep(
      loadGenerationData('c', { version: 'v2', variables: [{ name: 'mood', value: [{ value: 'calm' }] }] }),
      'Moody',
    );
    assert.equal(d.steps.length, 1);
    assert.equal(d.steps[0]!.nodePayload.intent, 'Moody, $mood');
    const data = jobData({ version: 'v2', variables: [{ name: 'mood', value: [{ value: 'calm' }] }] });
    assert.equal(data.steps[0]!.nodePayload.intent, 'Neon Cats, calm');
  });

  test('data that does not parse is COLLECTION_CORRUPTED naming where', () => {
    assertCorrupted(() => jobData({ version: 'v1' }), /version/);
    assertCorrupted(() => jobData('not an object'));
  });

  test('a stored problem (unknown image reference) is corruption; a request problem names the body field', () => {
    const broken = { version: 'v2', steps: [{ id: 1, nodeName: 'image', nodePayload: { intent: 'x', user_image: '$nope' } }] };
    assertCorrupted(() => jobData(broken), /nope/);
    const pinned = { version: 'v2', variables: [{ name: 'hat', value: [{ value: 'cap' }] }] };
    assert.throws(
      () => jobData(pinned, { requestedVariables: { hat: 'crown' } }),
      (e: unknown) => e instanceof AppError && e.kind === 'invalid' && /^body\.variables\.hat: /.test(e.message),
    );
  });
});

describe('step payload', () => {
  const data = jobData(twoSteps);
  const job = { id: 'job-1', output_id: 'out-1', data, priority: 70 };

  test('carries the step, the resolved values, requirements and the workflow context', () => {
    const p = buildStepPayload(job, 0, 2);
    assert.equal(p.jobId, 'job-1');
    assert.equal(p.outputId, 'out-1');
    assert.equal(p.stepOrder, 0);
    assert.equal(p.totalSteps, 2);
    assert.equal(p.retryAttempt, 2);
    assert.equal(p.attempts, STEP_ATTEMPTS);
    assert.equal(p.type, 'basic');
    assert.equal(p.payload.nodeName, 'image');
    assert.equal(p.payload.prompt, `a ${data.variables.color} cat`);
    assert.deepEqual(p.payload.values, data.variables);
    assert.equal(p.payload.width, 512);
    assert.equal(p.payload.height, 256);
    assert.deepEqual(p.requirements, { models: ['m.safetensors'], custom_nodes: ['node-a'] });
    assert.deepEqual(p.workflow_context, {
      workflow_id: 'wf-1',
      workflow_name: 'procedural',
      workflow_priority: 70,
      total_steps: 2,
      current_step: 0,
    });
  });

  test("a step's own seed wins over the job's derived one; size only when the step sets it", () => {
    const second = buildStepPayload(job, 1, 0);
    assert.equal(second.payload.seed, 7);
    assert.equal('width' in second.payload, false);
    assert.equal('height' in second.payload, false);
    assert.equal(buildStepPayload(job, 0, 0).payload.seed, data.steps[0]!.nodePayload.seed ?? data.seed);
  });

  test('the payload depends only on the job: built twice it is the same (a re-run is identical)', () => {
    assert.deepEqual(buildStepPayload(job, 1, 1), buildStepPayload(structuredClone(job), 1, 1));
  });

  test('a step the job does not have is refused', () => {
    assert.throws(() => buildStepPayload(job, 2, 0), /no step 2/);
  });

  test('queue ids name job, step and attempt; options carry priority, tries and backoff', () => {
    assert.equal(queueJobId('job-1', 1, 3), 'job-1-s1-r3');
    assert.notEqual(queueJobId('job-1', 0, 0), queueJobId('job-1', 0, 1));
    assert.deepEqual(queueOptions(buildStepPayload(job, 0, 0)), { priority: 70, attempts: STEP_ATTEMPTS, backoffMs: 1000 });
  });
});

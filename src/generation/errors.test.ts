import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../domain/errors.ts';
import { GeneratorError } from './connectors/types.ts';
import { errorMessage, isRetryable, stepFailureAction, workflowTestFailure } from './errors.ts';

const transient = new GeneratorError('upstream 503', { retryable: true, status: 503 });
const permanent = new GeneratorError('invalid workflow', { retryable: false, status: 400 });

test('generator errors say whether a retry may help; unexpected errors are retried', () => {
  assert.equal(isRetryable(transient), true);
  assert.equal(isRetryable(permanent), false);
  assert.equal(isRetryable(new TypeError('socket hang up')), true);
  assert.equal(isRetryable('a thrown string'), true);
});

test('a step retries while the error is retryable and tries remain, else the job fails', () => {
  assert.equal(stepFailureAction(transient, 1, 3), 'retry');
  assert.equal(stepFailureAction(transient, 2, 3), 'retry');
  assert.equal(stepFailureAction(transient, 3, 3), 'fail', 'the last try fails the job');
  assert.equal(stepFailureAction(permanent, 1, 3), 'fail', 'a non-retryable error fails at once');
  assert.equal(stepFailureAction(new Error('boom'), 1, 1), 'fail');
});

test('a workflow test failure: 502 when the generator may recover, 400 when the request cannot work', () => {
  const up = workflowTestFailure(transient, 'comfy');
  assert.ok(up instanceof AppError);
  assert.equal(up.kind, 'upstream');
  assert.equal(up.message, 'workflow comfy failed: upstream 503');
  const bad = workflowTestFailure(permanent, 'comfy');
  assert.ok(bad instanceof AppError);
  assert.equal(bad.kind, 'invalid');
  const other = new Error('disk full');
  assert.equal(workflowTestFailure(other, 'comfy'), other, 'other errors pass through unchanged');
});

test('error messages: an Error gives its message, anything else its string', () => {
  assert.equal(errorMessage(new Error('m')), 'm');
  assert.equal(errorMessage(42), '42');
});

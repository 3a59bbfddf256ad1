/**
 * How generator failures are classified (docs/generation.md, docs/jobs.md): a `GeneratorError`
 * says whether another attempt may succeed (timeouts, connection errors, 5xx, 429, aborts) or
 * not (4xx, invalid workflow, execution errors); anything else is unexpected and may pass on a
 * retry. Pure.
 */
import { AppError } from '../domain/errors.ts';
import { storableText } from '../domain/text.ts';
import { GeneratorError } from './connectors/types.ts';

/** Whether another try of the same step may succeed. */
export function isRetryable(err: unknown): boolean {
  return !(err instanceof GeneratorError) || err.retryable;
}

/**
 * What the worker does with a failed try: `retry` (throw, so the queue tries again with backoff)
 * while the error is retryable and tries remain; `fail` the job otherwise.
 */
export function stepFailureAction(err: unknown, attempt: number, attempts: number): 'retry' | 'fail' {
  return isRetryable(err) && attempt < attempts ? 'retry' : 'fail';
}

/** An error's message, storable (the worker writes it to the job, its history and the output). */
export const errorMessage = (err: unknown) => storableText(err instanceof Error ? err.message : String(err));

/** A workflow test's failure as the API answers it: 502 when the generator may recover, 400 when the request cannot work. */
export function workflowTestFailure(err: unknown, workflowName: string): unknown {
  if (!(err instanceof GeneratorError)) return err;
  return new AppError(err.retryable ? 'upstream' : 'invalid', `workflow ${workflowName} failed: ${err.message}`);
}

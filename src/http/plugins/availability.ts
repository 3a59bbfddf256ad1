/**
 * Availability decided once per route plugin: a plugin whose routes need an optional dependency
 * (the chain, the job queue, storage) declares it here, and every route of that plugin answers
 * 503 with the reason while the dependency is absent. Handlers then never check it themselves.
 */
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../domain/errors.ts';

/**
 * Hooks the plugin scope `app` (call it inside `app.register`): before its handlers run (after
 * authentication, which the root hooks do first), `present()` false → 503 `message`.
 */
export function requires(app: FastifyInstance, present: () => boolean, message: string): void {
  app.addHook('preHandler', async () => {
    if (!present()) throw new AppError('unavailable', message);
  });
}

/** The dependency itself, or a 503: for a value a handler needs and a plugin scope could not check. */
export function available<T>(value: T | undefined | null, message: string): T {
  if (value === undefined || value === null) throw new AppError('unavailable', message);
  return value;
}

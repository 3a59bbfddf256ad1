/**
 * Errors that are part of the API. Lower layers throw these; the HTTP layer maps `kind` to a
 * status code, so a client's mistake is never a 500.
 */
export type AppErrorKind =
  | 'invalid' // 400
  | 'unauthorized' // 401
  | 'payment_required' // 402
  | 'forbidden' // 403
  | 'not_found' // 404
  | 'conflict' // 409
  | 'rate_limited' // 429 (an upstream's limit, passed on by the admin proxy)
  | 'unavailable' // 503
  | 'upstream'; // 502

export class AppError extends Error {
  constructor(
    readonly kind: AppErrorKind,
    message: string,
    /** Extra fields merged into the error body (e.g. code, userMessage, details). */
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

/** A refusal for too many requests, with the seconds the client should wait (Retry-After). */
export class RateLimited extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    extra?: Record<string, unknown>,
  ) {
    super('rate_limited', message, extra);
  }
}

export const invalid = (message: string, extra?: Record<string, unknown>) => new AppError('invalid', message, extra);
export const notFound = (what: string) => new AppError('not_found', `${what} not found`);
export const conflict = (message: string, extra?: Record<string, unknown>) => new AppError('conflict', message, extra);
export const unauthorized = (message = 'authentication required') => new AppError('unauthorized', message);
export const forbidden = (message: string) => new AppError('forbidden', message);

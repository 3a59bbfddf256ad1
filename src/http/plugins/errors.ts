/**
 * One error handler for both apps. The backend answers `{data: null, error}`; the admin proxy
 * answers `{success: false, error}`. Client mistakes get their 4xx with a message naming the
 * field; anything unexpected is a 500 whose body says nothing about internals.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { ZodError } from 'zod';
import { AppError, RateLimited, type AppErrorKind } from '../../domain/errors.ts';

export type ErrorStyle = 'envelope' | 'success';

/** The HTTP status of each AppError kind. */
export const STATUS_OF_KIND: Record<AppErrorKind, number> = {
  invalid: 400,
  unauthorized: 401,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  rate_limited: 429,
  upstream: 502,
  unavailable: 503,
};

const PLACE: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

function fieldPath(context: string | undefined, instancePath: string | undefined): string {
  const place = PLACE[context ?? 'body'] ?? context ?? 'body';
  const field = (instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  return field ? `${place}.${field}` : place;
}

/** "body.title: Invalid input: expected string, received number" */
export function validationMessage(error: FastifyError): string {
  const first = error.validation?.[0];
  if (!first) return error.message;
  return `${fieldPath(error.validationContext, first.instancePath)}: ${first.message}`;
}

export function zodMessage(error: ZodError, prefix = 'body'): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid input';
  const field = issue.path.map(String).join('.');
  return `${field ? `${prefix}.${field}` : prefix}: ${issue.message}`;
}

/** The part of a dependency's error a client may read: its first line, without URLs. */
export function clientSafe(message: string): string {
  const first = message
    .split('\n')[0]!
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"]+/gi, '<url>')
    .trim();
  return first || 'a dependency failed';
}

export function sendError(reply: FastifyReply, style: ErrorStyle, status: number, message: string, extra?: Record<string, unknown>) {
  const body =
    style === 'envelope' ? { data: null, error: message, ...(extra ?? {}) } : { success: false, error: message, ...(extra ?? {}) };
  return reply.code(status).type('application/json; charset=utf-8').send(body);
}

export function installErrorHandling(app: FastifyInstance, style: ErrorStyle) {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (hasZodFastifySchemaValidationErrors(error)) {
      return sendError(reply, style, 400, validationMessage(error));
    }
    if (error instanceof AppError) {
      const status = STATUS_OF_KIND[error.kind];
      if (error instanceof RateLimited) reply.header('retry-after', String(error.retryAfterSeconds));
      if (status < 500) return sendError(reply, style, status, error.message, error.extra);
      // A dependency's failure: the full text (an RPC library's includes the node's URL, which in
      // production carries the provider's key, and the request body) goes to the log only.
      request.log.warn({ err: error }, 'dependency error');
      return sendError(reply, style, status, clientSafe(error.message), error.extra);
    }
    if (error instanceof ZodError) {
      return sendError(reply, style, 400, zodMessage(error));
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      // Fastify's own client errors: malformed JSON, body too large, wrong content type.
      return sendError(reply, style, status, error.message);
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendError(reply, style, 500, 'internal server error');
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, style, 404, `route ${request.method} ${request.url.split('?')[0]} not found`),
  );
}

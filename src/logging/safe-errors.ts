/**
 * Errors as logs may show them. A failed database query's message carries its parameters
 * (drizzle: "Failed query: … params: …", and PostgreSQL's `detail` repeats the values of a
 * violated key): API key hashes, emails, wallets. The logs keep the statement, the SQLSTATE and
 * the constraint, never the values.
 */
import { stdSerializers } from 'pino';

const PARAMS = /\nparams:[\s\S]*$/;

/** The message without the query parameters drizzle appends. */
export function withoutParams(message: string): string {
  return message.replace(PARAMS, '\nparams: [redacted]');
}

type Serialized = Record<string, unknown> & { message?: unknown; stack?: unknown; cause?: unknown };

function scrub(e: Serialized, depth: number): Serialized {
  const out: Serialized = { ...e };
  if (typeof out.message === 'string') out.message = withoutParams(out.message);
  if (typeof out.stack === 'string') out.stack = withoutParams(out.stack);
  // PostgreSQL error fields that quote row values.
  for (const key of ['detail', 'where', 'params', 'parameters']) if (key in out) out[key] = '[redacted]';
  if (out.cause && typeof out.cause === 'object' && depth < 5) out.cause = scrub(out.cause as Serialized, depth + 1);
  return out;
}

export type SerializedError = { [key: string]: unknown; type: string; message: string; stack: string };

/** pino `err` serializer: the standard one (causes as objects), then scrubbed. */
export function safeErrorSerializer(err: Error): SerializedError {
  if (!(err instanceof Error)) return err;
  return scrub(stdSerializers.errWithCause(err) as unknown as Serialized, 0) as SerializedError;
}

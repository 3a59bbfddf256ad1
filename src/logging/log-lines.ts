/**
 * What every process's log lines share, so one grep follows a mint or a job across processes: one timestamp format (ISO 8601 UTC, "time"),
 * secrets redacted, failed queries without their parameters, and the trace of the span a line is
 * written in. The HTTP apps (plugins/shell.ts), the worker and the indexer all log through pino
 * with these options, so their lines read and sort alike.
 */
import { type Logger, type LoggerOptions, stdTimeFunctions } from 'pino';
import { traceLogFields } from '../telemetry.ts';
import { safeErrorSerializer } from './safe-errors.ts';

export function logOptions(level: string, name?: string): LoggerOptions {
  return {
    ...(name ? { name } : {}),
    level,
    timestamp: stdTimeFunctions.isoTime,
    // Secrets never reach the logs.
    redact: ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie', 'req.headers["x-atelier-forwarded-by"]'],
    // Failed queries are logged without their parameters.
    serializers: { err: safeErrorSerializer },
    // Log correlation: a line written inside a span carries its trace_id and span_id.
    mixin: traceLogFields,
  };
}

/** A worker's `log` port on a pino logger (warn unless the line says otherwise). */
export const workerLog =
  (logger: Pick<Logger, 'info' | 'warn'>) =>
  (msg: string, extra?: Record<string, unknown>, level: 'info' | 'warn' = 'warn') =>
    logger[level](extra ?? {}, msg);

/**
 * Dependency failures in the log (docs/operations.md "Dependency failures in the log"): an outage
 * of PostgreSQL, Redis or an RPC node is logged once when it starts, with its cause (host, port,
 * error code), and once when it ends, with how long it lasted; not once per retry.
 */

/** What a failure says about its cause: the first error in its cause chain with a code or address. */
export interface FailureCause {
  code?: string;
  host?: string;
  port?: number;
  message: string;
}

/** Walks `cause` chains and AggregateErrors (Node's happy-eyeballs connect errors) for the socket error. */
export function causeOf(err: unknown): FailureCause {
  const seen = new Set<unknown>();
  const queue: unknown[] = [err];
  let first: FailureCause | undefined;
  while (queue.length > 0) {
    const e = queue.shift();
    if (!e || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    const x = e as {
      code?: unknown;
      address?: unknown;
      hostname?: unknown;
      port?: unknown;
      message?: unknown;
      cause?: unknown;
      errors?: unknown;
    };
    const found: FailureCause = {
      ...(typeof x.code === 'string' ? { code: x.code } : {}),
      ...(typeof x.address === 'string' ? { host: x.address } : typeof x.hostname === 'string' ? { host: x.hostname } : {}),
      ...(typeof x.port === 'number' ? { port: x.port } : {}),
      message: typeof x.message === 'string' ? x.message : String(e),
    };
    first ??= found;
    if (found.code && (found.host || found.port)) return found;
    if (found.code && !first.code) first = found;
    if (x.cause) queue.push(x.cause);
    if (Array.isArray(x.errors)) queue.push(...x.errors);
  }
  return first ?? { message: String(err) };
}

/** host and port of a URL, never its credentials or path (DATABASE_URL carries a password). */
export function endpointOf(url: string | undefined): { host?: string; port?: number } {
  if (!url) return {};
  try {
    const u = new URL(url);
    const defaults: Record<string, number> = {
      'postgres:': 5432,
      'postgresql:': 5432,
      'redis:': 6379,
      'rediss:': 6379,
      'http:': 80,
      'https:': 443,
    };
    return { host: u.hostname, port: u.port ? Number(u.port) : defaults[u.protocol] };
  } catch {
    return {};
  }
}

/** One line: `PostgreSQL 127.0.0.1:5432 unreachable (ECONNREFUSED): connect ECONNREFUSED …`. */
export function describeFailure(dependency: string, err: unknown, endpoint: { host?: string; port?: number } = {}): string {
  const c = causeOf(err);
  const host = c.host ?? endpoint.host;
  const port = c.port ?? endpoint.port;
  const where = host ? ` ${host}${port ? `:${port}` : ''}` : '';
  return `${dependency}${where} unreachable${c.code ? ` (${c.code})` : ''}: ${c.message}`;
}

export type OutageLog = (level: 'warn' | 'info', msg: string, fields: Record<string, unknown>) => void;

/**
 * Tracks one dependency's state: `failed(err)` logs the outage's start once (with its cause),
 * `recovered()` logs its end once (with its duration); repeats in between log nothing.
 */
export function trackOutage(dependency: string, endpoint: { host?: string; port?: number }, log: OutageLog) {
  let since: number | undefined;
  return {
    get down() {
      return since !== undefined;
    },
    failed(err: unknown) {
      if (since !== undefined) return;
      since = Date.now();
      const c = causeOf(err);
      log('warn', `dependency down: ${describeFailure(dependency, err, endpoint)}`, {
        dependency,
        host: c.host ?? endpoint.host,
        port: c.port ?? endpoint.port,
        code: c.code,
        outage: 'start',
      });
    },
    recovered() {
      if (since === undefined) return;
      const ms = Date.now() - since;
      since = undefined;
      log(
        'info',
        `dependency back: ${dependency}${endpoint.host ? ` ${endpoint.host}:${endpoint.port}` : ''} reachable again after ${ms} ms`,
        {
          dependency,
          host: endpoint.host,
          port: endpoint.port,
          outage: 'end',
          duration_ms: ms,
        },
      );
    },
  };
}

/** The default sink of processes without a logger at hand: one JSON line on stderr, pino's shape. */
export const stderrOutageLog: OutageLog = (level, msg, fields) => {
  process.stderr.write(`${JSON.stringify({ level: level === 'warn' ? 40 : 30, time: Date.now(), msg, ...fields })}\n`);
};

/** A dependency a process cannot start without, unreachable: the message names it, its address and the cause. */
export class DependencyUnavailableError extends Error {
  constructor(dependency: string, err: unknown, endpoint: { host?: string; port?: number }) {
    super(describeFailure(dependency, err, endpoint), { cause: err });
    this.name = 'DependencyUnavailableError';
  }
}

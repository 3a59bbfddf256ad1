/**
 * Recognising database errors, for both drivers. node-postgres throws a DatabaseError with the
 * SQLSTATE in `code`; PGlite does the same; drizzle wraps either in a DrizzleQueryError whose
 * `cause` is the original. So every check walks the cause chain.
 */

interface PgErrorLike {
  code?: unknown;
  constraint?: unknown;
  message?: unknown;
  cause?: unknown;
}

/** The error and its causes, outermost first (bounded: a cyclic chain must not hang). */
function causes(err: unknown): PgErrorLike[] {
  const out: PgErrorLike[] = [];
  let e: unknown = err;
  for (let i = 0; e && typeof e === 'object' && i < 8; i++) {
    out.push(e as PgErrorLike);
    e = (e as PgErrorLike).cause;
  }
  return out;
}

/** The first cause with a SQLSTATE: PostgreSQL's own error (not drizzle's "Failed query" with the parameters). */
const databaseCause = (err: unknown) => causes(err).find((c) => typeof c.code === 'string' && /^[0-9A-Z]{5}$/.test(c.code));

/** SQLSTATE of the first cause that has one. */
export function sqlState(err: unknown): string | undefined {
  return databaseCause(err)?.code as string | undefined;
}

/** PostgreSQL's message of the error (without the query and its parameters), when it has one. */
export function sqlMessage(err: unknown): string | undefined {
  const m = databaseCause(err)?.message;
  return typeof m === 'string' ? m : undefined;
}

/**
 * True when the error is a unique-constraint violation (23505), optionally of one constraint
 * (matched by name, which PostgreSQL also puts in the message).
 */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  return causes(err).some(
    (c) =>
      c.code === '23505' &&
      (constraint === undefined || c.constraint === constraint || (typeof c.message === 'string' && c.message.includes(constraint))),
  );
}

/**
 * True when PostgreSQL refused a value (SQLSTATE class 22, data exception): a jsonb with the
 * escape of NUL (22P05) or of an unpaired surrogate (22P02), a NUL in text (22021), a number out
 * of range (22003), a string too long (22001). The same statement fails again with the same
 * values, unlike a lost connection or a lock timeout.
 */
export function isDataException(err: unknown): boolean {
  return sqlState(err)?.startsWith('22') ?? false;
}

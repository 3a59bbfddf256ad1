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

/** SQLSTATE of the first cause that has one. */
export function sqlState(err: unknown): string | undefined {
  const hit = causes(err).find((c) => typeof c.code === 'string' && /^[0-9A-Z]{5}$/.test(c.code));
  return hit?.code as string | undefined;
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

/**
 * Text that a PostgreSQL text column takes: without NUL characters, which it refuses. Texts from
 * outside services may carry some (a node's rendering of a custom error's zero arguments, a
 * generator's error message); an insert or update with one fails, and the row it should have
 * changed stays as it was (a transaction left `queued`, a job left open).
 */
export const storableText = (text: string) => text.replace(/\u0000/g, '');

/** Id shapes shared by every layer (pure). */

/** Any UUID (lenient: no version or variant check, so existing ids of every kind pass). */
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Opaque feed cursors (docs/api/content.md §4.7 rule 3): a keyset position encoded as base64url
 * JSON. Clients must not build them; a cursor that does not decode to the expected shape is a 400.
 */
import { invalid } from './errors.ts';

export function encodeCursor(position: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
}

export function decodeCursor<K extends string>(
  cursor: string,
  keys: Record<K, 'string' | 'number'>,
  field = 'query.after',
): Record<K, string | number> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid(`${field}: not a cursor returned by this API`);
  }
  if (!parsed || typeof parsed !== 'object') throw invalid(`${field}: not a cursor returned by this API`);
  const out = {} as Record<K, string | number>;
  for (const [key, type] of Object.entries(keys) as Array<[K, 'string' | 'number']>) {
    const value = (parsed as Record<string, unknown>)[key];
    if (typeof value !== type || (type === 'number' && !Number.isFinite(value))) {
      throw invalid(`${field}: not a cursor returned by this API`);
    }
    out[key] = value as string | number;
  }
  return out;
}

export interface Cursor {
  next: string | null;
  has_more: boolean;
}

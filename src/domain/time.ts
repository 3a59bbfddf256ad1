/** Timestamps as the API shows them: ISO 8601 strings (both drivers give Date or text). */
export function iso(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

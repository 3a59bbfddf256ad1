/**
 * File storage (DESIGN.md: local directory by default, S3-compatible object storage in
 * production). Keys are relative, slash-separated paths such as
 * `user-uploads/user-id/<user>/<uuid>.png`; every implementation refuses a key that could
 * escape its root (see `assertValidKey`).
 */
export interface StoredObject {
  bytes: Buffer;
  contentType: string;
}

export interface Storage {
  readonly kind: 'local' | 's3';
  /** Writes the object (replacing any object at that key). */
  put(key: string, bytes: Buffer, contentType: string): Promise<{ key: string; url: string }>;
  /**
   * Writes an object at a key nobody has written, once (the generation worker's per-run keys):
   * no temporary copy, since no reader knows the key before this returns. Fails when the key exists.
   */
  putNew(key: string, bytes: Buffer, contentType: string): Promise<{ key: string; url: string }>;
  /** The object, or null when there is none at that key. */
  get(key: string): Promise<StoredObject | null>;
  /** Removes the object; no error when it is absent. */
  delete(key: string): Promise<void>;
  /** The URL a browser fetches the object from. */
  publicUrl(key: string): string;
  /**
   * The key when `url` points into this storage (a public URL of ours, or a bare key such as
   * the `url` that /upload-base64 returns), else null. Says nothing about whether it exists.
   */
  keyFromUrl(url: string): string | null;
}

export class InvalidKeyError extends Error {
  constructor(key: string, reason: string) {
    super(`invalid storage key ${JSON.stringify(key.slice(0, 200))}: ${reason}`);
    this.name = 'InvalidKeyError';
  }
}

const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._:-]*$/;
export const MAX_KEY_LENGTH = 1024;

/** The key's own rule, for every implementation: relative, no `.`/`..`, plain characters only. */
export function keyProblem(key: string): string | null {
  if (typeof key !== 'string' || key.length === 0) return 'empty';
  if (key.length > MAX_KEY_LENGTH) return `longer than ${MAX_KEY_LENGTH} characters`;
  if (key.startsWith('/')) return 'absolute paths are not keys';
  if (key.includes('\\')) return 'backslashes are not allowed';
  for (const segment of key.split('/')) {
    if (segment === '') return 'empty path segment';
    if (segment === '.' || segment === '..') return 'dot segments are not allowed';
    if (!SEGMENT.test(segment)) return `segment ${JSON.stringify(segment.slice(0, 50))} has characters outside A-Z a-z 0-9 . _ : -`;
  }
  return null;
}

export function isValidKey(key: string): boolean {
  return keyProblem(key) === null;
}

export function assertValidKey(key: string): string {
  const problem = keyProblem(key);
  if (problem) throw new InvalidKeyError(key, problem);
  return key;
}

/** Shared by both implementations: `<base>/<key>` → key, or a bare valid key → key. */
export function keyFromUrlWithBase(url: string, base: string): string | null {
  const prefix = base.endsWith('/') ? base : `${base}/`;
  let candidate: string;
  if (url.startsWith(prefix)) {
    candidate = url.slice(prefix.length).split(/[?#]/)[0]!;
    try {
      candidate = decodeURIComponent(candidate);
    } catch {
      return null;
    }
  } else if (/^[a-z][a-z0-9+.-]*:/i.test(url)) {
    return null; // someone else's URL
  } else {
    candidate = url;
  }
  return isValidKey(candidate) ? candidate : null;
}

/** Encodes each segment for use in a URL path (keys are plain already; this is belt and braces). */
export function encodeKey(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/');
}

/**
 * Reference images (ref_image_1..5, social_pfp) arrive as storage paths or URLs; renderers that
 * draw them need the bytes. Our own storage is read directly. An outside URL goes through the one
 * guarded fetcher (src/net/guarded-fetch.ts): every connection's resolved address is checked at
 * connect time, every redirect hop again, with a timeout and the upload size cap; a variable value
 * must not make the worker call into our network. A reference that cannot be loaded keeps its URL
 * only: the renderer draws a placeholder tile and the job goes on.
 */
import { guardedFetch, type Resolver } from '../net/guarded-fetch.ts';
import type { Storage } from '../storage/types.ts';
import { isValidKey } from '../storage/types.ts';
import { sniffImageType, type ReferenceImageInput } from './connectors/index.ts';

export const MAX_REFERENCE_BYTES = 10 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 10_000;

/** How outside references are fetched: configured exempt origins, and name resolution for tests. */
export interface ReferenceFetchOptions {
  allowOrigins?: readonly string[];
  resolve?: Resolver;
}

async function fetchOutside(url: string, opts: ReferenceFetchOptions): Promise<Buffer | null> {
  const res = await guardedFetch(url, {
    timeoutMs: FETCH_TIMEOUT_MS,
    maxBytes: MAX_REFERENCE_BYTES,
    ...(opts.allowOrigins ? { allowOrigins: opts.allowOrigins } : {}),
    ...(opts.resolve ? { resolve: opts.resolve } : {}),
  });
  return res.status >= 200 && res.status < 300 ? res.body : null;
}

export async function loadReferenceImage(
  storage: Storage | undefined,
  ref: { name: string; url: string },
  opts: ReferenceFetchOptions = {},
): Promise<ReferenceImageInput> {
  try {
    const key = storage ? (storage.keyFromUrl(ref.url) ?? (isValidKey(ref.url) ? ref.url : null)) : null;
    let bytes: Buffer | null = null;
    if (key && storage) bytes = (await storage.get(key))?.bytes ?? null;
    else if (/^https?:\/\//i.test(ref.url)) bytes = await fetchOutside(ref.url, opts);
    // Only images are drawn; anything else stays a placeholder.
    if (bytes && sniffImageType(bytes).startsWith('image/')) return { name: ref.name, url: ref.url, bytes };
  } catch {
    // refused (internal address), unreachable, too slow, too large or malformed: the placeholder tile stands in
  }
  return { name: ref.name, url: ref.url };
}

export function loadReferenceImages(
  storage: Storage | undefined,
  refs: Array<{ name: string; url: string }>,
  opts: ReferenceFetchOptions = {},
) {
  return Promise.all(refs.map((r) => loadReferenceImage(storage, r, opts)));
}

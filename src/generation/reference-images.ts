/**
 * Reference images (ref_image_1..5, social_pfp) arrive as storage paths or URLs; renderers that
 * draw them need the bytes. Our own storage is read directly. An outside URL is fetched only over
 * http(s) to a host that is not loopback, private or link-local (a variable value must not make
 * the worker call into our network), with a timeout and the upload size cap. A reference that
 * cannot be loaded keeps its URL only: the renderer draws a placeholder tile and the job goes on.
 */
import { isIP } from 'node:net';
import type { Storage } from '../storage/types.ts';
import { isValidKey } from '../storage/types.ts';
import { sniffImageType, type ReferenceImageInput } from './connectors/index.ts';

export const MAX_REFERENCE_BYTES = 10 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 10_000;

/** Loopback, private, link-local, unique-local and unspecified addresses, and `localhost`. */
export function isInternalHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.internal')) return true;
  const kind = isIP(host);
  if (kind === 4) {
    const [a, b] = host.split('.').map(Number) as [number, number];
    return (
      a === 10 ||
      a === 127 ||
      a === 0 ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 100 && b >= 64 && b <= 127)
    );
  }
  if (kind === 6) return host === '::' || host === '::1' || /^f[cd]/.test(host) || /^fe[89ab]/.test(host) || host.startsWith('::ffff:');
  return false;
}

async function fetchOutside(url: URL): Promise<Buffer | null> {
  if (!['http:', 'https:'].includes(url.protocol) || isInternalHost(url.hostname)) return null;
  const res = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  if (!res.ok || !res.body) return null;
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (declared > MAX_REFERENCE_BYTES) return null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > MAX_REFERENCE_BYTES) return null;
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

export async function loadReferenceImage(storage: Storage | undefined, ref: { name: string; url: string }): Promise<ReferenceImageInput> {
  try {
    const key = storage ? (storage.keyFromUrl(ref.url) ?? (isValidKey(ref.url) ? ref.url : null)) : null;
    let bytes: Buffer | null = null;
    if (key && storage) bytes = (await storage.get(key))?.bytes ?? null;
    else if (/^https?:\/\//i.test(ref.url)) bytes = await fetchOutside(new URL(ref.url));
    // Only images are drawn; anything else stays a placeholder.
    if (bytes && sniffImageType(bytes).startsWith('image/')) return { name: ref.name, url: ref.url, bytes };
  } catch {
    // unreachable, too slow or malformed: the placeholder tile stands in
  }
  return { name: ref.name, url: ref.url };
}

export function loadReferenceImages(storage: Storage | undefined, refs: Array<{ name: string; url: string }>) {
  return Promise.all(refs.map((r) => loadReferenceImage(storage, r)));
}

/**
 * Server-side metadata fetch for GET /api/nft/metadata (nft-service.md §4.1.3): the admin proxy
 * resolves tokenURI/contractURI itself so that URIs a browser cannot reach (the local backend,
 * the dev metadata host) still resolve. Limits: http(s) and data: URIs only, 5 s, 1 MiB, JSON.
 */

export interface MetadataFetchOptions {
  /** URI prefixes served by our own backend, rewritten to an address this process can reach. */
  rewrites?: Array<{ from: string; to: string }>;
  timeoutMs?: number;
  maxBytes?: number;
  /** Extra request headers for rewritten (own backend) URIs. */
  ownHeaders?: Record<string, string>;
}

export type MetadataResult = { ok: true; metadata: unknown; fetchedFrom: string } | { ok: false; error: string };

export const METADATA_TIMEOUT_MS = 5_000;
export const METADATA_MAX_BYTES = 1024 * 1024;

/** Applies the longest matching rewrite; undefined when none matches. */
export function rewriteUri(uri: string, rewrites: Array<{ from: string; to: string }> = []): string | undefined {
  let best: { from: string; to: string } | undefined;
  for (const r of rewrites) {
    const from = r.from.replace(/\/+$/, '');
    if ((uri === from || uri.startsWith(`${from}/`)) && (!best || from.length > best.from.length)) best = { from, to: r.to };
  }
  return best ? `${best.to.replace(/\/+$/, '')}${uri.slice(best.from.length)}` : undefined;
}

export async function fetchMetadata(uri: string, opts: MetadataFetchOptions = {}): Promise<MetadataResult> {
  const maxBytes = opts.maxBytes ?? METADATA_MAX_BYTES;
  if (!uri) return { ok: false, error: 'the contract returned an empty URI' };
  if (uri.startsWith('data:')) return parseDataUri(uri, maxBytes);
  const rewritten = rewriteUri(uri, opts.rewrites);
  const target = rewritten ?? uri;
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return { ok: false, error: `not a URL: ${uri.slice(0, 200)}` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, error: `unsupported URI scheme ${url.protocol} (the proxy fetches http, https and data URIs)` };
  }
  let res: Response;
  try {
    res = await fetch(url, {
      headers: { accept: 'application/json', ...(rewritten ? (opts.ownHeaders ?? {}) : {}) },
      redirect: 'follow',
      signal: AbortSignal.timeout(opts.timeoutMs ?? METADATA_TIMEOUT_MS),
    });
  } catch (err) {
    const e = err as Error;
    return {
      ok: false,
      error: `fetching ${uri} failed: ${e.name === 'TimeoutError' ? 'timed out' : ((e.cause as Error)?.message ?? e.message)}`,
    };
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => {});
    return { ok: false, error: `fetching ${uri} answered HTTP ${res.status}` };
  }
  const declared = Number(res.headers.get('content-length') ?? '0');
  if (declared > maxBytes) {
    await res.body?.cancel().catch(() => {});
    return { ok: false, error: `metadata at ${uri} is larger than ${maxBytes} bytes` };
  }
  // Read at most maxBytes, whatever the header says.
  const reader = res.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (reader) {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => {});
        return { ok: false, error: `metadata at ${uri} is larger than ${maxBytes} bytes` };
      }
      chunks.push(value);
    }
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return { ok: true, metadata: JSON.parse(text), fetchedFrom: url.toString() };
  } catch {
    return { ok: false, error: `metadata at ${uri} is not JSON` };
  }
}

function parseDataUri(uri: string, maxBytes: number): MetadataResult {
  const m = /^data:([^,]*?)(;base64)?,(.*)$/s.exec(uri);
  if (!m) return { ok: false, error: 'malformed data URI' };
  if (m[1] && !/json/i.test(m[1])) return { ok: false, error: `data URI of type ${m[1]} is not JSON` };
  const body = m[2] ? Buffer.from(m[3]!, 'base64').toString('utf8') : decodeURIComponent(m[3]!);
  if (body.length > maxBytes) return { ok: false, error: `metadata larger than ${maxBytes} bytes` };
  try {
    return { ok: true, metadata: JSON.parse(body), fetchedFrom: 'data:' };
  } catch {
    return { ok: false, error: 'data URI is not JSON' };
  }
}

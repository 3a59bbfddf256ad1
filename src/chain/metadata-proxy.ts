/**
 * Server-side metadata fetch for GET /api/nft/metadata (docs/api/nft.md §4.1.3): the admin proxy
 * resolves tokenURI/contractURI itself so that URIs a browser cannot reach (the local backend,
 * the dev metadata host) still resolve. Limits: http(s) and data: URIs only, 5 s, 1 MiB, JSON.
 * A URI comes from a contract, so possibly a hostile one: http(s) goes through the guarded fetcher
 * (src/net/guarded-fetch.ts), which refuses internal addresses at connect time and on every
 * redirect; only the configured own hosts (`allowOrigins`, rewrite targets) may be internal.
 */
import { guardedFetch, type GuardedResponse, OutsideFetchError, type Resolver } from '../net/guarded-fetch.ts';

export interface MetadataFetchOptions {
  /** URI prefixes served by our own backend, rewritten to an address this process can reach. */
  rewrites?: Array<{ from: string; to: string }>;
  timeoutMs?: number;
  maxBytes?: number;
  /** Extra request headers for rewritten (own backend) URIs; never sent across a redirect. */
  ownHeaders?: Record<string, string>;
  /** Origins that may be internal (configuration: our own backend and metadata host). */
  allowOrigins?: readonly string[];
  /** Name resolution (tests inject one); default: the system's. */
  resolve?: Resolver;
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
  // A rewrite target is configuration (our own backend), so it may be internal; anything a
  // contract names is checked by the address it connects to, every redirect hop included.
  const allowOrigins = [...(opts.allowOrigins ?? []), ...(opts.rewrites ?? []).flatMap((r) => originOf(r.to))];
  let res: GuardedResponse;
  try {
    res = await guardedFetch(url, {
      headers: { accept: 'application/json', ...(rewritten ? (opts.ownHeaders ?? {}) : {}) },
      timeoutMs: opts.timeoutMs ?? METADATA_TIMEOUT_MS,
      maxBytes,
      allowOrigins,
      ...(opts.resolve ? { resolve: opts.resolve } : {}),
    });
  } catch (err) {
    if (err instanceof OutsideFetchError) {
      if (err.code === 'TOO_LARGE') return { ok: false, error: `metadata at ${uri} is larger than ${maxBytes} bytes` };
      if (err.code === 'TIMEOUT') return { ok: false, error: `fetching ${uri} failed: timed out` };
      if (err.code === 'BLOCKED') return { ok: false, error: `not fetched: ${err.message}` };
      return { ok: false, error: `fetching ${uri} failed: ${err.message}` };
    }
    return { ok: false, error: `fetching ${uri} failed: ${(err as Error).message}` };
  }
  if (res.status < 200 || res.status >= 300) return { ok: false, error: `fetching ${uri} answered HTTP ${res.status}` };
  try {
    return { ok: true, metadata: JSON.parse(res.body.toString('utf8')), fetchedFrom: res.url };
  } catch {
    return { ok: false, error: `metadata at ${uri} is not JSON` };
  }
}

function originOf(u: string): string[] {
  try {
    return [new URL(u).origin];
  } catch {
    return [];
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

/**
 * The one way to fetch a URL that a user, a collection or a contract supplied (reference images,
 * social_pfp, the admin metadata proxy, webhooks): DESIGN.md "Outside fetches are checked by the
 * address they connect to, at connect time, every hop".
 *
 * - Every connection's address is checked when the socket is about to connect (the lookup of the
 *   request's agent), so a name that resolves to a public address when asked and to 127.0.0.1
 *   when connected (DNS rebinding) still cannot reach us; IP literals are checked before the
 *   request, since Node does not look them up.
 * - Redirects are followed by hand, at most `maxRedirects`, each hop checked again (scheme and
 *   address); `headers` go to the first origin only (a redirect elsewhere must not carry a key).
 * - A timeout for the whole fetch and a size cap on the body.
 * - `allowOrigins` lists origins ("http://127.0.0.1:3000") that may be internal, for the embedded
 *   dev setup's own metadata host only (configuration, never user input).
 */
import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { blockedReason } from './address-ranges.ts';

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export interface GuardedFetchOptions {
  method?: 'GET' | 'HEAD' | 'POST';
  headers?: Record<string, string>;
  /** The request body (POST: outbound webhooks). */
  body?: string;
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  /** Origins that may resolve to internal addresses (the dev setup's own metadata host). */
  allowOrigins?: readonly string[];
  /** Name resolution (tests inject one); default: the system resolver, every address. */
  resolve?: Resolver;
  /** The caller's cancellation, on top of the timeout. */
  signal?: AbortSignal;
}

export interface GuardedResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The URL of the last hop. */
  url: string;
}

/** Why a fetch was refused or failed; `code` tells a refusal (BLOCKED, …) from a network failure. */
export class OutsideFetchError extends Error {
  constructor(
    readonly code: 'BLOCKED' | 'SCHEME' | 'TOO_LARGE' | 'TIMEOUT' | 'TOO_MANY_REDIRECTS' | 'NETWORK',
    message: string,
  ) {
    super(message);
    this.name = 'OutsideFetchError';
  }
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** A socket lookup that answers only public addresses of `hostname` (or refuses). */
function guardedLookup(resolve: Resolver, allowInternal: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (answers) => {
        const usable = allowInternal ? answers : answers.filter((a) => blockedReason(a.address) === null);
        if (usable.length === 0) {
          const why = answers.length === 0 ? 'no address' : blockedReason(answers[0]!.address);
          callback(new OutsideFetchError('BLOCKED', `${hostname} resolves to a ${why} address: outside fetches may not reach it`), '', 4);
          return;
        }
        if (options.all) callback(null, usable);
        else callback(null, usable[0]!.address, usable[0]!.family);
      },
      (err: Error) => callback(err as NodeJS.ErrnoException, '', 4),
    );
  };
}

function checkTarget(url: URL, allowOrigins: readonly string[]): boolean {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutsideFetchError('SCHEME', `only http and https URLs are fetched, not ${url.protocol}`);
  }
  if (url.username || url.password) throw new OutsideFetchError('BLOCKED', 'URLs with credentials are not fetched');
  const allowInternal = allowOrigins.includes(url.origin);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowInternal && isIP(host)) {
    const why = blockedReason(host);
    if (why) throw new OutsideFetchError('BLOCKED', `${host} is a ${why} address: outside fetches may not reach it`);
  }
  return allowInternal;
}

function requestOnce(
  url: URL,
  opts: Required<Pick<GuardedFetchOptions, 'method' | 'maxBytes'>> & GuardedFetchOptions,
  signal: AbortSignal,
) {
  const allowInternal = checkTarget(url, opts.allowOrigins ?? []);
  const lookup = guardedLookup(opts.resolve ?? systemResolver, allowInternal);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    const req = client.request(url, { method: opts.method, headers: opts.headers, lookup, agent: false, signal }, (res) => {
      const declared = Number(res.headers['content-length'] ?? 0);
      if (declared > opts.maxBytes) {
        res.destroy();
        reject(new OutsideFetchError('TOO_LARGE', `${url.origin} answered ${declared} bytes; the limit is ${opts.maxBytes}`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > opts.maxBytes) {
          res.destroy();
          reject(new OutsideFetchError('TOO_LARGE', `${url.origin} sent more than ${opts.maxBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', (err) => {
      if (err instanceof OutsideFetchError) reject(err);
      else if (signal.aborted) reject(new OutsideFetchError('TIMEOUT', `fetching ${url.origin} timed out`));
      else reject(new OutsideFetchError('NETWORK', `fetching ${url.origin} failed: ${err.message}`));
    });
    req.end(opts.body);
  });
}

/**
 * Checks a URL before it is stored (a webhook receiver): scheme, no credentials, and every address
 * its host resolves to now must be public unless its origin is allowed. The connection is checked
 * again at send time (a name may change what it resolves to).
 */
export async function checkOutsideUrl(target: string, options: Pick<GuardedFetchOptions, 'allowOrigins' | 'resolve'> = {}): Promise<URL> {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new OutsideFetchError('SCHEME', 'not a URL');
  }
  const allowInternal = checkTarget(url, options.allowOrigins ?? []);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (allowInternal || isIP(host)) return url;
  let answers: LookupAddress[];
  try {
    answers = await (options.resolve ?? systemResolver)(host);
  } catch {
    // A name that does not resolve now is no way in: every connection is checked when it is made.
    return url;
  }
  const blocked = answers.find((a) => blockedReason(a.address) !== null);
  if (blocked)
    throw new OutsideFetchError(
      'BLOCKED',
      `${host} resolves to a ${blockedReason(blocked.address)} address: outside requests may not reach it`,
    );
  return url;
}

/** GETs `target` under the rules above. Throws OutsideFetchError; any HTTP status is returned. */
export async function guardedFetch(target: string | URL, options: GuardedFetchOptions = {}): Promise<GuardedResponse> {
  const opts = { method: 'GET' as const, maxBytes: DEFAULT_MAX_BYTES, maxRedirects: 3, ...options };
  const timeout = AbortSignal.timeout(opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const signal = opts.signal ? AbortSignal.any([timeout, opts.signal]) : timeout;
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new OutsideFetchError('SCHEME', `not a URL: ${String(target).slice(0, 200)}`);
  }
  const origin = url.origin;
  for (let hop = 0; ; hop++) {
    const res = await requestOnce(url, url.origin === origin ? opts : { ...opts, headers: {} }, signal);
    const location = res.headers.location;
    if (res.status >= 300 && res.status < 400 && location) {
      if (hop >= opts.maxRedirects) throw new OutsideFetchError('TOO_MANY_REDIRECTS', `more than ${opts.maxRedirects} redirects`);
      url = new URL(location, url);
      continue;
    }
    return { ...res, url: url.toString() };
  }
}

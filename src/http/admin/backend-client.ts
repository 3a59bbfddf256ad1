/**
 * The admin proxy's client of the backend: database operations go over HTTP (docs/api/nft.md
 * §5.2). The operator's calls and the proxy's own lookups carry the service key (and the user_id
 * the operator names); a signed-in user's calls carry that user's own credential and no user_id,
 * so the backend's policy sees the user, never the operator (docs/auth.md "The admin proxy").
 * Backend errors keep their status and message.
 */
import { AppError, RateLimited, type AppErrorKind } from '../../domain/errors.ts';
import { FORWARDED_BY_PROXY_HEADER, proxyProof } from '../plugins/auth.ts';

const KIND_BY_STATUS: Record<number, AppErrorKind> = {
  400: 'invalid',
  401: 'unauthorized',
  402: 'payment_required',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  429: 'rate_limited',
  503: 'unavailable',
};

export interface BackendCallOptions {
  body?: unknown;
  query?: Record<string, string | readonly string[] | undefined>;
  /** The user an operator call acts for (user_id header, with the service key). */
  userId?: string | null;
  /** A user's own credential: sent instead of the service key, without user_id. */
  credential?: string;
  headers?: Record<string, string>;
  /** Aborts the request (a client that went away). */
  signal?: AbortSignal;
}

export interface BackendClient {
  call<T = unknown>(method: string, path: string, opts?: BackendCallOptions): Promise<T>;
  /** The raw response of a streaming route (server-sent events); the caller reads and closes it. */
  open(method: string, path: string, opts?: BackendCallOptions): Promise<Response>;
}

/** A backend error answer as the AppError it stands for (status and message kept). */
export async function backendError(res: Response): Promise<AppError> {
  const payload = (await res.json().catch(() => null)) as { data?: unknown; error?: unknown } | null;
  const message = typeof payload?.error === 'string' ? payload.error : `backend answered ${res.status}`;
  const { data: _d, error: _e, ...extra } = payload ?? {};
  // The backend's wait goes to the client too (its limits are per client address or credential).
  const retryAfter = Number(res.headers.get('retry-after'));
  if (res.status === 429 && Number.isInteger(retryAfter) && retryAfter > 0) return new RateLimited(message, retryAfter, extra);
  return new AppError(KIND_BY_STATUS[res.status] ?? 'upstream', message, extra);
}

/** `fetch` by default; the test kit passes one that answers through the backend's `inject()`. */
export function createBackendClient(
  baseUrl: string | undefined,
  apiKey: string | undefined,
  fetchImpl: typeof fetch = fetch,
): BackendClient {
  const forwardProof = apiKey ? proxyProof(apiKey) : undefined;
  async function send(method: string, path: string, opts: BackendCallOptions, timeout: boolean): Promise<Response> {
    if (!baseUrl) throw new AppError('unavailable', 'BACKEND_API_URL is not configured');
    const url = new URL(path, baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
    for (const [k, v] of Object.entries(opts.query ?? {}))
      for (const one of v === undefined ? [] : typeof v === 'string' ? [v] : v) url.searchParams.append(k, one);
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.credential) {
      headers.authorization = `Bearer ${opts.credential}`;
      // The backend then counts this user's failed authentication against the user, not this proxy.
      if (forwardProof) headers[FORWARDED_BY_PROXY_HEADER] = forwardProof;
    } else {
      if (apiKey) headers.authorization = `Bearer ${apiKey}`;
      if (opts.userId) headers['user_id'] = opts.userId;
    }
    // §5.2: every call carries Content-Type: application/json (a GET's has no body to describe; harmless).
    headers['content-type'] = 'application/json';
    const signals = [...(timeout ? [AbortSignal.timeout(60_000)] : []), ...(opts.signal ? [opts.signal] : [])];
    try {
      return await fetchImpl(url, {
        method,
        headers,
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
        ...(signals.length > 0 ? { signal: AbortSignal.any(signals) } : {}),
      });
    } catch (err) {
      throw new AppError('upstream', `backend unreachable at ${baseUrl}: ${(err as Error).message}`);
    }
  }

  return {
    async call<T>(method: string, path: string, opts: BackendCallOptions = {}): Promise<T> {
      const res = await send(method, path, opts, true);
      if (!res.ok) throw await backendError(res);
      const payload = (await res.json().catch(() => null)) as { data?: T } | null;
      if (!payload) throw new AppError('upstream', `backend answered ${res.status} without a JSON body`);
      return payload.data as T;
    },
    // No timeout: a stream lasts as long as its job; the caller aborts it when its client leaves.
    open: (method, path, opts = {}) => send(method, path, opts, false),
  };
}

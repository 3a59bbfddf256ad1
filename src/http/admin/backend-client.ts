/**
 * The admin proxy's client of the backend: database operations go over HTTP with the service key
 * (nft-service.md §5.2). Backend errors keep their status and message.
 */
import { AppError, type AppErrorKind } from '../../domain/errors.ts';

const KIND_BY_STATUS: Record<number, AppErrorKind> = {
  400: 'invalid',
  401: 'unauthorized',
  402: 'payment_required',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  503: 'unavailable',
};

export interface BackendClient {
  call<T = unknown>(
    method: string,
    path: string,
    opts?: {
      body?: unknown;
      query?: Record<string, string | readonly string[] | undefined>;
      userId?: string | null;
      headers?: Record<string, string>;
    },
  ): Promise<T>;
}

/** `fetch` by default; the test kit passes one that answers through the backend's `inject()`. */
export function createBackendClient(
  baseUrl: string | undefined,
  apiKey: string | undefined,
  fetchImpl: typeof fetch = fetch,
): BackendClient {
  return {
    async call<T>(
      method: string,
      path: string,
      opts: {
        body?: unknown;
        query?: Record<string, string | readonly string[] | undefined>;
        userId?: string | null;
        headers?: Record<string, string>;
      } = {},
    ): Promise<T> {
      if (!baseUrl) throw new AppError('unavailable', 'BACKEND_API_URL is not configured');
      const url = new URL(path, baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
      for (const [k, v] of Object.entries(opts.query ?? {}))
        for (const one of v === undefined ? [] : typeof v === 'string' ? [v] : v) url.searchParams.append(k, one);
      const headers: Record<string, string> = { ...(opts.headers ?? {}) };
      if (apiKey) headers.authorization = `Bearer ${apiKey}`;
      if (opts.body !== undefined) headers['content-type'] = 'application/json';
      if (opts.userId) headers['user_id'] = opts.userId;
      let res: Response;
      try {
        res = await fetchImpl(url, {
          method,
          headers,
          body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
          signal: AbortSignal.timeout(60_000),
        });
      } catch (err) {
        throw new AppError('upstream', `backend unreachable at ${baseUrl}: ${(err as Error).message}`);
      }
      const payload = (await res.json().catch(() => null)) as { data?: T; error?: unknown } | null;
      if (!res.ok || !payload) {
        const message = typeof payload?.error === 'string' ? payload.error : `backend answered ${res.status}`;
        const { data: _d, error: _e, ...extra } = payload ?? {};
        throw new AppError(KIND_BY_STATUS[res.status] ?? 'upstream', message, extra);
      }
      return payload.data as T;
    },
  };
}

/**
 * Who a user credential is, for the admin proxy (docs/auth.md "The admin proxy"): the proxy
 * verifies no JWT, API key or session itself — it asks the backend (POST /api/auth/introspect,
 * with the service key), which verifies all of them with its own configuration and database.
 * Asking with the service key rather than with the credential keeps a flood of bad credentials
 * from counting as the proxy's own failed authentications at the backend (which would lock the
 * proxy out); the proxy counts them per client itself.
 *
 * Answers are kept for `ttlMs` (default 5 s) under a SHA-256 of the credential, never the
 * credential itself: a console polling every few seconds costs the backend one lookup per
 * credential and window, and a credential revoked or expired stops working here within that
 * window (at once for sign-out through this proxy, which drops its entry; at once on the routes the
 * proxy acts on itself, which ask afresh: `fresh`). Refusals are not kept: each one is counted by
 * the failed-authentication limit.
 */
import { createHash } from 'node:crypto';
import { MAX_CREDENTIAL_CHARS } from '../../domain/credentials.ts';
import type { RemoteCallerLookup } from '../plugins/auth.ts';
import type { BackendClient } from './backend-client.ts';

export const CALLER_CACHE_MS = 5_000;
const MAX_ENTRIES = 10_000;

export interface CallerLookup extends RemoteCallerLookup {
  /** Forgets a credential (after its sign-out through this proxy). */
  forget(credential: string): void;
}

const keyOf = (credential: string) => createHash('sha256').update(credential).digest('base64url');

export function createCallerLookup(backend: BackendClient, opts: { ttlMs?: number; now?: () => number } = {}): CallerLookup {
  const ttlMs = opts.ttlMs ?? CALLER_CACHE_MS;
  const now = opts.now ?? Date.now;
  const cache = new Map<string, { userId: string; until: number }>();

  return {
    async whoIs(credential, { fresh = false } = {}) {
      // Longer than any credential the backend accepts: refused here, as any bad credential is (401).
      if (credential.length > MAX_CREDENTIAL_CHARS)
        return { refused: `invalid credentials: longer than ${MAX_CREDENTIAL_CHARS} characters` };
      const key = keyOf(credential);
      const hit = cache.get(key);
      if (hit && hit.until > now() && !fresh) return { userId: hit.userId };
      cache.delete(key);
      const answer = await backend.call<{ active: boolean; user_id?: string; reason?: string }>('POST', 'api/auth/introspect', {
        body: { credential },
      });
      if (!answer.active || typeof answer.user_id !== 'string') return { refused: answer.reason ?? 'invalid credentials' };
      if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value!);
      cache.set(key, { userId: answer.user_id, until: now() + ttlMs });
      return { userId: answer.user_id };
    },
    forget: (credential) => void cache.delete(keyOf(credential)),
  };
}

import { invalid, notFound } from '../domain/errors.ts';
import { authorize, type Caller } from '../domain/policy.ts';

export interface SessionStore {
  openSession(
    userId: string,
    opts: { method: string; address?: string | null; ttlSeconds: number },
  ): Promise<{
    id: string;
    token: string;
    expires_at: Date;
  }>;
  findLiveSession(token: string): Promise<{ id: string; user_id: string } | null>;
  revokeSession(id: string, userId: string): Promise<boolean>;
  pruneSessions(): Promise<void>;
}

export type SessionService = ReturnType<typeof createSessionService>;

export function createSessionService(store: SessionStore, settings: { ttlSeconds: number }) {
  return {
    /** A new session of `userId` (called once a sign-in was proven). */
    async open(userId: string, opts: { method: 'siwe'; address?: string }) {
      await store.pruneSessions().catch(() => undefined);
      const s = await store.openSession(userId, { ...opts, ttlSeconds: settings.ttlSeconds });
      return { token: s.token, expires_at: s.expires_at };
    },

    /** The user and session of a live token, or null (unknown, expired or signed out). */
    authenticate: (token: string) => store.findLiveSession(token),

    /**
     * Sign-out: ends the session the caller presents. Any other credential is 400 naming why (a
     * JWT ends at its expiry, an API key is revoked with DELETE /api/keys/:id): a no-op answer
     * would let a user believe it was revoked.
     */
    async logout(caller: Caller, session: { id: string | null; method: string }) {
      if (!session.id) {
        throw invalid(
          `authorization: only a session token (ats_…, from a Sign-In with Ethereum login) is signed out here; ` +
            `this request carries ${session.method === 'service_key' ? 'the service key' : `a ${session.method === 'api_key' ? 'user API key (revoke it with DELETE /api/keys/:id)' : 'JWT (it ends at its exp; forget it)'}`}`,
        );
      }
      if (caller.kind !== 'user') throw notFound('session');
      authorize(caller, 'session.revoke', { ownerId: caller.userId });
      if (!(await store.revokeSession(session.id, caller.userId))) throw notFound('session (already signed out)');
      return { signed_out: true as const };
    },
  };
}

import type { createApiKey, listApiKeys } from '../db/api-keys.ts';
import type { ExternalAccount } from '../db/identity.ts';
import type { getUserWithIdentities, mergeUsers } from '../db/users.ts';
import { invalid, notFound } from '../domain/errors.ts';
import { UUID_RE } from '../domain/ids.ts';
import { authorize, can, type Caller } from '../domain/policy.ts';
import { requireOwner } from './ownership.ts';

export interface IdentityPorts {
  resolve(account: ExternalAccount): Promise<string>;
  profile(userId: string): ReturnType<typeof getUserWithIdentities>;
  updateProfile(userId: string, patch: { displayName?: string | null; avatarUrl?: string | null }): Promise<void>;
  merge(primary: string, secondary: string): ReturnType<typeof mergeUsers>;
  keys: {
    create(userId: string, name: string): ReturnType<typeof createApiKey>;
    list(userId: string): ReturnType<typeof listApiKeys>;
    find(id: string): Promise<{ id: string; user_id: string } | null>;
    revoke(userId: string, id: string): Promise<boolean>;
  };
}

export function createIdentityService(ports: IdentityPorts) {
  return {
    /** Rules 1–3: the internal user of a verified provider account (created when needed). */
    async resolve(claims: {
      provider: string;
      sub: string;
      email: string | null;
      emailVerified?: boolean;
      displayName?: string | null;
      avatarUrl?: string | null;
    }) {
      const userId = await ports.resolve({
        provider: claims.provider,
        providerUserId: claims.sub,
        email: claims.email,
        displayName: claims.displayName ?? null,
        avatarUrl: claims.avatarUrl ?? null,
        emailVerified: claims.emailVerified ?? false,
      });
      return { user_id: userId, provider: claims.provider, provider_user_id: claims.sub };
    },

    /** The caller's user record with its identities; 404 when the caller is not an internal user. */
    async me(caller: Caller) {
      const userId = requireOwner(caller);
      if (!UUID_RE.test(userId)) throw notFound(`user ${userId} (not resolved to an internal user)`);
      return ports.profile(userId);
    },

    /** The caller's own display name and avatar (null clears one); 404 as `me`. */
    async updateMe(caller: Caller, patch: { displayName?: string | null; avatarUrl?: string | null }) {
      const userId = requireOwner(caller);
      if (!UUID_RE.test(userId)) throw notFound(`user ${userId} (not resolved to an internal user)`);
      if (patch.displayName === undefined && patch.avatarUrl === undefined)
        throw invalid('body: give display_name or avatar_url (null clears one)');
      await ports.updateProfile(userId, patch);
      return ports.profile(userId);
    },

    /**
     * Who a user credential is, for the admin proxy (it verifies none itself): the operator only,
     * since the answer tells whether a credential is valid. `verify` is the middleware's check.
     */
    async introspect<T>(caller: Caller, verify: () => Promise<T>): Promise<T> {
      authorize(caller, 'credential.introspect');
      return verify();
    },

    /** Rule 4: every record and identity of `secondary` moves to `primary`, atomically. */
    async merge(caller: Caller, primary: string, secondary: string) {
      authorize(caller, 'user.merge');
      return ports.merge(primary, secondary);
    },

    async createKey(caller: Caller, name: string) {
      authorize(caller, 'api_key.create');
      return ports.keys.create(requireOwner(caller), name);
    },

    listKeys: async (caller: Caller) => ports.keys.list(requireOwner(caller)),

    /** Revokes a key of the caller's; another user's key, or an unknown or revoked one, is 404. */
    async revokeKey(caller: Caller, id: string) {
      requireOwner(caller);
      const key = await ports.keys.find(id);
      if (!key || !can(caller, 'api_key.revoke', { ownerId: key.user_id })) throw notFound(`API key ${id}`);
      if (!(await ports.keys.revoke(key.user_id, id))) throw notFound(`API key ${id}`);
      return { id, revoked: true as const };
    },
  };
}

export type IdentityService = ReturnType<typeof createIdentityService>;

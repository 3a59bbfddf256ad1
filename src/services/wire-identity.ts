/**
 * The wiring of the identity services (docs/auth.md): each service's ports bound to src/db. The
 * services declare their ports; only wire* modules import db values (README "Architecture").
 */
import { createApiKey, findApiKey, listApiKeys, revokeApiKey, verifyApiKey } from '../db/api-keys.ts';
import { type Db } from '../db/client.ts';
import { resolveUser } from '../db/identity.ts';
import { findLiveSession, openSession, pruneSessions, revokeSession } from '../db/sessions.ts';
import { type CredentialPort } from './credentials.ts';
import { getUserWithIdentities, mergeUsers, updateProfile } from '../db/users.ts';
import { type IdentityService, createIdentityService } from './identity.ts';
import { bindDb } from './ports.ts';
import { type SessionService, createSessionService } from './sessions.ts';

export function credentialsOn(db: Db): CredentialPort {
  return {
    userOfApiKey: (key) => verifyApiKey(db, key),
    sessionOf: (token) => findLiveSession(db, token),
    resolveAccount: (account) => resolveUser(db, account),
  };
}

export function identityServiceOn(db: Db): IdentityService {
  return createIdentityService({
    resolve: (account) => resolveUser(db, account),
    profile: (userId) => getUserWithIdentities(db, userId),
    updateProfile: (userId, patch) => updateProfile(db, userId, patch),
    merge: (primary, secondary) => mergeUsers(db, primary, secondary),
    keys: {
      create: (userId, name) => createApiKey(db, userId, name),
      list: (userId) => listApiKeys(db, userId),
      find: (id) => findApiKey(db, id),
      revoke: (userId, id) => revokeApiKey(db, userId, id),
    },
  });
}

export function sessionServiceOn(db: Db, ttlSeconds: number): SessionService {
  return createSessionService(bindDb(db, { openSession, findLiveSession, revokeSession, pruneSessions }), { ttlSeconds });
}

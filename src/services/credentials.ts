/**
 * What authentication asks of the database: whose a user API key or a platform session is, and
 * which internal user an identity-provider account is (docs/api/content.md §2.8 resolution rules).
 * The HTTP auth plugin takes this port, so http/ needs no db/ module.
 */
import { verifyApiKey } from '../db/api-keys.ts';
import type { Db } from '../db/client.ts';
import { type ExternalAccount, resolveUser } from '../db/identity.ts';
import { findLiveSession } from '../db/sessions.ts';

export interface CredentialPort {
  /** The owning user id of an active user API key, or null. */
  userOfApiKey(key: string): Promise<string | null>;
  /** The live session (not expired, not signed out) of a session token, or null. */
  sessionOf(token: string): Promise<{ id: string; user_id: string } | null>;
  /** The internal user of an external account (found, linked or created). */
  resolveAccount(account: ExternalAccount): Promise<string>;
}

export function credentialsOn(db: Db): CredentialPort {
  return {
    userOfApiKey: (key) => verifyApiKey(db, key),
    sessionOf: (token) => findLiveSession(db, token),
    resolveAccount: (account) => resolveUser(db, account),
  };
}

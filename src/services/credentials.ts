import type { ExternalAccount } from '../db/identity.ts';

export interface CredentialPort {
  /** The owning user id of an active user API key, or null. */
  userOfApiKey(key: string): Promise<string | null>;
  /** The live session (not expired, not signed out) of a session token, or null. */
  sessionOf(token: string): Promise<{ id: string; user_id: string } | null>;
  /** The internal user of an external account (found, linked or created). */
  resolveAccount(account: ExternalAccount): Promise<string>;
}

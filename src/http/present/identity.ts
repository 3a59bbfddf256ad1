/** Users, identities and API keys as the API shows them (docs/api/content.md §2.8; docs/auth.md). */
import type { getUserWithIdentities } from '../../db/users.ts';
import type { listApiKeys } from '../../db/api-keys.ts';
import { iso } from '../../domain/time.ts';

export const presentProfile = (u: Awaited<ReturnType<typeof getUserWithIdentities>>) => ({
  id: u.id,
  email: u.email,
  display_name: u.display_name,
  avatar_url: u.avatar_url,
  created_at: iso(u.created_at)!,
  updated_at: iso(u.updated_at)!,
  last_login_at: iso(u.last_login_at),
  is_active: u.is_active,
  is_blocked: u.is_blocked,
  identities: u.identities.map((i) => ({
    id: i.id,
    provider: i.provider,
    provider_user_id: i.provider_user_id,
    provider_email: i.provider_email,
    linked_at: iso(i.linked_at)!,
    last_used_at: iso(i.last_used_at),
  })),
});

type Key = Awaited<ReturnType<typeof listApiKeys>>[number];
export const presentApiKey = (k: Key) => ({
  id: k.id,
  name: k.name,
  key_prefix: k.key_prefix,
  created_at: iso(k.created_at)!,
  last_used_at: iso(k.last_used_at),
  revoked_at: iso(k.revoked_at),
});

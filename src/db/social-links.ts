/** Custodial social links (docs/api/content.md §2.6): created on first use, reused afterwards. */
import { and, eq } from 'drizzle-orm';
import type { Db } from './client.ts';
import { socialLinks } from './schema/index.ts';

export const SOCIAL_ORGS = ['social_a', 'social_b'] as const;
export type SocialOrg = (typeof SOCIAL_ORGS)[number];

export type SocialLink = typeof socialLinks.$inferSelect;

/** Insert-or-get in one round trip under concurrency: the unique index decides the winner. */
export async function upsertSocialLink(
  db: Db,
  socialOrg: string,
  socialIdentifier: string,
  miniappUserId?: string | null,
): Promise<SocialLink> {
  const inserted = await db
    .insert(socialLinks)
    .values({ social_org: socialOrg, social_identifier: socialIdentifier, miniapp_user_id: miniappUserId ?? null })
    .onConflictDoNothing()
    .returning();
  if (inserted[0]) return inserted[0];
  const [row] = await db
    .select()
    .from(socialLinks)
    .where(and(eq(socialLinks.social_org, socialOrg), eq(socialLinks.social_identifier, socialIdentifier)));
  return row!;
}

export async function findSocialLink(db: Db, socialOrg: string, socialIdentifier: string) {
  const [row] = await db
    .select()
    .from(socialLinks)
    .where(and(eq(socialLinks.social_org, socialOrg), eq(socialLinks.social_identifier, socialIdentifier)));
  return row ?? null;
}

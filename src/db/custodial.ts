/**
 * Custodial collections (docs/api/content.md §2.6, §4.5): a collection held for a social identity
 * that has no account yet. Created in ONE transaction with its social link: the link (created
 * when absent, its miniapp_user_id remembered when it arrives later) and the collection row with
 * its component, cover and source metadata, so a failure leaves neither half behind.
 */
import { and, eq, isNull } from 'drizzle-orm';
import { tx, type Db } from './client.ts';
import type { CollectionRow } from './collections.ts';
import { collections, socialLinks } from './schema/index.ts';
import { upsertSocialLink, type SocialLink } from './social-links.ts';

export interface NewCustodialCollection {
  title: string;
  description: string;
  editions: number;
  price: number;
  blockchain: string;
  data: unknown;
  projectId: string | null;
  userId: string | null;
  socialOrg: string;
  socialIdentifier: string;
  miniappUserId: string | null;
  component: Record<string, unknown>;
  coverImageUrl: string | null;
  sourceMetadata: Record<string, unknown>;
}

export function createCustodialCollection(db: Db, c: NewCustodialCollection): Promise<{ collection: CollectionRow; link: SocialLink }> {
  return tx(db, async (t) => {
    let link = await upsertSocialLink(t, c.socialOrg, c.socialIdentifier, c.miniappUserId);
    if (c.miniappUserId && !link.miniapp_user_id) {
      // The identity got an account since the link was made: remember it (first one wins).
      const [updated] = await t
        .update(socialLinks)
        .set({ miniapp_user_id: c.miniappUserId })
        .where(and(eq(socialLinks.id, link.id), isNull(socialLinks.miniapp_user_id)))
        .returning();
      link = updated ?? link;
    }
    const [collection] = await t
      .insert(collections)
      .values({
        title: c.title,
        description: c.description,
        editions: c.editions,
        price: c.price,
        blockchain: c.blockchain,
        data: c.data,
        project_id: c.projectId,
        social_org: c.socialOrg,
        social_identifier: c.socialIdentifier,
        is_custodial: true,
        custodied_for: link.id,
        user_id: c.userId,
        component: c.component,
        cover_image_url: c.coverImageUrl,
        source_metadata: c.sourceMetadata,
      })
      .returning();
    return { collection: collection!, link };
  });
}

/**
 * Decks (docs/api/content.md §2.2, §3): queries and state rules. Who may change a deck is
 * src/domain/policy.ts (applied by src/services/decks.ts); the response shape is
 * src/http/present/decks.ts.
 *
 * output_count counts the deck's outputs that are not hidden (pending, processing, completed,
 * failed). It changes only in single conditional statements inside the transaction that changes
 * the output (see outputs.ts), never read-then-write.
 *
 * State rules: POST creates `active`; PATCH may set any status, except that a locked deck keeps
 * its status (a lock freezes the content, for example a minted token's); DELETE archives, publish
 * publishes (published_at set once), lock locks. Archived and published decks may return to
 * active through PATCH; a locked deck may not (409).
 */
import { and, asc, desc, eq, isNull, ne, sql } from 'drizzle-orm';
import { conflict, invalid, notFound } from '../domain/errors.ts';
import type { Db } from './client.ts';
import { collections, decks, outputs } from './schema/index.ts';
import { findSocialLink, upsertSocialLink } from './social-links.ts';
import type { DeckStatus } from '../domain/content-statuses.ts';

export type DeckRow = typeof decks.$inferSelect;

export interface NewDeck {
  collection_id: string;
  name?: string;
  description?: string;
  social_org?: string;
  social_identifier?: string;
  userId: string;
}

async function requireCollection(db: Db, id: string) {
  const [row] = await db
    .select({ id: collections.id, title: collections.title, user_id: collections.user_id, cover_image_url: collections.cover_image_url })
    .from(collections)
    .where(eq(collections.id, id));
  if (!row) throw notFound(`collection ${id}`);
  return row;
}

export async function createDeck(db: Db, input: NewDeck): Promise<DeckRow> {
  await requireCollection(db, input.collection_id);
  const custodiedFor =
    input.social_org && input.social_identifier ? (await upsertSocialLink(db, input.social_org, input.social_identifier)).id : null;
  const [row] = await db
    .insert(decks)
    .values({
      collection_id: input.collection_id,
      user_id: input.userId,
      name: input.name ?? 'Untitled deck',
      description: input.description ?? '',
      is_custodial: custodiedFor !== null,
      custodied_for: custodiedFor,
    })
    .returning();
  return row!;
}

export async function getDeck(db: Db, id: string): Promise<DeckRow> {
  const [row] = await db.select().from(decks).where(eq(decks.id, id));
  if (!row) throw notFound(`deck ${id}`);
  return row;
}

/** The deck with the owner of its collection (the policy's collection_owner), or 404. */
export async function getDeckWithOwners(
  db: Db,
  id: string,
): Promise<DeckRow & { collection_owner_id: string | null; collection_exact: boolean }> {
  const [row] = await db
    .select({
      deck: decks,
      collection_owner_id: collections.user_id,
      // Exact counts (docs/fairness.md "Exact counts"): a token deck's artwork is dealt, not chosen.
      collection_exact: sql<boolean>`coalesce((${collections.data}->>'distribution') = 'exact', false)`,
    })
    .from(decks)
    .innerJoin(collections, eq(collections.id, decks.collection_id))
    .where(eq(decks.id, id));
  if (!row) throw notFound(`deck ${id}`);
  return { ...row.deck, collection_owner_id: row.collection_owner_id, collection_exact: row.collection_exact };
}

/** GET /decks/:id: the deck, its collection and its visible outputs, oldest first. */
export async function deckDetail(db: Db, id: string) {
  const deck = await getDeck(db, id);
  const collection = await requireCollection(db, deck.collection_id);
  const rows = await db
    .select({
      id: outputs.id,
      url: outputs.url,
      status: outputs.status,
      mime_type: outputs.mime_type,
      thumbnail_url: outputs.thumbnail_url,
      created_at: outputs.created_at,
    })
    .from(outputs)
    .where(and(eq(outputs.deck_id, id), ne(outputs.status, 'hidden')))
    .orderBy(asc(outputs.created_at), asc(outputs.id));
  return { deck, collection: { id: collection.id, title: collection.title, cover_image_url: collection.cover_image_url }, outputs: rows };
}
export type DeckDetail = Awaited<ReturnType<typeof deckDetail>>;

export interface DeckPatch {
  name?: string;
  description?: string;
  cover_output_id?: string | null;
  status?: DeckStatus;
}

/**
 * The status change is one conditional statement. Any status may be set from any other
 * (docs/api/content.md §3 Deck: PATCH, DELETE and publish apply to "any" deck), except that a locked
 * deck never returns to `active` (the case docs/api/content.md §3 leaves open; docs/content.md): that condition
 * sits in the UPDATE's WHERE, so it cannot race with a lock.
 */
export async function updateDeck(db: Db, id: string, patch: DeckPatch): Promise<DeckRow> {
  if (patch.cover_output_id) {
    const [o] = await db
      .select({ deck_id: outputs.deck_id, status: outputs.status })
      .from(outputs)
      .where(eq(outputs.id, patch.cover_output_id));
    if (!o || o.deck_id !== id || o.status === 'hidden') {
      throw invalid(`body.cover_output_id: output ${patch.cover_output_id} is not a visible output of this deck`);
    }
  }
  const set: Record<string, unknown> = { updated_at: sql`now()` };
  if (patch.name !== undefined) set.name = patch.name;
  if (patch.description !== undefined) set.description = patch.description;
  if (patch.cover_output_id !== undefined) set.cover_output_id = patch.cover_output_id;
  const conditions = [eq(decks.id, id)];
  if (patch.status !== undefined) {
    set.status = patch.status;
    if (patch.status === 'published') set.published_at = sql`coalesce(${decks.published_at}, now())`;
    // A locked deck does not return to active; locking an already locked deck is a no-op.
    if (patch.status === 'active') conditions.push(ne(decks.status, 'locked'));
  }
  const [row] = await db
    .update(decks)
    .set(set)
    .where(and(...conditions))
    .returning();
  if (row) return row;
  const current = await getDeck(db, id); // 404 when missing
  throw conflict(
    `deck ${id} is ${current.status}: a locked deck does not return to active directly (archiving or publishing it ends the lock)`,
  );
}

export const archiveDeck = (db: Db, id: string) => updateDeck(db, id, { status: 'archived' });
export const publishDeck = (db: Db, id: string) => updateDeck(db, id, { status: 'published' });
export const lockDeck = (db: Db, id: string) => updateDeck(db, id, { status: 'locked' });

/** Outputs of the deck by status (hidden ones are not counted here). */
export async function deckStats(db: Db, id: string) {
  await getDeck(db, id);
  const rows = await db
    .select({ status: outputs.status, n: sql<number>`count(*)::int` })
    .from(outputs)
    .where(eq(outputs.deck_id, id))
    .groupBy(outputs.status);
  const by = Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  return {
    byStatus: {
      completed: by.completed ?? 0,
      pending: by.pending ?? 0,
      failed: by.failed ?? 0,
      processing: by.processing ?? 0,
    },
  };
}

export interface DeckFilter {
  social_org?: string;
  social_identifier?: string;
}

/** The custodial link id a filter names: undefined = no filter, null = a link that does not exist. */
async function socialFilter(db: Db, f: DeckFilter): Promise<string | null | undefined> {
  if (!f.social_org || !f.social_identifier) return undefined;
  return (await findSocialLink(db, f.social_org, f.social_identifier))?.id ?? null;
}

/** Decks of a collection, newest first, without archived (soft-deleted) ones. */
export async function listCollectionDecks(db: Db, collectionId: string, f: DeckFilter) {
  await requireCollection(db, collectionId);
  const link = await socialFilter(db, f);
  if (link === null) return [];
  const rows = await db
    .select()
    .from(decks)
    .where(
      and(
        eq(decks.collection_id, collectionId),
        ne(decks.status, 'archived'),
        link === undefined ? undefined : eq(decks.custodied_for, link),
      ),
    )
    .orderBy(desc(decks.created_at), desc(decks.id));
  return rows;
}

/** The user's own decks across collections, newest first, without archived ones. */
export async function listUserDecks(db: Db, userId: string, f: DeckFilter) {
  const link = await socialFilter(db, f);
  if (link === null) return [];
  const rows = await db
    .select({ deck: decks, collection: { id: collections.id, title: collections.title } })
    .from(decks)
    .innerJoin(collections, eq(collections.id, decks.collection_id))
    .where(and(eq(decks.user_id, userId), ne(decks.status, 'archived'), link === undefined ? undefined : eq(decks.custodied_for, link)))
    .orderBy(desc(decks.created_at), desc(decks.id));
  return rows;
}

/** The deck an output joins when none is given and auto_create_deck is true (see outputs.ts). */
export function ownDeckCondition(userId: string, custodiedFor: string | null) {
  return custodiedFor ? eq(decks.custodied_for, custodiedFor) : and(eq(decks.user_id, userId), isNull(decks.custodied_for));
}

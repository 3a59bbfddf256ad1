/**
 * Outputs (docs/api/content.md §2.1, §3): queries and state rules. Who may change an output is
 * src/domain/policy.ts (applied by src/services/outputs.ts); the response shape is
 * src/http/present/outputs.ts.
 *
 * Deck counters: a deck's output_count counts its outputs that are not hidden. Every change of
 * it is one conditional UPDATE in the same transaction as the output change it follows:
 * - create: `output_count + 1 WHERE id = $deck AND status <> 'locked'` (0 rows: locked → 409);
 * - hide: the output's `status <> 'hidden'` guard decides whether this call hides it, then
 *   `output_count - 1` on the deck the UPDATE returned;
 * - move: the output row is locked (`FOR UPDATE`), then `- 1` on the old deck and `+ 1` on the new
 *   one (both refused when locked), in deck-id order so two opposite moves cannot deadlock.
 * Nothing reads a count and writes it back.
 */
import { and, asc, desc, eq, inArray, ne, sql, type SQL } from 'drizzle-orm';
import { conflict, invalid, notFound } from '../domain/errors.ts';
import type { Db } from './client.ts';
import { ownDeckCondition } from './decks.ts';
import { collections, decks, flatFiles, outputs } from './schema/index.ts';
import { findSocialLink, upsertSocialLink } from './social-links.ts';

/** States from which an output may complete or fail. */
const OPEN_STATES = ['pending', 'processing'];

export type OutputRow = typeof outputs.$inferSelect;

export async function getOutput(db: Db, id: string): Promise<OutputRow> {
  const [row] = await db.select().from(outputs).where(eq(outputs.id, id));
  if (!row) throw notFound(`output ${id}`);
  return row;
}

/** The output with the owner of its collection (the policy's collection_owner), or 404. */
export async function getOutputWithOwners(db: Db, id: string): Promise<OutputRow & { collection_owner_id: string | null }> {
  const [row] = await db
    .select({ output: outputs, collection_owner_id: collections.user_id })
    .from(outputs)
    .innerJoin(collections, eq(collections.id, outputs.collection_id))
    .where(eq(outputs.id, id));
  if (!row) throw notFound(`output ${id}`);
  return { ...row.output, collection_owner_id: row.collection_owner_id };
}

export interface NewOutput {
  collection_id: string;
  job_id?: string;
  source?: string;
  input_metadata?: Record<string, unknown>;
  social_org?: string;
  social_identifier?: string;
  deck_id?: string;
  auto_create_deck: boolean;
  parent_output_id?: string;
  userId: string;
}

const plusOne = () => ({ output_count: sql`${decks.output_count} + 1`, updated_at: sql`now()` });

/** Why a conditional deck increment matched nothing: a 404, 400 or 409 for the caller. */
async function explainDeckRefusal(db: Db, deckId: string, collectionId: string, field: string): Promise<never> {
  const [d] = await db.select({ status: decks.status, collection_id: decks.collection_id }).from(decks).where(eq(decks.id, deckId));
  if (!d) throw notFound(`deck ${deckId}`);
  if (d.collection_id !== collectionId) throw invalid(`${field}: deck ${deckId} belongs to another collection`);
  if (d.status === 'locked') throw conflict(`deck ${deckId} is locked: no new outputs can be added`);
  throw conflict(`deck ${deckId} cannot take outputs now`);
}

/**
 * POST /outputs. With deck_id the output joins that deck (refused when locked); without it and
 * with auto_create_deck, it joins the caller's newest active deck of the collection (the
 * custodial holder's when social fields are given), which is created when there is none.
 */
export async function createOutput(db: Db, input: NewOutput): Promise<OutputRow> {
  const [collection] = await db
    .select({ id: collections.id, title: collections.title })
    .from(collections)
    .where(eq(collections.id, input.collection_id));
  if (!collection) throw notFound(`collection ${input.collection_id}`);
  const custodiedFor =
    input.social_org && input.social_identifier ? (await upsertSocialLink(db, input.social_org, input.social_identifier)).id : null;

  return db.transaction(async (tx) => {
    let deckId: string | null = null;
    if (input.deck_id) {
      const [d] = await tx
        .update(decks)
        .set(plusOne())
        .where(and(eq(decks.id, input.deck_id), eq(decks.collection_id, input.collection_id), ne(decks.status, 'locked')))
        .returning({ id: decks.id });
      if (!d) await explainDeckRefusal(tx, input.deck_id, input.collection_id, 'body.deck_id');
      deckId = d!.id;
    } else if (input.auto_create_deck) {
      // One auto-created deck per owner and collection, even under concurrent first outputs.
      const owner = custodiedFor ? `social:${custodiedFor}` : `user:${input.userId}`;
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`auto-deck:${input.collection_id}:${owner}`}))`);
      const [candidate] = await tx
        .select({ id: decks.id })
        .from(decks)
        .where(and(eq(decks.collection_id, input.collection_id), eq(decks.status, 'active'), ownDeckCondition(input.userId, custodiedFor)))
        .orderBy(desc(decks.created_at), desc(decks.id))
        .limit(1);
      const [d] = candidate
        ? await tx
            .update(decks)
            .set(plusOne())
            .where(and(eq(decks.id, candidate.id), eq(decks.status, 'active')))
            .returning({ id: decks.id })
        : [];
      if (d) deckId = d.id;
      else {
        const [created] = await tx
          .insert(decks)
          .values({
            collection_id: input.collection_id,
            user_id: input.userId,
            name: collection.title,
            output_count: 1,
            is_custodial: custodiedFor !== null,
            custodied_for: custodiedFor,
          })
          .returning({ id: decks.id });
        deckId = created!.id;
      }
    }
    const [row] = await tx
      .insert(outputs)
      .values({
        collection_id: input.collection_id,
        deck_id: deckId,
        job_id: input.job_id ?? null,
        user_id: input.userId,
        source: input.source ?? 'unknown',
        input_metadata: input.input_metadata ?? null,
        is_custodial: custodiedFor !== null,
        custodied_for: custodiedFor,
        parent_output_id: input.parent_output_id ?? null,
      })
      .returning();
    return row!;
  });
}

async function explainStateRefusal(db: Db, id: string, action: string): Promise<never> {
  const row = await getOutput(db, id);
  throw conflict(`output ${id} is ${row.status}: only pending or processing outputs can ${action}`);
}

export interface Completion {
  url: string;
  mime_type?: string;
  thumbnail_url?: string;
  flat_file_id?: number;
  output_metadata?: Record<string, unknown>;
}

/** pending|processing → completed, in one conditional statement. */
export async function completeOutput(db: Db, id: string, c: Completion, opts: { flatFileKnown?: boolean } = {}): Promise<OutputRow> {
  let mime = c.mime_type;
  // The worker passes the flat file it has just created (and its MIME type): no need to look it up.
  if (c.flat_file_id !== undefined && !(opts.flatFileKnown && mime !== undefined)) {
    const [f] = await db.select({ mime_type: flatFiles.mime_type }).from(flatFiles).where(eq(flatFiles.id, c.flat_file_id));
    if (!f) throw invalid(`body.flat_file_id: flat file ${c.flat_file_id} does not exist`);
    mime ??= f.mime_type;
  }
  const set: Record<string, unknown> = {
    status: 'completed',
    url: c.url,
    completed_at: sql`now()`,
    updated_at: sql`now()`,
    error_message: null,
  };
  if (mime !== undefined) set.mime_type = mime;
  if (c.thumbnail_url !== undefined) set.thumbnail_url = c.thumbnail_url;
  if (c.flat_file_id !== undefined) set.flat_file_id = c.flat_file_id;
  if (c.output_metadata !== undefined) set.output_metadata = c.output_metadata;
  const [row] = await db
    .update(outputs)
    .set(set)
    .where(and(eq(outputs.id, id), inArray(outputs.status, OPEN_STATES)))
    .returning();
  return row ?? explainStateRefusal(db, id, 'complete');
}

/** pending|processing → failed, in one conditional statement. */
export async function failOutput(db: Db, id: string, errorMessage: string | undefined): Promise<OutputRow> {
  const [row] = await db
    .update(outputs)
    .set({ status: 'failed', error_message: errorMessage ?? 'generation failed', updated_at: sql`now()` })
    .where(and(eq(outputs.id, id), inArray(outputs.status, OPEN_STATES)))
    .returning();
  return row ?? explainStateRefusal(db, id, 'fail');
}

/** Sets the thumbnail unless one was set meanwhile. */
export async function setThumbnail(db: Db, id: string, thumbnailUrl: string) {
  await db
    .update(outputs)
    .set({ thumbnail_url: thumbnailUrl, updated_at: sql`now()` })
    .where(and(eq(outputs.id, id), sql`${outputs.thumbnail_url} is null`));
}

/** any → hidden. Hiding an already hidden output changes nothing (and answers the same). */
export async function hideOutput(db: Db, id: string): Promise<OutputRow> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(outputs)
      .set({ status: 'hidden', updated_at: sql`now()` })
      .where(and(eq(outputs.id, id), ne(outputs.status, 'hidden')))
      .returning();
    if (!row) return getOutput(tx, id);
    if (row.deck_id) {
      await tx
        .update(decks)
        .set({ output_count: sql`${decks.output_count} - 1`, updated_at: sql`now()` })
        .where(eq(decks.id, row.deck_id));
    }
    return row;
  });
}

/**
 * PATCH /outputs/:id/deck: moves the output to another deck of its collection, or out of any
 * deck (null). Outputs neither join nor leave a locked deck.
 */
export async function moveOutput(db: Db, id: string, newDeckId: string | null): Promise<OutputRow> {
  return db.transaction(async (tx) => {
    const [current] = await tx.select().from(outputs).where(eq(outputs.id, id)).for('update');
    if (!current) throw notFound(`output ${id}`);
    const oldDeckId = current.deck_id;
    if (oldDeckId === newDeckId) return current;
    const delta = current.status === 'hidden' ? 0 : 1;
    const steps: Array<{ deck: string; sign: 1 | -1 }> = [];
    if (oldDeckId) steps.push({ deck: oldDeckId, sign: -1 });
    if (newDeckId) steps.push({ deck: newDeckId, sign: 1 });
    steps.sort((a, b) => (a.deck < b.deck ? -1 : 1));
    for (const step of steps) {
      const conditions: SQL[] = [eq(decks.id, step.deck), ne(decks.status, 'locked')];
      if (step.sign === 1) conditions.push(eq(decks.collection_id, current.collection_id));
      const [d] = await tx
        .update(decks)
        .set({ output_count: sql`${decks.output_count} + ${step.sign * delta}`, updated_at: sql`now()` })
        .where(and(...conditions))
        .returning({ id: decks.id });
      if (d) continue;
      if (step.sign === 1) await explainDeckRefusal(tx, step.deck, current.collection_id, 'body.deck_id');
      throw conflict(`deck ${step.deck} is locked: its outputs cannot move out`);
    }
    const [row] = await tx.update(outputs).set({ deck_id: newDeckId, updated_at: sql`now()` }).where(eq(outputs.id, id)).returning();
    return row!;
  });
}

/** GET /outputs/:id: the output with its deck {id, name}, its collection {id, title} and the collection's owner. */
export async function outputDetail(db: Db, id: string) {
  const [r] = await db
    .select({
      output: outputs,
      deck: { id: decks.id, name: decks.name },
      collection: { id: collections.id, title: collections.title },
      collection_owner_id: collections.user_id,
    })
    .from(outputs)
    .innerJoin(collections, eq(collections.id, outputs.collection_id))
    .leftJoin(decks, eq(decks.id, outputs.deck_id))
    .where(eq(outputs.id, id));
  if (!r) throw notFound(`output ${id}`);
  return { output: r.output, deck: r.deck?.id ? r.deck : null, collection: r.collection, collectionOwnerId: r.collection_owner_id };
}
export type OutputDetail = Awaited<ReturnType<typeof outputDetail>>;

export interface OutputFilter {
  deck_id?: string;
  status?: 'pending' | 'completed' | 'failed' | 'processing';
  social_org?: string;
  social_identifier?: string;
  limit: number;
  offset: number;
}

async function requireCollectionId(db: Db, id: string) {
  const [c] = await db.select({ id: collections.id }).from(collections).where(eq(collections.id, id));
  if (!c) throw notFound(`collection ${id}`);
}

/** Visible (not hidden) outputs of a collection, newest first. */
export async function listCollectionOutputs(db: Db, collectionId: string, f: OutputFilter) {
  await requireCollectionId(db, collectionId);
  const conditions: SQL[] = [eq(outputs.collection_id, collectionId), ne(outputs.status, 'hidden')];
  if (f.deck_id) conditions.push(eq(outputs.deck_id, f.deck_id));
  if (f.status) conditions.push(eq(outputs.status, f.status));
  if (f.social_org && f.social_identifier) {
    const link = await findSocialLink(db, f.social_org, f.social_identifier);
    if (!link) return [];
    conditions.push(eq(outputs.custodied_for, link.id));
  }
  const rows = await db
    .select({ output: outputs, deck: { id: decks.id, name: decks.name } })
    .from(outputs)
    .leftJoin(decks, eq(decks.id, outputs.deck_id))
    .where(and(...conditions))
    .orderBy(desc(outputs.created_at), desc(outputs.id))
    .limit(f.limit)
    .offset(f.offset);
  return rows.map(({ output, deck }) => ({ output, deck: deck?.id ? deck : null }));
}

/** Every output of the collection by status; total includes hidden ones. */
export async function collectionOutputStats(db: Db, collectionId: string) {
  await requireCollectionId(db, collectionId);
  const rows = await db
    .select({ status: outputs.status, n: sql<number>`count(*)::int` })
    .from(outputs)
    .where(eq(outputs.collection_id, collectionId))
    .groupBy(outputs.status)
    .orderBy(asc(outputs.status));
  const by = Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  return {
    total: rows.reduce((s, r) => s + Number(r.n), 0),
    byStatus: {
      completed: by.completed ?? 0,
      pending: by.pending ?? 0,
      failed: by.failed ?? 0,
      hidden: by.hidden ?? 0,
      processing: by.processing ?? 0,
    },
  };
}

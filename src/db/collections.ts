/**
 * Collection records (docs/api/nft.md §2.1): the SQL of the `collections` table. No permission
 * checks and no response shaping here (services/collections.ts, http/present/collections.ts).
 */
import { eq, sql } from 'drizzle-orm';
import { notFound } from '../domain/errors.ts';
import type { GenerationData } from '../domain/generation-data.ts';
import { UUID_RE } from '../domain/ids.ts';
import type { Db } from './client.ts';
import { firstOf, type Statement } from './prepared.ts';
import { collections, decks } from './schema/index.ts';
import { upsertSocialLink } from './social-links.ts';

export type CollectionRow = typeof collections.$inferSelect;

export interface NewCollection {
  title: string;
  description: string;
  editions: number;
  price: number;
  blockchain: string;
  data: GenerationData;
  project_id?: string | null;
  social_org?: string | null;
  social_identifier?: string | null;
  userId: string | null;
}

export interface CollectionPatch {
  title?: string;
  description?: string;
  editions?: number;
  price?: number;
  data?: GenerationData;
  cover_image_url?: string | null;
  mint_access?: string;
  mint_price?: string | null;
  payout_address?: string | null;
  max_per_wallet?: number | null;
  mint_allowlist?: string[] | null;
  mint_merkle_root?: string | null;
  mint_start?: Date | null;
  mint_end?: Date | null;
}

export async function createCollection(db: Db, input: NewCollection): Promise<CollectionRow> {
  let custodiedFor: string | null = null;
  if (input.social_org && input.social_identifier) {
    custodiedFor = (await upsertSocialLink(db, input.social_org, input.social_identifier)).id;
  }
  const [row] = await db
    .insert(collections)
    .values({
      title: input.title,
      description: input.description,
      editions: input.editions,
      price: input.price,
      blockchain: input.blockchain,
      data: input.data,
      project_id: input.project_id ?? null,
      social_org: input.social_org ?? null,
      social_identifier: input.social_identifier ?? null,
      is_custodial: custodiedFor !== null,
      custodied_for: custodiedFor,
      user_id: input.userId,
    })
    .returning();
  return row!;
}

export async function getCollection(db: Db, id: string): Promise<CollectionRow> {
  const [row] = await db.select().from(collections).where(eq(collections.id, id));
  if (!row) throw notFound(`collection ${id}`);
  return row;
}

/** What a generation is built from, with the version the submit statement checks. */
export interface CollectionForGeneration {
  id: string;
  title: string;
  description: string;
  cover_image_url: string | null;
  data: unknown;
  component: unknown;
  /** A digest of exactly these fields (db/generation-rows.ts checks it at the insert). */
  version: string;
}

/**
 * The version of what a generation is built from: a digest of those fields only, so updates of
 * anything else (mint counters, deploy state) do not make a cached copy stale. `c` is the alias.
 */
export const collectionVersionSql = (c: string) =>
  `md5(row(${c}.title, ${c}.description, ${c}.cover_image_url, ${c}.data, ${c}.component)::text)`;

const COLLECTION_FOR_GENERATION: Statement = {
  name: 'collection_for_generation',
  text: `select c.id::text, c.title, c.description, c.cover_image_url, c.data, c.component, ${collectionVersionSql('c')} as version
    from collections c where c.id = $1::uuid`,
};

/** The collection a generation is built from, or 404 (ids that are not UUIDs are 404 too). */
export async function collectionForGeneration(db: Db, id: string): Promise<CollectionForGeneration> {
  const row = UUID_RE.test(id) ? await firstOf<CollectionForGeneration>(db, COLLECTION_FOR_GENERATION, [id]) : undefined;
  if (!row) throw notFound(`collection ${id}`);
  return row;
}

/** What the public collection document needs (one narrow read), or undefined. */
export async function collectionHeader(db: Db, id: string) {
  const [row] = await db
    .select({
      id: collections.id,
      title: collections.title,
      description: collections.description,
      cover_image_url: collections.cover_image_url,
      frozen_root_cid: collections.frozen_root_cid,
    })
    .from(collections)
    .where(eq(collections.id, id));
  return row;
}

export async function updateCollection(db: Db, id: string, patch: CollectionPatch): Promise<CollectionRow> {
  const [row] = await db
    .update(collections)
    .set({ ...patch, updated_at: sql`now()` })
    .where(eq(collections.id, id))
    .returning();
  if (!row) throw notFound(`collection ${id}`);
  return row;
}

/**
 * The database part of reset (docs/api/nft.md §3): clears the deployment fields and every deck's
 * mint state, in one transaction. The chain check (contract gone) is the service's.
 */
export async function resetCollection(db: Db, id: string): Promise<CollectionRow> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(collections)
      .set({
        contract_address: null,
        chain_id: null,
        deploy_tx_hash: null,
        base_token_uri: null,
        status: 'draft',
        mint_status: 'draft',
        tokens_minted: 0,
        updated_at: sql`now()`,
      })
      .where(eq(collections.id, id))
      .returning();
    if (!row) throw notFound(`collection ${id}`);
    await tx
      .update(decks)
      .set({
        token_id: null,
        mint_tx_hash: null,
        mint_recipient: null,
        mint_status: null,
        minted_at: null,
        metadata_uri: null,
        current_owner: null,
        last_transfer_at: null,
        updated_at: sql`now()`,
      })
      .where(eq(decks.collection_id, id));
    return row;
  });
}

/** Collection records (nft-service.md §2.1): queries and the one presentation used by both apps. */
import { eq, sql } from 'drizzle-orm';
import { deriveContractParams } from '../domain/contract-params.ts';
import { conflict, forbidden, notFound } from '../domain/errors.ts';
import type { GenerationData } from '../domain/generation-data.ts';
import type { Db } from './client.ts';
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
}

export function presentCollection(row: CollectionRow) {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    editions: row.editions,
    price: row.price,
    blockchain: row.blockchain,
    data: row.data as GenerationData,
    project_id: row.project_id,
    user_id: row.user_id,
    social_org: row.social_org,
    social_identifier: row.social_identifier,
    is_custodial: row.is_custodial,
    custodied_for: row.custodied_for,
    status: row.status,
    cover_image_url: row.cover_image_url,
    contract_address: row.contract_address,
    chain_id: row.chain_id,
    deploy_tx_hash: row.deploy_tx_hash,
    base_token_uri: row.base_token_uri,
    mint_status: row.mint_status,
    deployed: row.contract_address !== null,
    max_supply: row.max_supply,
    tokens_minted: row.tokens_minted,
    royalty_bps: row.royalty_bps,
    royalty_receiver: row.royalty_receiver,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export type CollectionView = ReturnType<typeof presentCollection>;

export function collectionWithParams(row: CollectionRow, metadataBaseUrl: string) {
  return { collection: presentCollection(row), contractParams: deriveContractParams(row, metadataBaseUrl) };
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

/** Users may change their own collections; the service key may change any. */
export function assertCanModify(row: CollectionRow, caller: { userId: string | null; isService: boolean }) {
  if (caller.isService || row.user_id === null || row.user_id === caller.userId) return;
  throw forbidden('only the collection owner can change it');
}

export async function updateCollection(db: Db, id: string, patch: CollectionPatch): Promise<CollectionRow> {
  const current = await getCollection(db, id);
  if (patch.editions !== undefined && current.contract_address && patch.editions !== current.editions) {
    throw conflict('editions cannot change after deployment: the contract holds maxSupply (use the setMaxSupply admin action)');
  }
  if (patch.editions !== undefined && patch.editions < current.tokens_minted) {
    throw conflict(`editions cannot be below the ${current.tokens_minted} tokens already minted`);
  }
  const [row] = await db
    .update(collections)
    .set({ ...patch, updated_at: sql`now()` })
    .where(eq(collections.id, id))
    .returning();
  if (!row) throw notFound(`collection ${id}`);
  return row;
}

/**
 * The database part of reset (nft-service.md §3): clears the deployment fields and every deck's
 * mint state, in one transaction. The chain check (contract gone) is the caller's.
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

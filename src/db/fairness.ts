/**
 * Seed secrets and token receipts (docs/fairness.md): the secret of a collection's contract is
 * drawn once (insert-if-absent, so concurrent first mints agree on one); receipts are written
 * once per output.
 */
import { and, asc, eq, isNotNull, isNull, sql } from 'drizzle-orm';
import type { Db } from './client.ts';
import { collections, decks, exactDecks, jobs, outputs, seedSecrets, tokenReceipts } from './schema/index.ts';

export type SeedSecretRow = typeof seedSecrets.$inferSelect;

const contractIs = (chainId: number, address: string) =>
  and(eq(seedSecrets.chain_id, chainId), eq(seedSecrets.contract_address, address.toLowerCase()));

export async function seedSecretOf(db: Db, chainId: number, address: string): Promise<SeedSecretRow | undefined> {
  const [row] = await db.select().from(seedSecrets).where(contractIs(chainId, address));
  return row;
}

/** The contract's secret: `draw`'s when none was stored, else the one stored first (one winner). */
export async function drawSeedSecret(
  db: Db,
  row: { collectionId: string; chainId: number; address: string; secret: string; commitment: string },
): Promise<SeedSecretRow> {
  await db
    .insert(seedSecrets)
    .values({
      collection_id: row.collectionId,
      chain_id: row.chainId,
      contract_address: row.address.toLowerCase(),
      secret: row.secret,
      commitment: row.commitment,
    })
    .onConflictDoNothing();
  return (await seedSecretOf(db, row.chainId, row.address))!;
}

export async function markSeedCommitted(db: Db, chainId: number, address: string, txHash: string) {
  await db
    .update(seedSecrets)
    .set({ commit_tx_hash: txHash.toLowerCase() })
    .where(and(contractIs(chainId, address), isNull(seedSecrets.commit_tx_hash)));
}

export async function markSeedRevealed(db: Db, chainId: number, address: string, txHash: string) {
  await db
    .update(seedSecrets)
    .set({ reveal_tx_hash: txHash.toLowerCase(), revealed_at: sql`now()` })
    .where(and(contractIs(chainId, address), isNull(seedSecrets.reveal_tx_hash)));
}

/** Deployed collections whose contract has no committed secret yet (the commit duty's work). */
export async function collectionsToCommit(db: Db, limit = 20) {
  return db
    .select({ id: collections.id })
    .from(collections)
    .leftJoin(seedSecrets, secretOfCollection)
    .where(and(isNotNull(collections.contract_address), isNotNull(collections.chain_id), isNull(seedSecrets.commit_tx_hash)))
    .limit(limit);
}

/**
 * The supply at which a collection is sold out: max_supply (else editions), and for an exact
 * collection never more than editions, where the platform's mints stop (services/minting.ts
 * maxSupplyOf; docs/fairness.md "Exact counts").
 */
const saleSupply = sql`case when (${collections.data}->>'distribution') = 'exact'
  then least(coalesce(${collections.max_supply}, ${collections.editions}), ${collections.editions})
  else coalesce(${collections.max_supply}, ${collections.editions}) end`;

/** Sold-out collections whose committed secret is not revealed yet (the reveal duty's work). */
export async function soldOutUnrevealed(db: Db, limit = 20) {
  return db
    .select({ id: collections.id })
    .from(collections)
    .innerJoin(seedSecrets, secretOfCollection)
    .where(
      and(isNotNull(seedSecrets.commit_tx_hash), isNull(seedSecrets.reveal_tx_hash), sql`${collections.tokens_minted} >= ${saleSupply}`),
    )
    .limit(limit);
}

/** A minted token's artwork: the deck, its cover output and the job that made it. */
export async function tokenArtwork(db: Db, collectionId: string, tokenId: number) {
  const [row] = await db
    .select({
      deck_id: decks.id,
      mint_tx_hash: decks.mint_tx_hash,
      mint_status: decks.mint_status,
      output_id: outputs.id,
      output_status: outputs.status,
      output_url: outputs.url,
      output_metadata: outputs.output_metadata,
      job_id: jobs.id,
      job_data: jobs.data,
    })
    .from(decks)
    .leftJoin(outputs, eq(outputs.id, decks.cover_output_id))
    .leftJoin(jobs, eq(jobs.id, outputs.job_id))
    .where(and(eq(decks.collection_id, collectionId), eq(decks.token_id, tokenId)));
  return row;
}

export async function storedReceipt(db: Db, outputId: string) {
  const [row] = await db.select().from(tokenReceipts).where(eq(tokenReceipts.output_id, outputId));
  return row;
}

/** Written once per output; the first writer's receipt is the one kept. */
export async function storeReceipt(db: Db, r: { outputId: string; collectionId: string; tokenId: number; receipt: unknown; leaf: string }) {
  await db
    .insert(tokenReceipts)
    .values({ output_id: r.outputId, collection_id: r.collectionId, token_id: r.tokenId, receipt: r.receipt, leaf: r.leaf })
    .onConflictDoNothing();
  return (await storedReceipt(db, r.outputId))!;
}

/** The token ids of a collection's minted decks, ascending. */
export async function mintedTokenIds(db: Db, collectionId: string): Promise<number[]> {
  const rows = await db
    .select({ token_id: decks.token_id })
    .from(decks)
    .where(and(eq(decks.collection_id, collectionId), isNotNull(decks.token_id), eq(decks.mint_status, 'minted')))
    .orderBy(asc(decks.token_id));
  return rows.map((r) => Number(r.token_id));
}

// ---------------------------------------------------------------------------------------------
// Exact counts (docs/fairness.md "Exact counts")
// ---------------------------------------------------------------------------------------------

export type ExactDeckRow = typeof exactDecks.$inferSelect;

const exactIs = (chainId: number, address: string) =>
  and(eq(exactDecks.chain_id, chainId), eq(exactDecks.contract_address, address.toLowerCase()));
const isExactCollection = sql`(${collections.data}->>'distribution') = 'exact'`;
/** A collection's seed secret and exact deck rows: keyed by chain and lower-case contract address. */
const secretOfCollection = and(
  eq(seedSecrets.chain_id, collections.chain_id),
  eq(seedSecrets.contract_address, sql`lower(${collections.contract_address})`),
);
const deckOfCollection = and(
  eq(exactDecks.chain_id, collections.chain_id),
  eq(exactDecks.contract_address, sql`lower(${collections.contract_address})`),
);
const deployedCollection = and(isNotNull(collections.contract_address), isNotNull(collections.chain_id));

export async function exactDeckOf(db: Db, chainId: number, address: string): Promise<ExactDeckRow | undefined> {
  const [row] = await db.select().from(exactDecks).where(exactIs(chainId, address));
  return row;
}

/** Whether a deck was dealt for any contract of the collection (its counts are then fixed). */
export async function hasExactDeck(db: Db, collectionId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: exactDecks.collection_id })
    .from(exactDecks)
    .where(eq(exactDecks.collection_id, collectionId))
    .limit(1);
  return row !== undefined;
}

/** The contract's deck: this one when none was stored, else the one stored first (one winner). */
export async function storeExactDeck(
  db: Db,
  row: { collectionId: string; chainId: number; address: string; spec: unknown; deck: unknown; provenanceHash: string },
): Promise<ExactDeckRow> {
  await db
    .insert(exactDecks)
    .values({
      collection_id: row.collectionId,
      chain_id: row.chainId,
      contract_address: row.address.toLowerCase(),
      spec: row.spec,
      deck: row.deck,
      provenance_hash: row.provenanceHash,
    })
    .onConflictDoNothing();
  return (await exactDeckOf(db, row.chainId, row.address))!;
}

export async function markProvenanceSet(db: Db, chainId: number, address: string, txHash: string) {
  await db
    .update(exactDecks)
    .set({ provenance_tx_hash: txHash.toLowerCase() })
    .where(and(exactIs(chainId, address), isNull(exactDecks.provenance_tx_hash)));
}

/** The offset is recorded once: a second reveal pass finds the first one's. */
export async function recordRevealOffset(
  db: Db,
  chainId: number,
  address: string,
  o: { block: number; blockHash: string; offset: number },
) {
  await db
    .update(exactDecks)
    .set({ offset_block: o.block, offset_block_hash: o.blockHash.toLowerCase(), reveal_offset: o.offset })
    .where(and(exactIs(chainId, address), isNull(exactDecks.reveal_offset)));
}

export async function markDeckAssigned(db: Db, chainId: number, address: string) {
  await db
    .update(exactDecks)
    .set({ assigned_at: sql`now()` })
    .where(and(exactIs(chainId, address), isNull(exactDecks.assigned_at)));
}

export async function markBatchUpdateSent(db: Db, chainId: number, address: string, txHash: string) {
  await db
    .update(exactDecks)
    .set({ batch_update_tx_hash: txHash.toLowerCase() })
    .where(and(exactIs(chainId, address), isNull(exactDecks.batch_update_tx_hash)));
}

/** Deployed exact collections whose secret is committed and whose deck's provenance is not on chain yet. */
export async function exactCollectionsWithoutProvenance(db: Db, limit = 20) {
  return db
    .select({ id: collections.id })
    .from(collections)
    .innerJoin(seedSecrets, secretOfCollection)
    .leftJoin(exactDecks, and(eq(exactDecks.chain_id, seedSecrets.chain_id), eq(exactDecks.contract_address, seedSecrets.contract_address)))
    .where(and(deployedCollection, isExactCollection, isNotNull(seedSecrets.commit_tx_hash), isNull(exactDecks.provenance_tx_hash)))
    .limit(limit);
}

/**
 * Exact collections whose deck is published and whose sale is over (sold out, or past `mint_end`
 * with at least one token), and which are not assigned yet or, once the offset is recorded, have a
 * minted token whose cover is not the dealt artwork (a deck made late).
 */
export async function exactCollectionsToReveal(db: Db, limit = 20) {
  return db
    .select({ id: collections.id })
    .from(collections)
    .innerJoin(exactDecks, deckOfCollection)
    .where(
      and(
        isExactCollection,
        isNotNull(exactDecks.provenance_tx_hash),
        sql`(${exactDecks.assigned_at} is null or (${exactDecks.reveal_offset} is not null and exists (
               select 1 from decks d left join outputs o on o.id = d.cover_output_id left join jobs j on j.id = o.job_id
               where d.collection_id = ${collections.id} and d.token_id is not null and d.mint_status = 'minted'
                 and d.mint_tx_hash is not null and (j.data->'dealt') is null)))`,
        sql`(${collections.tokens_minted} >= ${saleSupply}
             or (${collections.mint_end} < now() and ${collections.tokens_minted} > 0))`,
      ),
    )
    .limit(limit);
}

/**
 * Exact collections whose deck is assigned and whose secret is not revealed yet (a reveal cut off
 * after the assignment, e.g. at `mint_end`): the exact-counts duty reveals it.
 */
export async function exactAssignedUnrevealed(db: Db, limit = 20) {
  return db
    .select({ id: collections.id })
    .from(collections)
    .innerJoin(exactDecks, deckOfCollection)
    .innerJoin(
      seedSecrets,
      and(eq(seedSecrets.chain_id, exactDecks.chain_id), eq(seedSecrets.contract_address, exactDecks.contract_address)),
    )
    .where(
      and(isExactCollection, isNotNull(exactDecks.assigned_at), isNotNull(seedSecrets.commit_tx_hash), isNull(seedSecrets.reveal_tx_hash)),
    )
    .limit(limit);
}

/** Dealt exact collections whose BatchMetadataUpdate is not sent yet. */
export async function exactCollectionsAwaitingBatchUpdate(db: Db, limit = 20) {
  return db
    .select({ id: collections.id })
    .from(collections)
    .innerJoin(exactDecks, deckOfCollection)
    .where(and(isNotNull(exactDecks.assigned_at), isNull(exactDecks.batch_update_tx_hash)))
    .limit(limit);
}

/** A collection's minted tokens with their mint transaction, whether their cover is the dealt artwork and its status, by token id. */
export async function mintedTokensOf(db: Db, collectionId: string) {
  const found = await db
    .select({
      token_id: decks.token_id,
      deck_id: decks.id,
      mint_tx_hash: decks.mint_tx_hash,
      mint_recipient: decks.mint_recipient,
      metadata_uri: decks.metadata_uri,
      cover_output_id: decks.cover_output_id,
      output_status: outputs.status,
      // The cover is the artwork the reveal dealt (its job data carries the deck position).
      dealt: sql<boolean>`coalesce((${jobs.data}->'dealt') is not null, false)`,
    })
    .from(decks)
    .leftJoin(outputs, eq(outputs.id, decks.cover_output_id))
    .leftJoin(jobs, eq(jobs.id, outputs.job_id))
    .where(and(eq(decks.collection_id, collectionId), isNotNull(decks.token_id), eq(decks.mint_status, 'minted')))
    .orderBy(asc(decks.token_id));
  return found.map((r) => ({ ...r, token_id: Number(r.token_id) }));
}

/**
 * Seed secrets and token receipts (docs/fairness.md): the secret of a collection's contract is
 * drawn once (insert-if-absent, so concurrent first mints agree on one); receipts are written
 * once per output.
 */
import { and, asc, eq, isNotNull, isNull, sql } from 'drizzle-orm';
import type { Db } from './client.ts';
import { collections, decks, jobs, outputs, seedSecrets, tokenReceipts } from './schema/index.ts';

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
    .leftJoin(
      seedSecrets,
      and(eq(seedSecrets.chain_id, collections.chain_id), eq(seedSecrets.contract_address, sql`lower(${collections.contract_address})`)),
    )
    .where(and(isNotNull(collections.contract_address), isNotNull(collections.chain_id), isNull(seedSecrets.commit_tx_hash)))
    .limit(limit);
}

/** Sold-out collections whose committed secret is not revealed yet (the reveal duty's work). */
export async function soldOutUnrevealed(db: Db, limit = 20) {
  return db
    .select({ id: collections.id })
    .from(collections)
    .innerJoin(
      seedSecrets,
      and(eq(seedSecrets.chain_id, collections.chain_id), eq(seedSecrets.contract_address, sql`lower(${collections.contract_address})`)),
    )
    .where(
      and(
        isNotNull(seedSecrets.commit_tx_hash),
        isNull(seedSecrets.reveal_tx_hash),
        sql`${collections.tokens_minted} >= coalesce(${collections.max_supply}, ${collections.editions})`,
      ),
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

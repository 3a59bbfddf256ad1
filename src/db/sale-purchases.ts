/**
 * The SQL of the purchase follower (services/sale-purchases.ts; docs/minting.md "On-chain sale"):
 * mints the indexer stored that nobody made a deck for, the purchase rows (unique per chain, tx,
 * log index and token), their claims, and the undoing of purchases a reorg removed.
 */
import { sql } from 'drizzle-orm';
import { storableText } from '../domain/text.ts';
import { rows, type Db } from './client.ts';
import { isDataException, sqlMessage } from './errors.ts';
import { salePurchases, saleScannedTxs } from './schema/index.ts';

export interface UnclaimedMint {
  tx_hash: string;
  block_number: number;
  collection_id: string;
  collection_address: string;
}

/**
 * Transactions with indexed mints (Transfer from zero) of our collections whose tokens have no
 * deck and no purchase row, and that the platform did not send (its own mints make their decks).
 * `skip`: transaction hashes the follower is holding back (their recording failed): they do not
 * take places in the window, so the transactions after them are read.
 */
export function unclaimedMintTxs(db: Db, chainId: number, skip: readonly string[] = [], limit = 50): Promise<UnclaimedMint[]> {
  const held =
    skip.length === 0
      ? sql``
      : sql`and lower(t.tx_hash) not in (${sql.join(
          skip.map((h) => sql`${h.toLowerCase()}`),
          sql`, `,
        )})`;
  return rows<UnclaimedMint>(
    db,
    sql`
    select distinct t.tx_hash, t.block_number::int as block_number, c.id as collection_id, t.collection_address
    from transfers t
    join collections c on c.chain_id = t.chain_id and lower(c.contract_address) = lower(t.collection_address)
    where t.chain_id = ${chainId} and t.from_address = '0x0000000000000000000000000000000000000000'
      and not exists (select 1 from decks d where d.collection_id = c.id and d.token_id = t.token_id)
      and not exists (select 1 from sale_purchases p where p.chain_id = t.chain_id and lower(p.tx_hash) = lower(t.tx_hash) and p.token_id = t.token_id)
      and not exists (select 1 from sale_scanned_txs s where s.chain_id = t.chain_id and s.tx_hash = lower(t.tx_hash))
      and not exists (select 1 from chain_transactions x where x.hash is not null and lower(x.hash) = lower(t.tx_hash))
      ${held}
    order by 2
    limit ${limit}`,
  );
}

export type NewPurchase = typeof salePurchases.$inferInsert;
export type PurchaseRow = typeof salePurchases.$inferSelect;

/** Inserts what is new, in chunks (a bound-parameter limit per statement); returns the rows this call inserted. */
export async function insertPurchases(db: Db, values: NewPurchase[]): Promise<PurchaseRow[]> {
  const out: PurchaseRow[] = [];
  for (let i = 0; i < values.length; i += 500) {
    out.push(
      ...(await db
        .insert(salePurchases)
        .values(values.slice(i, i + 500))
        .onConflictDoNothing()
        .returning()),
    );
  }
  return out;
}

/**
 * `insertPurchases`, except that a value PostgreSQL refuses (isDataException: the buyer's choices
 * as jsonb, say) is `{ refused }` with the database's message instead of an error, so the follower
 * can record the purchase without that value. A chunk refused inserts none of its rows; earlier
 * chunks stay (the unique key makes a retry insert only the rest).
 */
export async function tryInsertPurchases(db: Db, values: NewPurchase[]): Promise<{ inserted: PurchaseRow[] } | { refused: string }> {
  try {
    return { inserted: await insertPurchases(db, values) };
  } catch (err) {
    if (!isDataException(err)) throw err;
    return { refused: storableText(sqlMessage(err) ?? 'a value was refused').slice(0, 500) };
  }
}

/** A mint transaction without a Purchase: never read again. */
export async function markScanned(db: Db, chainId: number, txHash: string): Promise<void> {
  await db.insert(saleScannedTxs).values({ chain_id: chainId, tx_hash: txHash.toLowerCase() }).onConflictDoNothing();
}

/** A row whose start failed for a reason of its own: tried again after `ms`, later rows go on meanwhile. */
export async function backOffPurchase(db: Db, id: string, ms: number): Promise<void> {
  await db.execute(sql`update sale_purchases set lease_until = now() + (${ms} * interval '1 millisecond') where id = ${id}`);
}

/** Rows whose artwork is not started, claimed for `leaseMs` (a crashed start is taken over later). */
export function claimPurchases(db: Db, chainId: number, leaseMs: number, limit = 20): Promise<PurchaseRow[]> {
  return rows<PurchaseRow>(
    db,
    sql`
    update sale_purchases set lease_until = now() + (${leaseMs} * interval '1 millisecond')
    where id in (
      select id from sale_purchases
      where chain_id = ${chainId} and deck_id is null and (lease_until is null or lease_until < now())
      order by block_number, log_index, token_id
      limit ${limit}
      for update skip locked)
    returning *`,
  );
}

export async function markStarted(db: Db, id: string, deckId: string, jobId: string | null): Promise<void> {
  await db.execute(sql`update sale_purchases set deck_id = ${deckId}, job_id = ${jobId}, lease_until = null where id = ${id}`);
}

/**
 * Purchases whose mint the indexer no longer has (a reorg rolled it back) although it indexed past
 * their block (during a full reindex nothing counts as removed: the indexer is behind them).
 */
export function reorgedPurchases(db: Db, chainId: number): Promise<PurchaseRow[]> {
  return rows<PurchaseRow>(
    db,
    sql`
    select p.* from sale_purchases p
    join indexer_state s on s.id = ${`chain:${chainId}`}
    where p.chain_id = ${chainId} and s.status <> 'reindexing' and p.block_number <= s.last_indexed_block
      and not exists (
        select 1 from transfers t
        where t.chain_id = p.chain_id and lower(t.tx_hash) = lower(p.tx_hash) and t.token_id = p.token_id
          and t.from_address = '0x0000000000000000000000000000000000000000')`,
  );
}

/**
 * Undoes one reorged purchase in one transaction: its job fails ("cancelled"), its deck gives the
 * token id back, and the row goes (if the transaction is mined again, it is a new purchase).
 */
export async function cancelPurchase(db: Db, p: PurchaseRow): Promise<void> {
  await db.transaction(async (t) => {
    if (p.job_id) {
      await t.execute(sql`
        update jobs set status = 'failed', error_message = 'cancelled: the purchase was removed by a chain reorganization', updated_at = now()
        where id = ${p.job_id} and status not in ('completed', 'failed')`);
      await t.execute(sql`
        update job_steps set status = 'failed', error_message = 'cancelled: the purchase was removed by a chain reorganization', updated_at = now()
        where job_id = ${p.job_id} and status not in ('completed', 'failed')`);
    }
    if (p.deck_id) {
      await t.execute(sql`
        update decks set token_id = null, mint_tx_hash = null, mint_recipient = null, mint_status = null, minted_at = null,
          metadata_uri = null, updated_at = now()
        where id = ${p.deck_id} and token_id = ${p.token_id}`);
    }
    await t.execute(sql`delete from sale_purchases where id = ${p.id}`);
    await t.execute(sql`
      update collections c
      set tokens_minted = coalesce((select max(d.token_id) from decks d where d.collection_id = c.id), 0), updated_at = now()
      where c.id = ${p.collection_id}`);
  });
}

/** The buyer's choices did not resolve: the platform draws the variables, and the row says why. */
export async function markChoicesInvalid(db: Db, id: string, reason: string): Promise<void> {
  await db.execute(
    sql`update sale_purchases set choices_status = 'invalid', choices = ${JSON.stringify({ reason })}::jsonb where id = ${id}`,
  );
}

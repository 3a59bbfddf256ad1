/**
 * Deployment claims on `collections` (docs/chain-operations.md). A deployment claims its record
 * first (`mint_status = 'deploying'` in one conditional UPDATE, so one request deploys and a
 * concurrent one is refused), writes the deployment back conditionally, or gives the claim back
 * conditionally on the claim it read (a newer claim is never released). The claim's time is its
 * `updated_at`, which names the claim's chain transaction (services/deploy.ts).
 */
import { and, desc, eq, isNull, like, ne, or, sql } from 'drizzle-orm';
import type { Db } from './client.ts';
import type { CollectionRow } from './collections.ts';
import { chainTransactions, collections } from './schema/index.ts';
import { recordWebhookEvent } from './webhooks.ts';

/** The fields a deployment writes back. */
export interface DeploymentWrite {
  contract_address: string;
  chain_id: number;
  deploy_tx_hash: string;
  base_token_uri: string;
  max_supply?: number;
  royalty_bps?: number;
  royalty_receiver?: string;
  blockchain?: string;
}

/** Claims an undeployed record that nobody is deploying; undefined when that is not the case. */
export async function claimDeploy(db: Db, id: string): Promise<CollectionRow | undefined> {
  const [row] = await db
    .update(collections)
    .set({ mint_status: 'deploying', updated_at: sql`now()` })
    .where(and(eq(collections.id, id), isNull(collections.contract_address), ne(collections.mint_status, 'deploying')))
    .returning();
  return row;
}

/**
 * Writes a deployment onto a record that has none: `claimed` only while it is claimed (the
 * deploying request and the repair), `undeployed` whatever its status (the deploy-status write-back
 * of a deployment made elsewhere). Undefined when the record did not qualify.
 */
export async function finishDeploy(
  db: Db,
  id: string,
  write: DeploymentWrite,
  condition: 'claimed' | 'undeployed',
): Promise<CollectionRow | undefined> {
  return db.transaction(async (t) => {
    const [row] = await t
      .update(collections)
      // `status` is the record's lifecycle the console lists by; `mint_status` the deployment's.
      .set({ ...write, status: 'deployed', mint_status: 'deployed', updated_at: sql`now()` })
      .where(
        and(
          eq(collections.id, id),
          isNull(collections.contract_address),
          condition === 'claimed' ? eq(collections.mint_status, 'deploying') : undefined,
        ),
      )
      .returning();
    // The `collection.deployed` webhook event commits with the deployment (docs/webhooks.md).
    if (row) {
      await recordWebhookEvent(t, {
        key: `collection.deployed:${row.id}:${row.chain_id}:${String(row.contract_address).toLowerCase()}`,
        type: 'collection.deployed',
        ownerId: row.user_id,
        payload: {
          collection_id: row.id,
          chain_id: row.chain_id,
          contract_address: row.contract_address,
          deploy_tx_hash: row.deploy_tx_hash,
          title: row.title,
        },
      });
    }
    return row;
  });
}

/**
 * Gives a claim back (`mint_status` := `to`), only the claim made at `claimedAt` (ISO, milliseconds;
 * the column keeps microseconds, so it is compared truncated). True when released.
 */
export async function releaseDeploy(db: Db, id: string, claimedAt: string, to = 'draft'): Promise<boolean> {
  const rows = await db
    .update(collections)
    .set({ mint_status: to, updated_at: sql`now()` })
    .where(
      and(
        eq(collections.id, id),
        eq(collections.mint_status, 'deploying'),
        isNull(collections.contract_address),
        sql`date_trunc('milliseconds', ${collections.updated_at}) = ${claimedAt}::timestamptz`,
      ),
    )
    .returning({ id: collections.id });
  return rows.length > 0;
}

/** Records left `deploying` without a contract (the repair pass settles them). */
export async function deployingCollections(db: Db): Promise<string[]> {
  const rows = await db
    .select({ id: collections.id })
    .from(collections)
    .where(and(eq(collections.mint_status, 'deploying'), isNull(collections.contract_address)));
  return rows.map((r) => r.id);
}

/** A deployment transaction as the tx sender recorded it. */
export interface DeployTransaction {
  idempotency_key: string | null;
  status: string;
  chain_id: number;
  hash: string | null;
  to_address: string | null;
  data: string | null;
  receipt: unknown;
}

/** The newest chain transaction whose idempotency key starts with one of `prefixes`. */
export async function latestTransactionByKeyPrefix(db: Db, prefixes: string[]): Promise<DeployTransaction | undefined> {
  const [row] = await db
    .select({
      idempotency_key: chainTransactions.idempotency_key,
      status: chainTransactions.status,
      chain_id: chainTransactions.chain_id,
      hash: chainTransactions.hash,
      to_address: chainTransactions.to_address,
      data: chainTransactions.data,
      receipt: chainTransactions.receipt,
    })
    .from(chainTransactions)
    .where(or(...prefixes.map((p) => like(chainTransactions.idempotency_key, `${p.replace(/[\\%_]/g, '\\$&')}%`))))
    .orderBy(desc(chainTransactions.created_at))
    .limit(1);
  return row;
}

/**
 * The reads behind the console's views of collections (docs/collections.md "Console
 * views"): the collections list, a token page with traits and generation state, one token's
 * transfers and transactions, trait rarity and the activity feed. Read-only; keyset pagination.
 */
import { sql, type SQL } from 'drizzle-orm';
import { getAddress } from 'viem';
import { rows, type Db } from './client.ts';

/** A token's traits as stored (token_metadata.attributes at mint, else the generation's traits). */
const TRAITS = sql`(case
  when jsonb_typeof(o.token_metadata->'attributes') = 'array' then o.token_metadata->'attributes'
  when jsonb_typeof(o.input_metadata->'traits') = 'array' then o.input_metadata->'traits'
  else '[]'::jsonb end)`;

export interface CollectionListFilter {
  /** Only this owner's collections; undefined: every collection (the operator). */
  ownerId?: string;
  q?: string;
  status?: string;
  chainId?: number;
  /** Deployed at this contract address (case-insensitive). */
  contractAddress?: string;
  /** Keyset position: strictly older than (created_at, id). */
  after?: { createdAt: string; id: string };
  limit: number;
}

export interface CollectionListRow {
  id: string;
  title: string;
  status: string;
  mint_status: string;
  chain_id: number | null;
  is_global: boolean;
  contract_address: string | null;
  cover_image_url: string | null;
  editions: number;
  tokens_minted: number;
  max_supply: number | null;
  user_id: string | null;
  created_at: string;
}

/** Newest first; `limit + 1` rows so the caller knows whether there is a next page. */
export function listCollections(db: Db, f: CollectionListFilter): Promise<CollectionListRow[]> {
  const where: SQL[] = [sql`true`];
  if (f.ownerId !== undefined) where.push(sql`c.user_id = ${f.ownerId}`);
  if (f.q) where.push(sql`c.title ilike ${`%${f.q.replace(/[\\%_]/g, (m) => `\\${m}`)}%`}`);
  if (f.status) where.push(sql`c.status = ${f.status}`);
  if (f.chainId !== undefined) where.push(sql`c.chain_id = ${f.chainId}`);
  if (f.contractAddress) where.push(sql`lower(c.contract_address) = ${f.contractAddress.toLowerCase()}`);
  if (f.after) where.push(sql`(c.created_at, c.id) < (${f.after.createdAt}::timestamptz, ${f.after.id}::uuid)`);
  return rows<CollectionListRow>(
    db,
    sql`select c.id, c.title, c.status, c.mint_status, c.chain_id, c.is_global, c.contract_address, c.cover_image_url, c.editions,
          c.tokens_minted, c.max_supply, c.user_id,
          to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_at
        from collections c
        where ${sql.join(where, sql` and `)}
        order by c.created_at desc, c.id desc
        limit ${f.limit + 1}`,
  );
}

export interface TokenViewRow {
  deck_id: string;
  token_id: number;
  mint_status: string | null;
  mint_tx_hash: string | null;
  mint_recipient: string | null;
  minted_at: string | null;
  metadata_uri: string | null;
  current_owner: string | null;
  output_id: string | null;
  output_status: string | null;
  output_url: string | null;
  traits: Array<{ trait_type: string; value: unknown }>;
  job_id: string | null;
  job_status: string | null;
  job_progress: number | null;
}

const TOKEN_COLUMNS = sql`d.id as deck_id, d.token_id::float8 as token_id, d.mint_status, d.mint_tx_hash, d.mint_recipient,
  to_char(d.minted_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as minted_at, d.metadata_uri, d.current_owner,
  o.id as output_id, o.status as output_status, o.url as output_url, ${TRAITS} as traits,
  j.id as job_id, j.status as job_status, j.progress as job_progress`;

const TOKEN_FROM = sql`from decks d
  left join outputs o on o.id = d.cover_output_id
  left join jobs j on j.id = o.job_id`;

/** A trait filter: the token has a trait of this type with this value (compared as text). */
const hasTrait = (t: { type: string; value: string }) =>
  sql`exists (select 1 from jsonb_array_elements(${TRAITS}) a where a->>'trait_type' = ${t.type} and a->>'value' = ${t.value})`;

/** One page of minted tokens (by token id) matching every trait filter, and how many match. */
export async function tokenPage(
  db: Db,
  collectionId: string,
  opts: { traits: Array<{ type: string; value: string }>; page: number; limit: number },
): Promise<{ rows: TokenViewRow[]; total: number }> {
  const where = sql.join([sql`d.collection_id = ${collectionId}`, sql`d.token_id is not null`, ...opts.traits.map(hasTrait)], sql` and `);
  const [count] = await rows<{ n: number }>(
    db,
    sql`select count(*)::int as n from decks d left join outputs o on o.id = d.cover_output_id where ${where}`,
  );
  const found = await rows<TokenViewRow>(
    db,
    sql`select ${TOKEN_COLUMNS} ${TOKEN_FROM} where ${where}
        order by d.token_id limit ${opts.limit} offset ${(opts.page - 1) * opts.limit}`,
  );
  return { rows: found, total: Number(count?.n ?? 0) };
}

export async function tokenView(db: Db, collectionId: string, tokenId: number): Promise<TokenViewRow | undefined> {
  const [row] = await rows<TokenViewRow>(
    db,
    sql`select ${TOKEN_COLUMNS} ${TOKEN_FROM} where d.collection_id = ${collectionId} and d.token_id = ${tokenId}`,
  );
  return row;
}

/** Share of minted tokens per trait value. */
export async function traitCounts(
  db: Db,
  collectionId: string,
): Promise<{ minted: number; counts: Array<{ trait_type: string; value: string; n: number }> }> {
  const minted = sql`d.collection_id = ${collectionId} and d.token_id is not null and d.mint_status = 'minted'`;
  const [total] = await rows<{ n: number }>(db, sql`select count(*)::int as n from decks d where ${minted}`);
  const counts = await rows<{ trait_type: string; value: string; n: number }>(
    db,
    sql`select a->>'trait_type' as trait_type, a->>'value' as value, count(distinct d.id)::int as n
        from decks d left join outputs o on o.id = d.cover_output_id, jsonb_array_elements(${TRAITS}) a
        where ${minted} and a->>'trait_type' is not null
        group by 1, 2 order by 1, 3 desc, 2`,
  );
  return { minted: Number(total?.n ?? 0), counts };
}

export interface TransferViewRow {
  token_id: string;
  from_address: string;
  to_address: string;
  tx_hash: string;
  block_number: number;
  log_index: number;
  timestamp: string;
  /** A mint by an on-chain purchase the platform followed (sale_purchases): who paid what, and to whom. */
  buyer: string | null;
  currency: string | null;
  amount: string | null;
  quantity: number | null;
  payouts: Array<{ address: string; amount: string }> | null;
}

/**
 * The indexed transfers of a contract, newest first (block, log index), strictly before `before`;
 * one token's when `tokenId` is given. `limit + 1` rows.
 */
export function transfersOf(
  db: Db,
  contract: { chainId: number; address: string },
  opts: { tokenId?: number; before?: { block: number; log: number }; limit: number },
): Promise<TransferViewRow[]> {
  const where: SQL[] = [
    sql`t.chain_id = ${contract.chainId}`,
    sql`t.collection_address = ${getAddress(contract.address)}` /* stored checksummed (indexer/decode.ts): the index applies */,
  ];
  if (opts.tokenId !== undefined) where.push(sql`t.token_id = ${opts.tokenId}`);
  if (opts.before) where.push(sql`(t.block_number, t.log_index) < (${opts.before.block}, ${opts.before.log})`);
  return rows<TransferViewRow>(
    db,
    sql`select t.token_id::text as token_id, t.from_address, t.to_address, t.tx_hash, t.block_number::float8 as block_number,
          t.log_index, to_char(t.timestamp at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as timestamp,
          p.buyer, p.currency, p.amount::text as amount, p.quantity, p.payouts
        from transfers t
        left join sale_purchases p on p.chain_id = t.chain_id and p.tx_hash = lower(t.tx_hash) and p.token_id = t.token_id
        where ${sql.join(where, sql` and `)}
        order by t.block_number desc, t.log_index desc limit ${opts.limit + 1}`,
  );
}

/** The chain transactions of one token: its mint and the MetadataUpdates of its artwork. */
export function tokenTransactions(
  db: Db,
  mintTxHash: string | null,
  outputId: string | null,
): Promise<Array<{ purpose: string; hash: string | null; status: string; created_at: string }>> {
  return rows(
    db,
    sql`select purpose, hash, status, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_at
        from chain_transactions
        where (${mintTxHash}::text is not null and lower(hash) = lower(${mintTxHash}::text))
           or (${outputId}::text is not null and idempotency_key = 'metadata-update:' || ${outputId}::text)
        order by created_at`,
  );
}

/** The newest minted tokens of a collection (mint time, then token id, descending): the mint page's gallery. */
export function latestMints(db: Db, collectionId: string, limit: number): Promise<TokenViewRow[]> {
  return rows<TokenViewRow>(
    db,
    sql`select ${TOKEN_COLUMNS} ${TOKEN_FROM} where d.collection_id = ${collectionId} and d.token_id is not null
        order by d.minted_at desc nulls last, d.token_id desc limit ${limit}`,
  );
}

export interface GasSpentRow {
  transactions: number;
  /** Sum of gasUsed × effectiveGasPrice, wei as a decimal string. */
  gas_wei: string;
  gas_used: string;
}

/**
 * The gas the platform paid for one collection (docs/collections.md "Gas spent"): every recorded
 * chain transaction with a stored receipt (mined or reverted: both cost gas) that is its deploy
 * (by hash, a fee-bumped one too) or was sent to its contract (mints, admin calls, sale,
 * MetadataUpdate, seed commit and reveal). One statement, so the count and the sum agree.
 */
export async function collectionGasSpent(
  db: Db,
  c: { chainId: number | null; address: string | null; deployTxHash: string | null },
): Promise<GasSpentRow> {
  const [row] = await rows<GasSpentRow>(
    db,
    sql`select count(*)::int as transactions,
               coalesce(sum((receipt->>'gasUsed')::numeric * (receipt->>'effectiveGasPrice')::numeric), 0)::text as gas_wei,
               coalesce(sum((receipt->>'gasUsed')::numeric), 0)::text as gas_used
        from chain_transactions
        where receipt is not null and chain_id = ${c.chainId}::int
          and ((${c.address}::text is not null and lower(to_address) = lower(${c.address}::text))
            or (${c.deployTxHash}::text is not null and (lower(hash) = lower(${c.deployTxHash}::text)
                or replaced_hashes @> jsonb_build_array(lower(${c.deployTxHash}::text)))))`,
  );
  return row!;
}

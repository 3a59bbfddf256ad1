/**
 * Crash repair: finishes database records whose chain write is already final in
 * `chain_transactions` but whose request died before writing them (docs/minting.md, docs/chain-operations.md).
 *
 * - Mints: a mined `mint` transaction whose receipt names token ids (Transfer from 0x0 on the
 *   collection) with no deck gets one deck per missing token, with the mint state from the receipt
 *   and no artwork (like the design-stage mint; POST /nft/collections/:id/generate starts it).
 * - Design-stage deploys: a collection left `deploying` is finished from its `design-deploy:<id>:…`
 *   transaction (address from CollectionCreated, parameters from the calldata), or released
 *   (`draft`) when that transaction failed/reverted or none was recorded within the grace period.
 *
 * Only the database is read: the sender stored each receipt when the transaction was mined.
 * Everything is conditional and keyed by unique indexes, so replicas may run it at once.
 */
import { and, eq, like, desc, sql } from 'drizzle-orm';
import { decodeFunctionData, getAddress, parseEventLogs, zeroAddress, type Address, type Log } from 'viem';
import { collectionAbi, diamondFactoryAbi } from '../../contracts/abi/index.ts';
import type { Db } from '../db/client.ts';
import { createMintedDeck, findTokenDeck, recordMinted } from '../db/minting.ts';
import { chainTransactions, collections } from '../db/schema/index.ts';
import { tokenUrl } from '../domain/metadata.ts';

const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const ZERO_TOPIC = `0x${'0'.repeat(64)}`;

export interface RepairOptions {
  /** Leave rows younger than this alone: their request may still be writing them. Default 60 s. */
  graceMs?: number;
  /** Look back this far for mint transactions. Default 7 days. */
  lookbackMs?: number;
}

function rowsOf<T>(result: unknown): T[] {
  return ((result as { rows?: T[] }).rows ?? (result as T[])) as T[];
}

function logsOf(receipt: unknown): Log[] {
  const logs = (receipt as { logs?: unknown[] } | null)?.logs;
  return Array.isArray(logs) ? (logs as Log[]) : [];
}

/** Creates the missing decks of mined mints; returns how many decks it created. */
export async function repairMints(db: Db, metadataBaseUrl: string, opts: RepairOptions = {}): Promise<number> {
  const graceS = (opts.graceMs ?? 60_000) / 1000;
  const lookbackS = (opts.lookbackMs ?? 7 * 24 * 3600_000) / 1000;
  // Candidates: mined mints with fewer decks carrying their hash than minted tokens in the receipt.
  const result = await db.execute(sql`
    select t.hash, t.receipt, t.to_address, c.id as collection_id, c.title
    from chain_transactions t
    join collections c on c.chain_id = t.chain_id and lower(c.contract_address) = lower(t.to_address)
    where t.purpose = 'mint' and t.status = 'mined' and t.receipt is not null
      and t.updated_at < now() - make_interval(secs => ${graceS})
      and t.updated_at > now() - make_interval(secs => ${lookbackS})
      and (select count(*) from decks d where d.collection_id = c.id and lower(d.mint_tx_hash) = lower(t.hash))
        < (select count(*) from jsonb_array_elements(t.receipt->'logs') l
           where lower(l->>'address') = lower(t.to_address)
             and l->'topics'->>0 = ${TRANSFER_TOPIC} and l->'topics'->>1 = ${ZERO_TOPIC})
    order by t.updated_at
    limit 100`);
  let created = 0;
  for (const row of rowsOf<{ hash: string; receipt: unknown; to_address: string; collection_id: string; title: string }>(result)) {
    const minted = parseEventLogs({ abi: collectionAbi, logs: logsOf(row.receipt), eventName: 'Transfer', strict: false })
      .filter(
        (l) => l.address.toLowerCase() === row.to_address.toLowerCase() && l.args.from === zeroAddress && l.args.tokenId !== undefined,
      )
      .map((l) => ({ tokenId: Number(l.args.tokenId), recipient: getAddress(l.args.to as Address) }));
    for (const m of minted) {
      if (await findTokenDeck(db, row.collection_id, m.tokenId)) continue;
      const deck = await createMintedDeck(db, {
        collectionId: row.collection_id,
        title: row.title,
        tokenId: m.tokenId,
        txHash: row.hash,
        recipient: m.recipient,
        metadataUri: tokenUrl(metadataBaseUrl, row.collection_id, m.tokenId),
        userId: null,
      });
      if (deck) created++;
    }
    if (minted.length > 0) await recordMinted(db, row.collection_id, Math.max(...minted.map((m) => m.tokenId)));
  }
  return created;
}

export const designDeployKeyPrefix = (collectionId: string) => `design-deploy:${collectionId}:`;

export type DeployRepair = 'finished' | 'released' | 'pending' | 'none';

/**
 * Settles one collection left `deploying`: 'finished' (recorded from the receipt), 'released'
 * (back to `draft`: the transaction failed or reverted, or none was recorded within graceMs of the
 * claim), 'pending' (its transaction is still in flight, or the claim is young), 'none' (not deploying).
 */
export async function repairDeploy(db: Db, collectionId: string, opts: { graceMs?: number } = {}): Promise<DeployRepair> {
  const [c] = await db.select().from(collections).where(eq(collections.id, collectionId));
  if (!c || c.mint_status !== 'deploying' || c.contract_address) return 'none';
  const [tx] = await db
    .select()
    .from(chainTransactions)
    .where(like(chainTransactions.idempotency_key, `${designDeployKeyPrefix(c.id)}%`))
    .orderBy(desc(chainTransactions.created_at))
    .limit(1);
  // Conditional on the claim we read: a newer claim (new updated_at) is left alone.
  // (Dates carry milliseconds, the column microseconds: compare truncated.)
  const sameClaim = and(
    eq(collections.id, c.id),
    eq(collections.mint_status, 'deploying'),
    sql`date_trunc('milliseconds', ${collections.updated_at}) = ${c.updated_at.toISOString()}::timestamptz`,
  );
  const release = async () => {
    const rows = await db
      .update(collections)
      .set({ mint_status: 'draft', updated_at: sql`now()` })
      .where(sameClaim)
      .returning({ id: collections.id });
    return rows.length > 0 ? 'released' : 'pending';
  };
  const claimKey = `${designDeployKeyPrefix(c.id)}${c.updated_at.toISOString()}`;
  const claimAgeMs = Date.now() - c.updated_at.getTime();
  if (!tx || (tx.idempotency_key !== claimKey && tx.status !== 'mined')) {
    // Nothing sent for this claim: the request died before sending (or is still reading the chain).
    return claimAgeMs >= (opts.graceMs ?? 300_000) ? release() : 'pending';
  }
  if (tx.status === 'failed' || tx.status === 'reverted' || tx.status === 'dropped') return release();
  if (tx.status !== 'mined') return 'pending';
  const factory = getAddress(tx.to_address!);
  const created = parseEventLogs({ abi: diamondFactoryAbi, eventName: 'CollectionCreated', logs: logsOf(tx.receipt), strict: false }).find(
    (l) => getAddress(l.address) === factory,
  );
  const diamond = (created?.args as { diamond?: Address } | undefined)?.diamond;
  if (!diamond) return release();
  const { args } = decodeFunctionData({ abi: diamondFactoryAbi, data: tx.data as `0x${string}` });
  const p = (args as unknown as [{ baseURI: string; maxSupply: bigint; royaltyReceiver: Address; royaltyBps: bigint | number }])[0];
  const rows = await db
    .update(collections)
    .set({
      contract_address: getAddress(diamond),
      chain_id: tx.chain_id,
      deploy_tx_hash: tx.hash!.toLowerCase(),
      base_token_uri: p.baseURI,
      max_supply: Number(p.maxSupply),
      royalty_bps: Number(p.royaltyBps),
      royalty_receiver: getAddress(p.royaltyReceiver),
      blockchain: 'ARBITRUM',
      mint_status: 'deployed',
      updated_at: sql`now()`,
    })
    .where(and(eq(collections.id, c.id), eq(collections.mint_status, 'deploying'), sql`${collections.contract_address} is null`))
    .returning({ id: collections.id });
  return rows.length > 0 ? 'finished' : 'pending';
}

/** Settles every collection left `deploying`; returns how many were finished or released. */
export async function repairDeploys(db: Db, opts: { graceMs?: number } = {}): Promise<{ finished: number; released: number }> {
  const stuck = await db
    .select({ id: collections.id })
    .from(collections)
    .where(and(eq(collections.mint_status, 'deploying'), sql`${collections.contract_address} is null`));
  const out = { finished: 0, released: 0 };
  for (const { id } of stuck) {
    const r = await repairDeploy(db, id, opts);
    if (r === 'finished') out.finished++;
    if (r === 'released') out.released++;
  }
  return out;
}

export interface Repairer {
  stop(): Promise<void>;
}

/** Runs both repairs now and every intervalMs (default 30 s). Safe in every replica. */
export function startRepairer(
  db: Db,
  opts: {
    metadataBaseUrl: string;
    intervalMs?: number;
    onError?: (err: unknown) => void;
    onRepaired?: (what: Record<string, number>) => void;
  },
): Repairer {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    if (stopped) return;
    running = (async () => {
      const decks = await repairMints(db, opts.metadataBaseUrl);
      const deploys = await repairDeploys(db);
      if (decks + deploys.finished + deploys.released > 0) opts.onRepaired?.({ decks, ...deploys });
    })()
      .catch((err) => opts.onError?.(err))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, opts.intervalMs ?? 30_000);
      });
  };
  timer = setTimeout(tick, 0);
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}

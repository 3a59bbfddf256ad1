/**
 * ERC-4906: when a minted token's artwork completes, emit MetadataUpdate(tokenId) on its
 * collection, once. A small poller finds minted decks whose cover output is completed and that
 * have no `metadata-update:<outputId>` transaction yet, and sends one through the TxSender with
 * that idempotency key. It needs no hook in the worker (which may run in another process), and a
 * crash between completion and emission is picked up on the next tick. docs/minting.md.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { emitMetadataUpdate, type MintingChainAccess } from './mint.ts';

export const metadataUpdateKey = (outputId: string) => `metadata-update:${outputId}`;

interface Pending {
  output_id: string;
  token_id: number;
  contract_address: string;
  chain_id: number;
}

/** One pass: emits the pending updates (at most `limit`), returns how many were sent. */
export async function emitPendingMetadataUpdates(
  db: Db,
  chain: MintingChainAccess,
  limit = 50,
  chainIds?: number[],
  onError?: (err: unknown) => void,
): Promise<number> {
  const result = await db.execute(sql`
    select o.id as output_id, d.token_id, c.contract_address, c.chain_id
    from decks d
    join outputs o on o.id = d.cover_output_id
    join collections c on c.id = d.collection_id
    where d.mint_status = 'minted' and d.token_id is not null and o.status = 'completed'
      and c.contract_address is not null and c.chain_id is not null
      and o.completed_at > now() - interval '7 days'
      and not exists (select 1 from chain_transactions t where t.idempotency_key = 'metadata-update:' || o.id::text)
    order by o.completed_at
    limit ${limit}`);
  const rows = ((result as unknown as { rows?: Pending[] }).rows ?? (result as unknown as Pending[])) as Pending[];
  let sent = 0;
  for (const row of rows) {
    if (chainIds && !chainIds.includes(Number(row.chain_id))) continue;
    try {
      await emitMetadataUpdate(chain, {
        chainId: Number(row.chain_id),
        collection: row.contract_address,
        tokenId: Number(row.token_id),
        idempotencyKey: metadataUpdateKey(row.output_id),
      });
      sent++;
    } catch (err) {
      onError?.(err); // one token's failure does not hold back the others
    }
  }
  return sent;
}

export interface MetadataUpdater {
  stop(): Promise<void>;
}

export function startMetadataUpdater(
  db: Db,
  chain: MintingChainAccess,
  opts: { intervalMs?: number; chainIds?: number[]; onError?: (err: unknown) => void } = {},
): MetadataUpdater {
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    if (stopped) return;
    running = emitPendingMetadataUpdates(db, chain, 50, opts.chainIds, opts.onError)
      .catch((err) => opts.onError?.(err))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, opts.intervalMs ?? 2000);
      });
  };
  let timer = setTimeout(tick, 0);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

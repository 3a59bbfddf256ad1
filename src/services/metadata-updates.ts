/**
 * ERC-4906 (docs/minting.md "ERC-4906 MetadataUpdate"): when a minted token's artwork completes,
 * MetadataUpdate(tokenId) is emitted on its collection, once per artwork. A small poller finds
 * minted tokens whose cover output completed and that have no `metadata-update:<outputId>`
 * transaction yet, and sends one through the tx sender under that idempotency key. No hook in the
 * worker (which may run in another process) is needed, a crash between completion and emission is
 * picked up on the next tick. One process runs it (the `metadata-updates` lease, src/duties/metadata-updates.ts),
 * and were two to run it at once the key would still keep the send single.
 */
import type { PendingMetadataUpdate } from '../db/minting.ts';

export const METADATA_UPDATE_KEY_PREFIX = 'metadata-update:';
export const metadataUpdateKey = (outputId: string) => `${METADATA_UPDATE_KEY_PREFIX}${outputId}`;

export interface MetadataUpdatePorts {
  /** Tokens whose MetadataUpdate is due, oldest first (db/minting.ts). */
  pending(limit: number): Promise<PendingMetadataUpdate[]>;
  /** emitMetadataUpdate through the chain's tx sender (chain/mint.ts). */
  emit(req: { chainId: number; collection: string; tokenId: number; idempotencyKey: string }): Promise<unknown>;
}

/**
 * One pass: emits the pending updates (at most `limit`, `concurrency` at a time), returns how many
 * were sent. Concurrent because each emit waits for its receipt: one at a time (as it was), the
 * single leased emitter managed about 10 a second and fell behind two replicas minting ~29 a
 * second (npm run soak:topology). The tx sender still assigns the nonces one by one.
 */
export async function emitPendingMetadataUpdates(
  ports: MetadataUpdatePorts,
  opts: { limit?: number; concurrency?: number; chainIds?: number[]; onError?: (err: unknown) => void } = {},
): Promise<number> {
  let sent = 0;
  const rows = (await ports.pending(opts.limit ?? 200)).filter((row) => !opts.chainIds || opts.chainIds.includes(row.chain_id));
  let next = 0;
  const lane = async () => {
    while (next < rows.length) {
      const row = rows[next++]!;
      try {
        await ports.emit({
          chainId: row.chain_id,
          collection: row.contract_address,
          tokenId: row.token_id,
          idempotencyKey: metadataUpdateKey(row.output_id),
        });
        sent++;
      } catch (err) {
        opts.onError?.(err); // one token's failure does not hold back the others
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 16) }, lane));
  return sent;
}

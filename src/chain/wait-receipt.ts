/**
 * Waiting for a receipt by asking for it. viem 2.57's waitForTransactionReceipt fetches the
 * receipt when a new block arrives; on a chain that mines only when it receives a transaction
 * (anvil's automine) a receipt missed on the first look may never be looked for again, and the
 * wait hangs until its timeout. Polling eth_getTransactionReceipt has no such gap.
 */
import type { Hash, PublicClient, TransactionReceipt } from 'viem';

export async function waitForReceipt(
  client: Pick<PublicClient, 'getTransactionReceipt'>,
  hash: Hash,
  opts: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<TransactionReceipt> {
  const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
  const interval = opts.intervalMs ?? 50;
  for (;;) {
    try {
      return await client.getTransactionReceipt({ hash });
    } catch (err) {
      if ((err as Error).name !== 'TransactionReceiptNotFoundError') throw err;
    }
    if (Date.now() > deadline) throw new Error(`no receipt for ${hash} after ${opts.timeoutMs ?? 120_000} ms`);
    await new Promise((r) => setTimeout(r, interval));
  }
}

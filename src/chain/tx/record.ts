/**
 * Recording an intent: the first thing a send does, before any nonce or signature. With an
 * idempotency key the unique index makes the record once (`ON CONFLICT DO NOTHING`); a repeat,
 * concurrent or later, in any process, gets the recorded row, or IdempotencyConflictError when
 * the key was used for a different write.
 */
import { findByIdempotencyKey, insertIntent, type ChainTransaction, type Wallet } from '../../db/chain-transactions.ts';
import type { Db } from '../../db/client.ts';
import { IdempotencyConflictError, type TxRequest } from './api.ts';
import { intentOf, sameWrite } from './intent.ts';

export async function recordIntent(db: Db, wallet: Wallet, req: TxRequest): Promise<ChainTransaction> {
  const intent = intentOf(req, wallet);
  const row = await insertIntent(db, intent);
  if (row) return row;
  const key = req.idempotencyKey;
  if (!key) throw new Error('chain transaction insert returned no row');
  const existing = await findByIdempotencyKey(db, key);
  if (!existing || !sameWrite(existing, intent)) throw new IdempotencyConflictError(key);
  return existing;
}

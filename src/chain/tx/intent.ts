/**
 * A send request as the row records it (pure): checked, then normalized to the stored forms
 * (checksummed `to`, lowercase `data`, decimal wei), so an idempotency key's repeat compares
 * equal whatever casing the caller used.
 */
import { getAddress } from 'viem';
import type { TxIntent, Wallet } from '../../db/chain-transactions.ts';
import type { TxRequest } from './api.ts';

/** Throws on a request that can never be sent (the message names the field). */
export function checkRequest(req: TxRequest): void {
  if (!req.purpose || req.purpose.length > 50) throw new Error('purpose: 1 to 50 characters');
  if (req.value !== undefined && req.value < 0n) throw new Error('value: must not be negative');
  if (!req.to && !req.data) throw new Error('a contract creation needs data (init code)');
}

export function intentOf(req: TxRequest, wallet: Wallet): TxIntent {
  return {
    purpose: req.purpose,
    chain_id: wallet.chainId,
    from_address: wallet.address,
    to_address: req.to ? getAddress(req.to) : null,
    data: req.data ? req.data.toLowerCase() : null,
    value: (req.value ?? 0n).toString(),
    idempotency_key: req.idempotencyKey ?? null,
  };
}

/** Whether a recorded row is the same write as an intent (chain, wallet, to, data, value); purpose and gas do not count. */
export function sameWrite(recorded: Omit<TxIntent, 'purpose' | 'idempotency_key'>, intent: TxIntent): boolean {
  return (
    recorded.chain_id === intent.chain_id &&
    recorded.from_address.toLowerCase() === intent.from_address.toLowerCase() &&
    (recorded.to_address ?? '').toLowerCase() === (intent.to_address ?? '').toLowerCase() &&
    (recorded.data ?? '') === (intent.data ?? '') &&
    BigInt(recorded.value) === BigInt(intent.value)
  );
}

/**
 * The transaction sender's record of a chain write and its states: owned by the sender's decisions
 * (src/chain/tx/decisions.ts, the state machine in its header), which read rows as `TxRecord`;
 * kept by src/db/chain-transactions.ts, whose queries take the status sets below and which
 * asserts that its row is `TxRecord`. Pure types and constants, in src/domain so that both sides
 * import them and neither imports the other.
 */

/** `dropped`: finished on a dev chain that was reset since (anvil restarted without state); its nonce is released. */
export type TxStatus = 'queued' | 'signed' | 'sent' | 'mined' | 'reverted' | 'failed' | 'dropped';
/** Not final yet: reconcile picks these up. */
export const UNFINISHED: readonly TxStatus[] = ['queued', 'signed', 'sent'];
/** Signed, so holding a nonce, and not final. */
export const IN_FLIGHT: readonly TxStatus[] = ['signed', 'sent'];

/** One recorded chain write (the `chain_transactions` row). */
export interface TxRecord {
  id: string;
  idempotency_key: string | null;
  purpose: string;
  chain_id: number;
  /** Checksummed. */
  from_address: string;
  to_address: string | null;
  /** Lowercase hex. */
  data: string | null;
  /** wei, decimal */
  value: string;
  nonce: number | null;
  hash: string | null;
  /** The signed raw transaction of `hash`, stored before broadcast so a restart can resend it. */
  raw_tx: string | null;
  /** Earlier hashes of this nonce (fee-bump replacements), oldest first. */
  replaced_hashes: string[];
  /** A TxStatus. */
  status: string;
  attempts: number;
  receipt: unknown;
  error: string | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * The transaction sender's old path, kept for its importers: the sender lives in src/chain/tx/
 * (entry point tx/sender.ts, public types and errors tx/api.ts). New code imports from there.
 */
export { createTxSender } from './tx/sender.ts';
export {
  IdempotencyConflictError,
  TxFailedError,
  TxTimeoutError,
  type ReconcileSummary,
  type TxRequest,
  type TxResult,
  type TxRow,
  type TxSender,
  type TxSenderDeps,
  type TxSenderOptions,
  type TxStatus,
} from './tx/api.ts';

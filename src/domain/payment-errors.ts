/** Errors of paid samples (docs/minting.md): 402 with a `code`, except a replayed hash (409). */
import { AppError } from './errors.ts';

export type PaymentErrorCode =
  | 'PAYMENT_NOT_FOUND'
  | 'PAYMENT_PENDING'
  | 'PAYMENT_UNCONFIRMED'
  | 'PAYMENT_REVERTED'
  | 'PAYMENT_WRONG_TOKEN'
  | 'PAYMENT_WRONG_RECIPIENT'
  | 'PAYMENT_WRONG_PAYER'
  | 'PAYMENT_INSUFFICIENT'
  | 'PAYMENT_ALREADY_USED'
  | 'PAYMENT_REQUIRED';

export function paymentError(code: PaymentErrorCode, message: string, extra: Record<string, unknown> = {}): AppError {
  return new AppError(code === 'PAYMENT_ALREADY_USED' ? 'conflict' : 'payment_required', message, { code, ...extra });
}

/** The refusal of a generation the caller's credits do not cover (docs/jobs.md "Credits"): 402. */
import { AppError } from './errors.ts';

export class InsufficientCredits extends AppError {
  constructor(needed: number, balance: number) {
    super(
      'payment_required',
      `Insufficient credits: not enough credits for this generation (it needs ${needed} credit${needed === 1 ? '' : 's'}, the balance is ${balance})`,
      {
        code: 'INSUFFICIENT_CREDITS',
        required: needed,
        balance,
      },
    );
  }
}

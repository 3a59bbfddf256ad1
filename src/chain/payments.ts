/**
 * Stablecoin payment verification for paid samples (docs/api/nft.md §4.1.2, DESIGN.md: a payment
 * hash is accepted once, only with the right token, recipient, payer, amount and enough
 * confirmations). Read-only: the replay guard is the unique (chain_id, tx_hash) index of
 * `payments`, written by the caller (src/db/samples.ts). Rules: docs/minting.md.
 */
import { getAddress, parseEventLogs, type Address, type Hex, type PublicClient } from 'viem';
import { erc20Abi } from 'viem';
import { AppError } from '../domain/errors.ts';
import { paymentError } from '../domain/payment-errors.ts';

export { paymentError };

export interface PaymentRequirement {
  chainId: number;
  txHash: Hex;
  token: Address;
  payer: Address;
  recipient: Address;
  /** Smallest accepted amount, in token units. */
  minAmount: bigint;
  confirmations: number;
}

export interface VerifiedPayment {
  chainId: number;
  txHash: Hex;
  token: Address;
  payer: Address;
  recipient: Address;
  amount: bigint;
  blockNumber: bigint;
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

function isNotFound(err: unknown): boolean {
  const name = (err as { name?: string })?.name ?? '';
  return /NotFound/.test(name) || /could not be found/i.test(String((err as Error)?.message));
}

export async function verifyPayment(client: PublicClient, req: PaymentRequirement): Promise<VerifiedPayment> {
  let receipt;
  try {
    receipt = await client.getTransactionReceipt({ hash: req.txHash });
  } catch (err) {
    if (!isNotFound(err))
      throw new AppError('upstream', `chain ${req.chainId}: could not read the receipt of ${req.txHash}: ${(err as Error).message}`);
    let known = false;
    try {
      await client.getTransaction({ hash: req.txHash });
      known = true;
    } catch (e) {
      if (!isNotFound(e))
        throw new AppError('upstream', `chain ${req.chainId}: could not read transaction ${req.txHash}: ${(e as Error).message}`);
    }
    if (known) {
      throw paymentError(
        'PAYMENT_PENDING',
        `body.tx_hash: transaction ${req.txHash} is not mined yet; send the request again once it is confirmed`,
      );
    }
    throw paymentError('PAYMENT_NOT_FOUND', `body.tx_hash: transaction ${req.txHash} was not found on chain ${req.chainId}`);
  }
  if (receipt.status !== 'success') {
    throw paymentError('PAYMENT_REVERTED', `body.tx_hash: transaction ${req.txHash} reverted; no payment was made`);
  }
  const head = await client.getBlockNumber({ cacheTime: 0 });
  const confirmations = Number(head - receipt.blockNumber + 1n);
  if (confirmations < req.confirmations) {
    throw paymentError(
      'PAYMENT_UNCONFIRMED',
      `body.tx_hash: transaction ${req.txHash} has ${confirmations} confirmation(s), ${req.confirmations} are required; send the request again shortly`,
      { confirmations, required: req.confirmations },
    );
  }
  const transfers = parseEventLogs({ abi: erc20Abi, logs: receipt.logs, eventName: 'Transfer', strict: false });
  const ofToken = transfers.filter((l) => same(l.address, req.token));
  const expected = {
    token: getAddress(req.token),
    recipient: getAddress(req.recipient),
    payer: getAddress(req.payer),
    amount: req.minAmount.toString(),
  };
  if (ofToken.length === 0) {
    throw paymentError(
      'PAYMENT_WRONG_TOKEN',
      `body.tx_hash: transaction ${req.txHash} transfers no ${expected.token} (the accepted stablecoin)`,
      { expected },
    );
  }
  const toRecipient = ofToken.filter((l) => l.args.to && same(l.args.to, req.recipient));
  if (toRecipient.length === 0) {
    throw paymentError(
      'PAYMENT_WRONG_RECIPIENT',
      `body.tx_hash: transaction ${req.txHash} does not pay the compute recipient ${expected.recipient}`,
      { expected },
    );
  }
  const fromPayer = toRecipient.filter((l) => l.args.from && same(l.args.from, req.payer));
  if (fromPayer.length === 0) {
    throw paymentError('PAYMENT_WRONG_PAYER', `body.tx_hash: the transfer in ${req.txHash} is not from wallet_address ${expected.payer}`, {
      expected,
    });
  }
  const amount = fromPayer.reduce((sum, l) => sum + (l.args.value ?? 0n), 0n);
  if (amount < req.minAmount) {
    throw paymentError(
      'PAYMENT_INSUFFICIENT',
      `body.tx_hash: transaction ${req.txHash} pays ${amount} token units, ${req.minAmount} are required (count × compute_cost_per_sample)`,
      { expected, paid: amount.toString() },
    );
  }
  return {
    chainId: req.chainId,
    txHash: req.txHash,
    token: expected.token,
    payer: expected.payer,
    recipient: expected.recipient,
    amount,
    blockNumber: receipt.blockNumber,
  };
}

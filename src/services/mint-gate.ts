/**
 * Who may mint, and what they pay, before the chain is touched (docs/minting.md "Mint policy").
 *
 * The owner of a collection and the operator mint free (domain/policy.ts `collection.mint`).
 * Anyone else signed in mints only when the collection's policy admits it (domain/mint-policy.ts:
 * public access, inside the window, on the allowlist), to a wallet they proved with Sign-In with
 * Ethereum (the recipient, which is also the payer and the wallet counted), under max_per_wallet
 * (one conditional statement), and with a verified stablecoin payment of mint_price × quantity
 * from that wallet to the collection's payout address, its hash accepted once. Everything taken
 * is given back by `undo` when the mint then fails.
 */
import { getAddress, type Address, type Hex } from 'viem';
import type { CollectionRow } from '../db/collections.ts';
import type { EarlierMintPayment } from '../db/mint-policy.ts';
import type { PaymentRecord } from '../db/samples.ts';
import { AppError, conflict, invalid } from '../domain/errors.ts';
import { mintPriceOf, publicMintRefusal } from '../domain/mint-policy.ts';
import { paymentError } from '../domain/payment-errors.ts';
import { authorize, can, type Caller } from '../domain/policy.ts';
import { requirePayerOf, type PaymentChain } from './samples.ts';

export interface MintGateStore {
  isWalletOf(userId: string, address: string): Promise<boolean>;
  takeWalletMints(collectionId: string, wallet: string, n: number, limit: number): Promise<boolean>;
  returnWalletMints(collectionId: string, wallet: string, n: number): Promise<void>;
  walletMintCount(collectionId: string, wallet: string): Promise<number>;
  /** `requestKey`: the request's chain-write key, so a retry of it after a crash may use the claim again. */
  claimMintPayment(p: PaymentRecord, collectionId: string, requestKey?: string): Promise<string>;
  releaseMintPayment(paymentId: string): Promise<void>;
  earlierMintPayment(q: {
    chainId: number;
    txHash: string;
    payer: string;
    collectionId: string;
    senderKey: string;
  }): Promise<EarlierMintPayment | null>;
}

export interface MintGatePorts {
  store: MintGateStore;
  /** Absent: no chain; a paid public mint answers 503. */
  payments?: PaymentChain;
  now?: () => Date;
}

export interface MintRequest {
  recipient: string;
  quantity: number;
  tx_hash?: string;
  merkle_proof?: string[];
  outputId?: string;
  /** The request's chain-write key (Idempotency-Key scope): a retry of a timed-out paid mint resumes. */
  senderKey?: string;
}

export interface Admission {
  /** 'owner': the owner or the operator (free); 'public': admitted by the mint policy. */
  as: 'owner' | 'public';
  /** Gives back the per-wallet count and the payment claim (the mint did not happen). */
  undo(): Promise<void>;
}

const NOTHING = async () => undefined;

export type MintGate = ReturnType<typeof createMintGate>;

export function createMintGate({ store, payments, now = () => new Date() }: MintGatePorts) {
  return {
    async admit(caller: Caller, c: CollectionRow, req: MintRequest): Promise<Admission> {
      if (can(caller, 'collection.mint', { ownerId: c.user_id })) return { as: 'owner', undo: NOTHING };
      if (caller.kind !== 'user' || c.mint_access !== 'public') authorize(caller, 'collection.mint', { ownerId: c.user_id });
      if (req.outputId) throw invalid('body.outputId: linking an output is for the collection owner’s mints');
      const refusal = publicMintRefusal(c, { wallet: req.recipient, now: now(), proof: req.merkle_proof });
      if (refusal) throw new AppError(refusal.kind, refusal.message, { code: refusal.code });
      const wallet = getAddress(req.recipient);
      await requirePayerOf(caller, wallet, store.isWalletOf).catch((err: unknown) => {
        if (!(err instanceof AppError && err.kind === 'forbidden')) throw err;
        throw new AppError(
          'forbidden',
          `body.recipient: a public mint goes to (and is paid from) your own wallet; ${wallet} is not linked to you: link it with Sign-In with Ethereum (POST /api/auth/wallet/nonce, then /api/auth/wallet/verify)`,
          { code: 'WALLET_NOT_LINKED' },
        );
      });

      const due = mintPriceOf(c) * BigInt(req.quantity);
      let paymentId: string | null = null;
      // A retry (same Idempotency-Key) of a paid mint: after a timeout its transaction is replayed
      // by the sender, so nothing is taken twice; after a crash between the claim and recording the
      // transaction, the payment it claimed pays for this run (the wallet's count is taken again).
      if (due > 0n && req.tx_hash && req.senderKey && c.chain_id !== null) {
        const again = { chainId: c.chain_id, txHash: req.tx_hash, payer: wallet, collectionId: c.id, senderKey: req.senderKey };
        const earlier = await store.earlierMintPayment(again);
        if (earlier?.kind === 'replay') return { as: 'public', undo: NOTHING };
        // Only while it still covers the price (the owner may have raised it since).
        if (earlier?.kind === 'claimed' && earlier.amount >= due) paymentId = earlier.paymentId;
      }
      if (due > 0n && !paymentId) paymentId = await pay(c, wallet, due, req.tx_hash, req.senderKey);
      const release = async () => {
        if (paymentId) await store.releaseMintPayment(paymentId).catch(() => undefined);
      };
      if (c.max_per_wallet !== null && !(await store.takeWalletMints(c.id, wallet, req.quantity, c.max_per_wallet))) {
        await release();
        const minted = await store.walletMintCount(c.id, wallet);
        throw conflict(
          `wallet ${wallet} may mint ${c.max_per_wallet} token(s) of collection ${c.id}: ${minted} minted, ${req.quantity} more asked`,
          { code: 'MAX_PER_WALLET', max_per_wallet: c.max_per_wallet, minted },
        );
      }
      return {
        as: 'public',
        async undo() {
          if (c.max_per_wallet !== null) await store.returnWalletMints(c.id, wallet, req.quantity).catch(() => undefined);
          await release();
        },
      };
    },
  };

  /** Verifies and claims the payment of `due` from `payer` to the collection's payout address. */
  async function pay(c: CollectionRow, payer: Address, due: bigint, txHash: string | undefined, requestKey?: string): Promise<string> {
    if (!c.payout_address) {
      throw conflict(`collection ${c.id} has no payout_address: its owner must set one before a paid public mint`, {
        code: 'NO_PAYOUT_ADDRESS',
      });
    }
    const payTo = getAddress(c.payout_address);
    if (!txHash) {
      throw paymentError(
        'PAYMENT_REQUIRED',
        `body.tx_hash: this mint costs ${due} stablecoin units (mint_price × quantity): transfer them from ${payer} to ${payTo} and send the transaction hash`,
        { amount_due: due.toString(), pay_to: payTo, payer },
      );
    }
    if (!payments) throw new AppError('unavailable', 'chain operations are not available: this backend has no chain configured');
    const chainId = c.chain_id!;
    const s = payments.settings(chainId);
    const verified = await payments.verify({
      chainId,
      txHash: txHash as Hex,
      token: s.token,
      payer,
      recipient: payTo,
      minAmount: due,
      confirmations: s.confirmations,
    });
    return store.claimMintPayment(verified, c.id, requestKey);
  }
}

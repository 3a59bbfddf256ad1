/**
 * Samples (docs/api/nft.md §2.9, §4.1.2; docs/minting.md "Samples"): a request is all free (both
 * allowances taken in one transaction, or 402 with the amount due) or all paid (a stablecoin
 * payment verified on chain, claimed once by its hash). Each sample is one generation in one deck
 * per request, its sample row written right after it starts, so a crash loses at most the one in
 * between. A claimed payment whose request died is resumed by the same payer for the same
 * collection and count; everything that could not start is given back (free allowance, payment).
 */
import { getAddress, type Address, type Hex } from 'viem';
import type { CollectionRow } from '../db/collections.ts';
import type { NewSample, PaymentRecord, SampleRow } from '../db/samples.ts';
import { AppError, forbidden } from '../domain/errors.ts';
import { paymentError } from '../domain/payment-errors.ts';
import { authorize, can, ownerFor, type Caller } from '../domain/policy.ts';
import type { GenerationPort } from './generation-port.ts';

export interface ResumableClaim {
  id: string;
  existing: Array<{ outputId: string; jobId: string | null }>;
  deckId: string | null;
}

export interface SampleStore {
  getCollection(id: string): Promise<CollectionRow>;
  takeFreeSamples(collectionId: string, subject: string, n: number, limits: { perCollection: number; perUser: number }): Promise<boolean>;
  returnFreeSamples(collectionId: string, subject: string, n: number): Promise<void>;
  allowanceUsage(collectionId: string, subject: string): Promise<{ collection: number; user: number }>;
  paidSampleCount(collectionId: string): Promise<number>;
  resumablePayment(q: {
    chainId: number;
    txHash: string;
    payer: string;
    collectionId: string;
    count: number;
  }): Promise<ResumableClaim | undefined>;
  claimPayment(p: PaymentRecord, collectionId: string, sampleCount: number): Promise<string>;
  endPaymentLease(paymentId: string): Promise<void>;
  releasePayment(paymentId: string): Promise<void>;
  insertSamples(rows: NewSample[]): Promise<unknown>;
  listSamples(
    collectionId: string,
    opts: { wallet?: string },
  ): Promise<Array<{ sample: SampleRow; output: { status: string; url: string | null; input_metadata: unknown } | null }>>;
  avatarOfUser(userId: string | null): Promise<string | null>;
  /** Whether the user proved `address` with Sign-In with Ethereum (db/wallets.ts). */
  isWalletOf(userId: string, address: string): Promise<boolean>;
  createDeck(input: { collection_id: string; name: string; userId: string }): Promise<{ id: string }>;
}

/** Payment checks on chain (chain/payments.ts) and where payments go. */
export interface PaymentChain {
  /** The accepted token, the recipient and the confirmations on a chain; 503 naming what to configure. */
  settings(chainId: number): { token: Address; recipient: Address; confirmations: number };
  verify(req: {
    chainId: number;
    txHash: Hex;
    token: Address;
    payer: Address;
    recipient: Address;
    minAmount: bigint;
    confirmations: number;
  }): Promise<PaymentRecord>;
}

export interface SamplePorts {
  store: SampleStore;
  generation?: GenerationPort;
  /** Absent: no chain in this backend; paid samples answer 503. */
  payments?: PaymentChain;
  /** Chain of a payment when neither the body nor the collection names one (NFT_CHAIN_ID). */
  defaultChainId: number;
  log?: (err: unknown, message: string) => void;
}

export interface SampleRequest {
  count: number;
  wallet_address: string;
  chain_id?: number;
  variables?: Record<string, unknown>;
  tx_hash?: string;
}

/** The allowance subject: the signed-in user, else the wallet. */
export const subjectOf = (caller: Caller, wallet: string | undefined): string | null => {
  const userId = ownerFor(caller);
  return userId ? `user:${userId}` : wallet ? `wallet:${wallet.toLowerCase()}` : null;
};

/**
 * A payment counts only from a wallet the caller proved (Sign-In with Ethereum, docs/auth.md):
 * otherwise anyone could claim someone else's transfer by naming its payer. The operator (service
 * key) may name any wallet: it pays on a user's behalf or has checked the payer itself.
 */
export async function requirePayerOf(caller: Caller, wallet: string, isWalletOf: (userId: string, address: string) => Promise<boolean>) {
  if (caller.kind === 'service') return;
  const userId = ownerFor(caller);
  if (userId && (await isWalletOf(userId, wallet))) return;
  throw forbidden(
    `body.wallet_address: ${wallet} is not a wallet linked to you; a payment counts only from your own wallet: link it with Sign-In with Ethereum (POST /api/auth/wallet/nonce, then /api/auth/wallet/verify)`,
  );
}

export type SampleService = ReturnType<typeof createSampleService>;

export function createSampleService({ store, generation, payments, defaultChainId, log }: SamplePorts) {
  async function status(c: CollectionRow, subject: string | null) {
    const used = await store.allowanceUsage(c.id, subject ?? '-');
    const collectionLeft = Math.max(0, c.free_samples_per_collection - used.collection);
    const userLeft = subject ? Math.max(0, c.free_samples_per_user - used.user) : c.free_samples_per_user;
    return {
      free_remaining: Math.min(collectionLeft, userLeft),
      free_limit_per_collection: c.free_samples_per_collection,
      paid_count: await store.paidSampleCount(c.id),
      compute_cost_per_sample: Number(c.compute_cost_per_sample),
      free_used_collection: used.collection,
      free_limit_per_user: c.free_samples_per_user,
      free_used_user: subject ? used.user : 0,
    };
  }

  /** Takes the free allowance, or claims (or resumes) the payment: what pays for this request. */
  async function payFor(
    caller: Caller,
    c: CollectionRow,
    b: SampleRequest,
    subject: string,
  ): Promise<{ paymentId: string | null; resumed?: ResumableClaim }> {
    const cost = BigInt(c.compute_cost_per_sample);
    if (!b.tx_hash) {
      const limits = { perCollection: c.free_samples_per_collection, perUser: c.free_samples_per_user };
      if (await store.takeFreeSamples(c.id, subject, b.count, limits)) return { paymentId: null };
      const s = await status(c, subject);
      const due = (BigInt(b.count) * cost).toString();
      throw paymentError(
        'PAYMENT_REQUIRED',
        `body.tx_hash: ${s.free_remaining} free sample(s) remain for this request and ${b.count} were asked; pay ${due} stablecoin units (count × compute_cost_per_sample) to the compute recipient and send tx_hash, or ask for fewer`,
        { free_remaining: s.free_remaining, amount_due: due, compute_cost_per_sample: s.compute_cost_per_sample },
      );
    }
    await requirePayerOf(caller, b.wallet_address, store.isWalletOf);
    const chainId = b.chain_id ?? c.chain_id ?? defaultChainId;
    if (!payments) throw new AppError('unavailable', 'chain operations are not available: this backend has no chain configured');
    const s = payments.settings(chainId);
    const payer = getAddress(b.wallet_address);
    // A claim whose request died before all its samples existed is resumed by the same payer for
    // the same collection and count; any other reuse is 409 (docs/minting.md).
    const resumed = await store.resumablePayment({ chainId, txHash: b.tx_hash, payer, collectionId: c.id, count: b.count });
    if (resumed) return { paymentId: resumed.id, resumed };
    const verified = await payments.verify({
      chainId,
      txHash: b.tx_hash as Hex,
      token: s.token,
      payer,
      recipient: s.recipient,
      minAmount: BigInt(b.count) * cost,
      confirmations: s.confirmations,
    });
    return { paymentId: await store.claimPayment(verified, c.id, b.count) };
  }

  return {
    status: async (caller: Caller, collectionId: string, wallet?: string) =>
      status(await store.getCollection(collectionId), subjectOf(caller, wallet)),

    /**
     * A collection's samples, newest first (404 for an unknown collection). Requester wallets are
     * the collection owner's and the operator's to see (`collection.read_sample_wallets`); anyone
     * else sees the wallet only on their own samples, and filters only by a wallet they proved.
     */
    async list(caller: Caller, collectionId: string, wallet?: string) {
      const c = await store.getCollection(collectionId);
      const seesAll = can(caller, 'collection.read_sample_wallets', { ownerId: c.user_id });
      const me = ownerFor(caller);
      if (wallet && !seesAll && !(me && (await store.isWalletOf(me, wallet)))) {
        throw forbidden(
          'query.wallet_address: the samples of a wallet are shown to the collection owner, the operator, and the user who linked that wallet',
        );
      }
      const rows = await store.listSamples(collectionId, { wallet });
      if (seesAll) return rows;
      return rows.map((r) => (me && r.sample.user_id === me ? r : { ...r, sample: { ...r.sample, wallet_address: null } }));
    },

    async request(caller: Caller, collectionId: string, b: SampleRequest) {
      authorize(caller, 'collection.request_samples');
      const c = await store.getCollection(collectionId);
      const variables = b.variables ?? {};
      if (!generation) throw new AppError('unavailable', 'generation is not available: this backend has no job queue configured');
      // §4.1.2: omitted or empty variables are picked from the presets, a required one too (it binds minters).
      generation.checkVariables(c, variables, { requiredMayBeOmitted: true });
      const subject = subjectOf(caller, b.wallet_address)!;
      const isFree = !b.tx_hash;
      const { paymentId, resumed } = await payFor(caller, c, b, subject);

      const userId = ownerFor(caller);
      const pfp = await store.avatarOfUser(c.user_id); // the creator's picture at sample time
      const need = b.count - (resumed?.existing.length ?? 0);
      const started: Array<{ outputId: string; jobId: string }> = [];
      try {
        const deckId =
          resumed?.deckId ??
          (await store.createDeck({ collection_id: c.id, name: `Samples of ${c.title}`.slice(0, 200), userId: userId as string })).id;
        for (let i = 0; i < need; i++) {
          const g = await generation.start({
            collectionId: c.id,
            variables,
            userId,
            isService: true, // samples are paid by the allowance or the payment, not credits
            deckId,
            source: 'direct_api',
            jobType: 'sample',
            socialPfp: pfp,
            requiredMayBeOmitted: true,
          });
          // Each sample row right after its generation: a crash loses at most the one in between.
          await store.insertSamples([
            {
              collection_id: c.id,
              output_id: g.outputId,
              job_id: g.jobId,
              user_id: userId,
              wallet_address: getAddress(b.wallet_address),
              is_free: isFree,
              payment_id: paymentId,
              traits: [],
            },
          ]);
          started.push({ outputId: g.outputId, jobId: g.jobId });
        }
      } catch (err) {
        if (isFree && started.length < need) await store.returnFreeSamples(c.id, subject, need - started.length).catch(() => undefined);
        if (paymentId && !resumed && started.length === 0) await store.releasePayment(paymentId).catch(() => undefined);
        else if (paymentId) await store.endPaymentLease(paymentId).catch(() => undefined);
        if (started.length === 0) throw err;
        log?.(err, 'some samples could not start');
      }
      if (paymentId) await store.endPaymentLease(paymentId).catch(() => undefined);
      return { samples: [...(resumed?.existing ?? []), ...started], isFree, resumed: resumed !== undefined };
    },
  };
}

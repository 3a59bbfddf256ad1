import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getAddress } from 'viem';
import type { CollectionRow } from '../db/collections.ts';
import type { NewSample, PaymentRecord } from '../db/samples.ts';
import { AppError, notFound } from '../domain/errors.ts';
import { paymentError } from '../domain/payment-errors.ts';
import type { GenerationPort } from './generation-port.ts';
import { createSampleService, subjectOf, type PaymentChain, type ResumableClaim, type SampleStore } from './samples.ts';
import { ALICE, BOB, OPERATOR, collectionRow } from '../../test/helpers/service-records.ts';

const WALLET = getAddress('0x00000000000000000000000000000000000000e1');
const TOKEN = getAddress('0x00000000000000000000000000000000000000c0');
const RECIPIENT = getAddress('0x00000000000000000000000000000000000000aa');
const HASH = `0x${'12'.repeat(32)}`;

/** Allowance counters, payments and samples in memory, with the limits of db/samples.ts. */
function world(c: CollectionRow, opts: { failGenerationAt?: number; resumable?: ResumableClaim } = {}) {
  const used = new Map<string, number>();
  const payments = new Map<string, PaymentRecord & { count: number; lease: boolean }>();
  const samples: NewSample[] = [];
  const verified: unknown[] = [];
  let started = 0;
  const store: SampleStore = {
    async getCollection(id) {
      if (id !== c.id) throw notFound(`collection ${id}`);
      return c;
    },
    async takeFreeSamples(_cid, subject, n, limits) {
      const col = used.get('*') ?? 0;
      const sub = used.get(subject) ?? 0;
      if (col + n > limits.perCollection || sub + n > limits.perUser) return false;
      used.set('*', col + n);
      used.set(subject, sub + n);
      return true;
    },
    async returnFreeSamples(_cid, subject, n) {
      used.set('*', Math.max(0, (used.get('*') ?? 0) - n));
      used.set(subject, Math.max(0, (used.get(subject) ?? 0) - n));
    },
    allowanceUsage: async (_cid, subject) => ({ collection: used.get('*') ?? 0, user: used.get(subject) ?? 0 }),
    paidSampleCount: async () => samples.filter((s) => !s.is_free).length,
    resumablePayment: async () => opts.resumable,
    async claimPayment(p, _cid, count) {
      if ([...payments.values()].some((x) => x.txHash === p.txHash)) throw paymentError('PAYMENT_ALREADY_USED', 'body.tx_hash: used');
      const id = `pay-${payments.size + 1}`;
      payments.set(id, { ...p, count, lease: true });
      return id;
    },
    async endPaymentLease(id) {
      const p = payments.get(id);
      if (p) p.lease = false;
    },
    async releasePayment(id) {
      payments.delete(id);
    },
    async insertSamples(rows) {
      samples.push(...rows);
    },
    listSamples: async () => [],
    avatarOfUser: async (userId) => (userId ? `https://pfp/${userId}.png` : null),
    // Alice proved WALLET; nobody else proved anything.
    isWalletOf: async (userId, address) => userId === 'alice' && getAddress(address) === WALLET,
    createDeck: async (input) => ({ id: `deck:${input.name}` }),
  };
  const generation: GenerationPort = {
    checkVariables() {},
    async start(input) {
      started++;
      if (opts.failGenerationAt === started) throw new AppError('unavailable', 'queue down');
      return { jobId: `job-${started}`, outputId: `out-${started}`, deckId: input.deckId ?? 'none' };
    },
  };
  const chain: PaymentChain = {
    settings: () => ({ token: TOKEN, recipient: RECIPIENT, confirmations: 1 }),
    async verify(req) {
      verified.push(req);
      return {
        chainId: req.chainId,
        txHash: req.txHash,
        token: req.token,
        payer: req.payer,
        recipient: req.recipient,
        amount: req.minAmount,
      };
    },
  };
  const svc = createSampleService({ store, generation, payments: chain, defaultChainId: 31337 });
  return { svc, used, payments, samples, verified };
}

test('the allowance subject is the signed-in user, else the wallet', () => {
  assert.equal(subjectOf(ALICE, WALLET), 'user:alice');
  assert.equal(subjectOf(OPERATOR, WALLET), `wallet:${WALLET.toLowerCase()}`);
  assert.equal(subjectOf({ kind: 'service', userId: 'bob' }, undefined), 'user:bob');
});

test('free samples: taken from both allowances, one generation and one sample row each, the creator picture', async () => {
  const c = collectionRow({ user_id: 'creator' });
  const w = world(c);
  const res = await w.svc.request(ALICE, c.id, { count: 2, wallet_address: WALLET });
  assert.equal(res.isFree, true);
  assert.deepEqual(
    res.samples.map((s) => s.outputId),
    ['out-1', 'out-2'],
  );
  assert.equal(w.used.get('user:alice'), 2);
  assert.equal(w.samples.length, 2);
  assert.ok(w.samples.every((s) => s.is_free && s.payment_id === null && s.user_id === 'alice'));
  const status = await w.svc.status(ALICE, c.id);
  assert.equal(status.free_remaining, 1);
  assert.equal(status.free_used_user, 2);
});

test('beyond the free allowance: 402 PAYMENT_REQUIRED with the amount due, nothing taken', async () => {
  const c = collectionRow({ free_samples_per_user: 3, compute_cost_per_sample: '1000000' });
  const w = world(c);
  await assert.rejects(
    w.svc.request(ALICE, c.id, { count: 4, wallet_address: WALLET }),
    (e) =>
      e instanceof AppError &&
      e.kind === 'payment_required' &&
      e.extra?.code === 'PAYMENT_REQUIRED' &&
      e.extra?.amount_due === '4000000' &&
      e.extra?.free_remaining === 3,
  );
  assert.equal(w.used.get('user:alice') ?? 0, 0);
  assert.equal(w.samples.length, 0);
});

test('paid samples: the payment is verified for count × price and claimed; the allowance is untouched', async () => {
  const c = collectionRow({ compute_cost_per_sample: '500' });
  const w = world(c);
  const res = await w.svc.request(ALICE, c.id, { count: 3, wallet_address: WALLET, tx_hash: HASH });
  assert.equal(res.isFree, false);
  assert.equal((w.verified[0] as { minAmount: bigint }).minAmount, 1500n);
  assert.equal(w.payments.size, 1);
  assert.equal([...w.payments.values()][0]!.lease, false, 'the lease ends with the request');
  assert.ok(w.samples.every((s) => !s.is_free && s.payment_id === 'pay-1'));
  assert.equal(w.used.size, 0);
  await assert.rejects(w.svc.request(ALICE, c.id, { count: 3, wallet_address: WALLET, tx_hash: HASH }), /used/);
});

test('nothing could start: the free allowance is given back, a new payment released', async () => {
  const c = collectionRow();
  const free = world(c, { failGenerationAt: 1 });
  await assert.rejects(free.svc.request(ALICE, c.id, { count: 2, wallet_address: WALLET }), /queue down/);
  assert.equal(free.used.get('user:alice'), 0);
  const paid = world(c, { failGenerationAt: 1 });
  await assert.rejects(paid.svc.request(ALICE, c.id, { count: 2, wallet_address: WALLET, tx_hash: HASH }), /queue down/);
  assert.equal(paid.payments.size, 0, 'the hash may be used again');
});

test('some could start: the request answers those, the rest of the allowance is given back', async () => {
  const c = collectionRow();
  const w = world(c, { failGenerationAt: 2 });
  const res = await w.svc.request(ALICE, c.id, { count: 3, wallet_address: WALLET });
  assert.equal(res.samples.length, 1);
  assert.equal(w.used.get('user:alice'), 1);
});

test('a resumed claim creates only the missing samples, in the deck of the existing ones, without the chain', async () => {
  const c = collectionRow();
  const resumable = { id: 'pay-old', existing: [{ outputId: 'out-old', jobId: 'job-old' }], deckId: 'deck-old' };
  const w = world(c, { resumable });
  const res = await w.svc.request(ALICE, c.id, { count: 3, wallet_address: WALLET, tx_hash: HASH });
  assert.equal(res.resumed, true);
  assert.deepEqual(
    res.samples.map((s) => s.outputId),
    ['out-old', 'out-1', 'out-2'],
  );
  assert.equal(w.verified.length, 0);
  assert.ok(w.samples.every((s) => s.payment_id === 'pay-old'));
});

test("a payment counts only from the caller's linked wallet; the operator may name any wallet", async () => {
  const c = collectionRow({ compute_cost_per_sample: '500' });
  const w = world(c);
  await assert.rejects(
    w.svc.request(BOB, c.id, { count: 1, wallet_address: WALLET, tx_hash: HASH }),
    (e: unknown) => e instanceof AppError && e.kind === 'forbidden' && /not a wallet linked to you/.test(e.message),
  );
  assert.equal(w.verified.length, 0, 'refused before the chain is asked');
  assert.equal(w.payments.size, 0);
  const byOperator = await w.svc.request(OPERATOR, c.id, { count: 1, wallet_address: WALLET, tx_hash: HASH });
  assert.equal(byOperator.isFree, false);
});

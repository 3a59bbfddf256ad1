/**
 * Samples (docs/api/nft.md §2.9, §4.1.2): validation, free allowances (per collection and per user,
 * atomic under concurrency), paid samples verified on chain (the refusals each leave no sample),
 * social_pfp from the creator, and the admin proxy routes.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { count, eq, sql } from 'drizzle-orm';
import { getAddress, type Address, type Hex } from 'viem';
import { atelierTestUSDAbi } from '../../contracts/abi/index.ts';
import { loadArtifact } from '../../src/chain/artifacts.ts';
import { claimPayment } from '../../src/db/samples.ts';
import { collections, jobs, payments, sampleAllowances, samples, users } from '../../src/db/schema/index.ts';
import { asService, call } from '../helpers/platform.ts';
import { payStablecoin, startMintingPlatform, waitFor, type MintingPlatform } from './helpers.ts';
import { waitForReceipt } from '../../src/chain/wait-receipt.ts';

const COST = 1_000_000n;

describe('samples', () => {
  let mp: MintingPlatform;
  let collectionId: string;
  let wallet1: Address;
  let wallet2: Address;

  const post = (cid: string, body: Record<string, unknown>, headers = asService()) =>
    call(`${mp.backendUrl}/nft/collections/${cid}/samples`, { body, headers });
  const sampleCount = async (cid: string) =>
    Number((await mp.database.db.select({ n: count() }).from(samples).where(eq(samples.collection_id, cid)))[0]!.n);

  before(async () => {
    mp = await startMintingPlatform();
    wallet1 = mp.wallet(1).account.address;
    wallet2 = mp.wallet(2).account.address;
    const created = await call(`${mp.backendUrl}/nft/collections`, {
      body: { title: 'Sampled', description: 'd', editions: 10, data: (await import('../helpers/platform.ts')).sampleData() },
      headers: asService(),
    });
    collectionId = created.body.data.collection.id;
    const [u] = await mp.database.db
      .insert(users)
      .values({ display_name: 'Creator', avatar_url: 'https://pfp.example/creator.png' })
      .returning();
    await mp.database.db.update(collections).set({ user_id: u!.id }).where(eq(collections.id, collectionId));
  });
  after(() => mp.close());

  test('validation: count 1–10, addresses, variables are 400 naming the field', async () => {
    for (const c of [0, 11, 1.5, '2']) {
      const r = await post(collectionId, { count: c, wallet_address: wallet1 });
      assert.equal(r.status, 400, String(c));
      assert.match(r.body.error, /body\.count/);
    }
    const badWallet = await post(collectionId, { count: 1, wallet_address: '0x123' });
    assert.equal(badWallet.status, 400);
    assert.match(badWallet.body.error, /wallet_address/);
    const badPreset = await post(collectionId, { count: 1, wallet_address: wallet1, variables: { color: 'green' } });
    assert.equal(badPreset.status, 400);
    assert.match(badPreset.body.error, /variables\.color/);
    const badHash = await post(collectionId, { count: 1, wallet_address: wallet1, tx_hash: '0x12' });
    assert.equal(badHash.status, 400);
    assert.match(badHash.body.error, /tx_hash/);
    const missing = await post('00000000-0000-4000-8000-000000000000', { count: 1, wallet_address: wallet1 });
    assert.equal(missing.status, 404);
    assert.equal(await sampleCount(collectionId), 0);
  });

  test('free samples: created pending, complete, with traits and the creator picture as social_pfp', async () => {
    const r = await post(collectionId, { count: 2, wallet_address: wallet1, variables: { color: 'red' } });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.success, true);
    assert.equal(r.body.samples.length, 2);
    for (const s of r.body.samples) {
      assert.equal(s.status, 'pending');
      assert.equal(s.is_free, true);
      assert.ok(s.outputId && s.jobId);
    }
    const [job] = await mp.database.db.select().from(jobs).where(eq(jobs.id, r.body.samples[0].jobId));
    assert.equal((job!.data as { variables: Record<string, string> }).variables.social_pfp, 'https://pfp.example/creator.png');

    const list = await waitFor('samples completed', async () => {
      const l = await call(`${mp.backendUrl}/nft/collections/${collectionId}/samples`, { headers: asService() });
      return l.body.samples.every((s: { status: string }) => s.status === 'completed') ? l : undefined;
    });
    assert.equal(list.body.samples.length, 2);
    for (const s of list.body.samples) {
      assert.ok(s.url);
      assert.deepEqual(s.traits, [{ trait_type: 'Color', value: 'Red' }]);
      assert.equal(s.is_free, true);
    }
    const status = await call(`${mp.backendUrl}/nft/collections/${collectionId}/sample-status?wallet_address=${wallet1}`, {
      headers: asService(),
    });
    assert.equal(status.status, 200);
    assert.equal(status.body.success, true);
    assert.equal(status.body.free_remaining, 1); // per user 3, 2 used
    assert.equal(status.body.free_limit_per_collection, 10);
    assert.equal(status.body.compute_cost_per_sample, 1_000_000);
    assert.equal(status.body.paid_count, 0);
  });

  test('a required customizable variable left out of a sample is picked from its presets (§4.1.2: required binds minters)', async () => {
    const created = await call(`${mp.backendUrl}/nft/collections`, {
      headers: asService(),
      body: {
        title: 'Named',
        data: {
          version: 'v2',
          steps: [{ id: 1, nodeName: 'image', nodePayload: { intent: 'a cat called $name' } }],
          variables: [
            {
              name: 'name',
              is_feature: true,
              feature_name: 'Name',
              is_user_customizable: true,
              required: true,
              value: [{ value: 'Tom' }, { value: 'Kit' }],
            },
          ],
        },
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const cid = created.body.data.collection.id;
    for (const variables of [{}, { name: '' }]) {
      const r = await post(cid, { count: 1, wallet_address: wallet2, variables });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      const [job] = await mp.database.db.select().from(jobs).where(eq(jobs.id, r.body.samples[0].jobId));
      assert.ok(['Tom', 'Kit'].includes((job!.data as { variables: Record<string, string> }).variables.name!));
    }
    const own = await post(cid, { count: 1, wallet_address: wallet2, variables: { name: 'Felix' } });
    assert.equal(own.status, 201, JSON.stringify(own.body));
    const [job] = await mp.database.db.select().from(jobs).where(eq(jobs.id, own.body.samples[0].jobId));
    assert.equal((job!.data as { variables: Record<string, string> }).variables.name, 'Felix');
  });

  test('the per-user allowance is enforced; without tx_hash the answer is 402 with the amount due', async () => {
    const r = await post(collectionId, { count: 2, wallet_address: wallet1 });
    assert.equal(r.status, 402);
    assert.equal(r.body.code, 'PAYMENT_REQUIRED');
    assert.equal(r.body.free_remaining, 1);
    assert.equal(r.body.amount_due, '2000000');
    assert.match(r.body.error, /tx_hash/);
    assert.equal(await sampleCount(collectionId), 2);
    // Another wallet still has its own allowance.
    const other = await post(collectionId, { count: 3, wallet_address: wallet2 });
    assert.equal(other.status, 201);
  });

  test('concurrent requests cannot exceed the free allowances', async () => {
    const created = await call(`${mp.backendUrl}/nft/collections`, {
      body: { title: 'Busy', description: '', editions: 10, data: (await import('../helpers/platform.ts')).sampleData() },
      headers: asService(),
    });
    const cid = created.body.data.collection.id as string;
    await mp.database.db
      .update(collections)
      .set({ free_samples_per_collection: 5, free_samples_per_user: 2 })
      .where(eq(collections.id, cid));
    const wallets = Array.from({ length: 8 }, (_, i) => getAddress(`0x${(i + 1).toString(16).padStart(40, 'a')}`));
    // 8 wallets × 2 requests of 1 each, all at once: the collection allows 5, each wallet 2.
    const results = await Promise.all(
      wallets.flatMap((w) => [post(cid, { count: 1, wallet_address: w }), post(cid, { count: 1, wallet_address: w })]),
    );
    const created201 = results.filter((r) => r.status === 201).length;
    assert.equal(created201, 5, JSON.stringify(results.map((r) => r.status)));
    assert.ok(results.every((r) => r.status === 201 || r.status === 402));
    assert.equal(await sampleCount(cid), 5);
    const [row] = await mp.database.db
      .select()
      .from(sampleAllowances)
      .where(sql`${sampleAllowances.collection_id} = ${cid} and ${sampleAllowances.subject} = '*'`);
    assert.equal(row!.used, 5);
    // A single wallet racing itself: at most 2.
    const cid2 = (
      await call(`${mp.backendUrl}/nft/collections`, {
        body: { title: 'Solo', description: '', editions: 10, data: (await import('../helpers/platform.ts')).sampleData() },
        headers: asService(),
      })
    ).body.data.collection.id as string;
    const solo = await Promise.all(Array.from({ length: 6 }, () => post(cid2, { count: 1, wallet_address: wallet1 })));
    assert.equal(solo.filter((r) => r.status === 201).length, 3);
  });

  describe('paid samples', () => {
    const before_ = async () => sampleCount(collectionId);

    test('a valid payment creates paid samples; the same hash is refused the second time', async () => {
      const hash = await payStablecoin(mp, 1, mp.platformAddress, 2n * COST);
      const n = await before_();
      const r = await post(collectionId, { count: 2, wallet_address: wallet1, tx_hash: hash });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      assert.ok(r.body.samples.every((s: { is_free: boolean }) => s.is_free === false));
      assert.equal(await sampleCount(collectionId), n + 2);
      const again = await post(collectionId, { count: 2, wallet_address: wallet1, tx_hash: hash });
      assert.equal(again.status, 409);
      assert.equal(again.body.code, 'PAYMENT_ALREADY_USED');
      const upper = await post(collectionId, { count: 1, wallet_address: wallet1, tx_hash: hash.toUpperCase().replace('0X', '0x') });
      assert.equal(upper.status, 409);
      assert.equal(await sampleCount(collectionId), n + 2);
      const status = await call(`${mp.backendUrl}/nft/collections/${collectionId}/sample-status`, { headers: asService() });
      assert.equal(status.body.paid_count, 2);
    });

    test('concurrent requests with one hash: exactly one is accepted', async () => {
      const hash = await payStablecoin(mp, 1, mp.platformAddress, COST);
      const n = await before_();
      const rs = await Promise.all(
        Array.from({ length: 4 }, () => post(collectionId, { count: 1, wallet_address: wallet1, tx_hash: hash })),
      );
      assert.equal(rs.filter((r) => r.status === 201).length, 1, JSON.stringify(rs.map((r) => r.status)));
      assert.ok(rs.filter((r) => r.status !== 201).every((r) => r.status === 409));
      assert.equal(await sampleCount(collectionId), n + 1);
    });

    test('a claim whose request died before its samples: the same payer, collection and count resumes it; anyone else is refused', async () => {
      const hash = await payStablecoin(mp, 1, mp.platformAddress, 2n * COST);
      const n = await before_();
      // What the route does after verifying; then the request "crashes" before any sample exists.
      const paymentId = await claimPayment(
        mp.database.db,
        { chainId: 31337, txHash: hash, token: mp.stablecoin, payer: wallet1, recipient: mp.platformAddress, amount: 2n * COST },
        collectionId,
        2,
      );
      // While the claim's lease runs, a retry may be the first request still at work: refused.
      const early = await post(collectionId, { count: 2, wallet_address: wallet1, tx_hash: hash });
      assert.equal(early.status, 409, JSON.stringify(early.body));
      assert.match(early.body.error, /in progress/);
      await mp.database.db.update(payments).set({ lease_until: sql`now() - interval '1 second'` }).where(eq(payments.id, paymentId));

      const other = await call(`${mp.backendUrl}/nft/collections`, {
        body: { title: 'Other', description: 'd', editions: 10, data: (await import('../helpers/platform.ts')).sampleData() },
        headers: asService(),
      });
      for (const [cid, body] of [
        [collectionId, { count: 2, wallet_address: wallet2, tx_hash: hash }],
        [collectionId, { count: 1, wallet_address: wallet1, tx_hash: hash }],
        [other.body.data.collection.id, { count: 2, wallet_address: wallet1, tx_hash: hash }],
      ] as const) {
        const r = await post(cid, body);
        assert.equal(r.status, 409, JSON.stringify(r.body));
        assert.equal(r.body.code, 'PAYMENT_ALREADY_USED');
      }
      assert.equal(await sampleCount(collectionId), n);

      const resumed = await post(collectionId, { count: 2, wallet_address: wallet1, tx_hash: hash });
      assert.equal(resumed.status, 201, JSON.stringify(resumed.body));
      assert.equal(resumed.body.resumed, true);
      assert.equal(resumed.body.samples.length, 2);
      assert.equal(await sampleCount(collectionId), n + 2);
      const paid = await mp.database.db.select().from(samples).where(eq(samples.payment_id, paymentId));
      assert.equal(paid.length, 2);
      assert.ok(paid.every((x) => x.is_free === false));

      // Complete now: a further replay is refused and creates nothing.
      const again = await post(collectionId, { count: 2, wallet_address: wallet1, tx_hash: hash });
      assert.equal(again.status, 409);
      assert.equal(again.body.code, 'PAYMENT_ALREADY_USED');
      assert.equal(await sampleCount(collectionId), n + 2);
    });

    async function refused(body: Record<string, unknown>, code: string, status = 402) {
      const n = await before_();
      const paymentsBefore = (await mp.database.db.select({ n: count() }).from(payments))[0]!.n;
      const r = await post(collectionId, { wallet_address: wallet1, count: 1, ...body });
      assert.equal(r.status, status, JSON.stringify(r.body));
      assert.equal(r.body.code, code, JSON.stringify(r.body));
      assert.match(r.body.error, /tx_hash/);
      assert.equal(await sampleCount(collectionId), n, 'no sample created');
      assert.equal((await mp.database.db.select({ n: count() }).from(payments))[0]!.n, paymentsBefore, 'no payment recorded');
      return r;
    }

    test('the wrong token is refused', async () => {
      const other = loadArtifact('AtelierTestUSD');
      const w = mp.wallet(1);
      const dh = await w.deployContract({ abi: other.abi, bytecode: other.bytecode } as never);
      const token = getAddress((await waitForReceipt(mp.client, dh)).contractAddress!);
      const m = await w.writeContract({ address: token, abi: atelierTestUSDAbi, functionName: 'mint', args: [wallet1, COST] } as never);
      await waitForReceipt(mp.client, m);
      const hash = await w.writeContract({
        address: token,
        abi: atelierTestUSDAbi,
        functionName: 'transfer',
        args: [mp.platformAddress, COST],
      } as never);
      await waitForReceipt(mp.client, hash);
      await refused({ tx_hash: hash }, 'PAYMENT_WRONG_TOKEN');
    });

    test('the wrong recipient is refused', async () => {
      const hash = await payStablecoin(mp, 1, mp.wallet(5).account.address, COST);
      await refused({ tx_hash: hash }, 'PAYMENT_WRONG_RECIPIENT');
    });

    test('the wrong payer is refused', async () => {
      const hash = await payStablecoin(mp, 2, mp.platformAddress, COST);
      await refused({ tx_hash: hash }, 'PAYMENT_WRONG_PAYER');
    });

    test('a short amount is refused', async () => {
      const hash = await payStablecoin(mp, 1, mp.platformAddress, 2n * COST - 1n);
      await refused({ tx_hash: hash, count: 2 }, 'PAYMENT_INSUFFICIENT');
    });

    test('a reverted transaction is refused', async () => {
      const w = mp.wallet(7); // holds no tUSD: the transfer reverts
      const hash = await w.writeContract({
        address: mp.stablecoin,
        abi: atelierTestUSDAbi,
        functionName: 'transfer',
        args: [mp.platformAddress, COST],
        gas: 100_000n,
      } as never);
      const receipt = await waitForReceipt(mp.client, hash);
      assert.equal(receipt.status, 'reverted');
      await refused({ tx_hash: hash, wallet_address: w.account.address }, 'PAYMENT_REVERTED');
    });

    test('an unknown and an unmined hash are refused', async () => {
      await refused({ tx_hash: `0x${'ab'.repeat(32)}` }, 'PAYMENT_NOT_FOUND');
      const w = mp.wallet(1);
      const f = await w.writeContract({
        address: mp.stablecoin,
        abi: atelierTestUSDAbi,
        functionName: 'mint',
        args: [wallet1, COST],
      } as never);
      await waitForReceipt(mp.client, f);
      await mp.anvil.rpc('evm_setAutomine', [false]);
      let hash: Hex;
      try {
        hash = await w.writeContract({
          address: mp.stablecoin,
          abi: atelierTestUSDAbi,
          functionName: 'transfer',
          args: [mp.platformAddress, COST],
          gas: 100_000n,
        } as never);
        await refused({ tx_hash: hash }, 'PAYMENT_PENDING');
      } finally {
        await mp.anvil.rpc('evm_setAutomine', [true]);
        await mp.anvil.rpc('evm_mine', []);
      }
      // Once mined the same hash is accepted.
      const ok = await post(collectionId, { count: 1, wallet_address: wallet1, tx_hash: hash! });
      assert.equal(ok.status, 201, JSON.stringify(ok.body));
    });
  });

  test('admin proxy: POST/GET samples and sample-status', async () => {
    const admin = (path: string, body?: unknown) => call(`${mp.adminUrl}${path}`, { ...(body ? { body } : {}), headers: asService() });
    const w = mp.wallet(3).account.address;
    const created = await admin('/api/nft/samples', { collectionId, count: 1, wallet_address: w });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.success, true);
    assert.equal(created.body.samples.length, 1);
    const tooMany = await admin('/api/nft/samples', { collectionId, count: 11, wallet_address: w });
    assert.equal(tooMany.status, 400);
    assert.equal(tooMany.body.success, false);
    const list = await admin(`/api/nft/samples?collectionId=${collectionId}`);
    assert.equal(list.status, 200);
    assert.ok(list.body.samples.length >= 1);
    const status = await admin(`/api/nft/sample-status?collectionId=${collectionId}&wallet_address=${w}`);
    assert.equal(status.status, 200);
    assert.equal(status.body.success, true);
    for (const k of [
      'free_remaining',
      'free_limit_per_collection',
      'paid_count',
      'compute_cost_per_sample',
      'free_used_collection',
      'free_limit_per_user',
      'free_used_user',
    ]) {
      assert.equal(typeof status.body[k], 'number', k);
    }
    assert.equal(status.body.free_used_user, 1);
    const over = await admin('/api/nft/samples', { collectionId, count: 3, wallet_address: w });
    assert.equal(over.status, 402);
    assert.equal(over.body.code, 'PAYMENT_REQUIRED');
  });
});

/**
 * PUT/GET /nft/collections/:id/sale and their admin-proxy forwards (docs/minting.md "On-chain
 * sale") on the real backend and a real anvil: every field validated (400 naming it), owner or
 * operator only, the platform wallet sends setSale for a contract it owns and GET reads the
 * contract back; a creator-owned contract gets 409 with the call data its owner then sends.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { encodeFunctionData, getAddress, parseEventLogs, type Address, type Hex } from 'viem';
import { collectionAbi, diamondFactoryAbi } from '../../contracts/abi/index.ts';
import { collections } from '../../src/db/schema/index.ts';
import { merkleRoot } from '../../src/domain/mint-policy.ts';
import { bearer, userToken } from '../helpers/content.ts';
import { asService, call } from '../helpers/platform.ts';
import { startMintingPlatform, type MintingPlatform } from './helpers.ts';

const A = '0x1111111111111111111111111111111111111111';
const B = '0x2222222222222222222222222222222222222222';

describe('on-chain sale API', () => {
  let mp: MintingPlatform;
  let alice: string;
  let bob: string;
  let collectionId: string;
  let contract: Address;
  const valid = () => ({
    currency: 'native',
    price: '1000000000000000',
    start: '2026-01-01T00:00:00Z',
    end: null,
    max_per_wallet: 3,
    merkle_root: merkleRoot([A, B]),
    payouts: [
      { address: A, bps: 7000 },
      { address: B, bps: 3000 },
    ],
  });
  const put = (id: string, headers: Record<string, string>, body: unknown) =>
    call(`${mp.backendUrl}/nft/collections/${id}/sale`, { method: 'PUT', headers, body });

  before(async () => {
    mp = await startMintingPlatform({ worker: false });
    alice = await userToken('sale-alice');
    bob = await userToken('sale-bob');
    const aliceId = (await call(`${mp.backendUrl}/api/me`, { headers: bearer(alice) })).body.data.id as string;
    const deployed = await mp.deployedCollection({ title: 'Sale', editions: 50 });
    collectionId = deployed.id;
    contract = deployed.address;
    // Alice's record; the contract is the platform wallet's (platform-owned)
    await mp.database.db.update(collections).set({ user_id: aliceId }).where(eq(collections.id, collectionId));
  });
  after(() => mp.close());

  test('every field is validated and a 400 names it', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ currency: 'eth' }, /^body\.currency: expected "native" \(the chain's currency\) or the 0x-prefixed address of one ERC-20 token$/],
      [
        { currency: undefined },
        /^body\.currency: expected "native" \(the chain's currency\) or the 0x-prefixed address of one ERC-20 token$/,
      ],
      [{ currency: `0x${'0'.repeat(40)}` }, /currency/],
      [{ price: '1.5' }, /price/],
      [{ price: '-1' }, /price/],
      // The rule itself, not "a decimal string of digits": no leading zero; at most the contract's 2^128-1.
      [
        { price: '007' },
        /^body\.price: expected a whole number of the currency's smallest unit .*digits only, no sign, point or leading zero$/,
      ],
      [{ price: (1n << 128n).toString() }, /^body\.price: at most 2\^128-1 = 340282366920938463463374607431768211455 /],
      [{ price: '1'.repeat(40) }, /^body\.price: at most 2\^128-1 = 340282366920938463463374607431768211455 /],
      [{ price: 1000 }, /price/],
      [{ start: 'tomorrow' }, /start/],
      [{ end: '2025-01-01T00:00:00Z' }, /end/],
      [{ max_per_wallet: 0 }, /max_per_wallet/],
      [{ max_per_wallet: 1.5 }, /max_per_wallet/],
      [{ merkle_root: '0x1234' }, /merkle_root/],
      [{ payouts: [{ address: A, bps: 7000 }] }, /payouts/],
      [{ payouts: [] }, /payouts/],
      [{ payouts: [{ address: 'nope', bps: 10000 }] }, /payouts\.0\.address/],
      [
        {
          payouts: [
            { address: A, bps: 0 },
            { address: B, bps: 10000 },
          ],
        },
        /payouts\.0\.bps/,
      ],
      [
        {
          payouts: [
            { address: A, bps: 5000 },
            { address: A, bps: 5000 },
          ],
        },
        /payouts\.1\.address/,
      ],
      [{ surprise: true }, /surprise|unrecognized/i],
    ];
    for (const [over, field] of cases) {
      const r = await put(collectionId, asService(), { ...valid(), ...over });
      assert.equal(r.status, 400, `${JSON.stringify(over)}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.error, field, JSON.stringify(over));
    }
    const missing = await put(collectionId, asService(), { ...valid(), price: undefined });
    assert.equal(missing.status, 400);
    assert.match(missing.body.error, /price/);
  });

  test('owner or operator only; the platform wallet sends setSale and GET reads the contract back', async () => {
    assert.equal((await put(collectionId, bearer(bob), valid())).status, 403);
    const before = await call(`${mp.backendUrl}/nft/collections/${collectionId}/sale`, { headers: bearer(bob) });
    assert.equal(before.status, 200);
    assert.equal(before.body.data.configured, false);

    const r = await put(collectionId, bearer(alice), valid());
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.match(r.body.data.tx_hash, /^0x[0-9a-f]{64}$/);
    const got = await call(`${mp.backendUrl}/nft/collections/${collectionId}/sale`, { headers: bearer(alice) });
    assert.equal(got.status, 200);
    const v = valid();
    assert.deepEqual(
      {
        ...got.body.data,
        payouts: got.body.data.payouts.map((p: { address: string; bps: number }) => ({ ...p, address: p.address.toLowerCase() })),
      },
      {
        collection_address: contract,
        chain_id: 31337,
        configured: true,
        paused: false,
        currency: 'native',
        price: v.price,
        start: '2026-01-01T00:00:00.000Z',
        end: null,
        max_per_wallet: 3,
        merkle_root: v.merkle_root,
        payouts: v.payouts,
      },
    );
    // straight from the contract too
    const [cfg] = await mp.client.readContract({ address: contract, abi: collectionAbi, functionName: 'saleConfig' });
    assert.equal(cfg.price, 1_000_000_000_000_000n);
    assert.equal(cfg.maxPerWallet, 3);
  });

  test('the admin proxy forwards both', async () => {
    const usd = mp.stablecoin;
    const body = { ...valid(), collectionId, currency: usd, price: '2500000', merkle_root: null, max_per_wallet: null };
    const r = await call(`${mp.adminUrl}/api/nft/collections/sale`, { method: 'PUT', headers: asService(), body });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.success, true);
    const got = await call(`${mp.adminUrl}/api/nft/collections/sale?collectionId=${collectionId}`, { headers: asService() });
    assert.equal(got.status, 200, JSON.stringify(got.body));
    assert.equal(got.body.currency.toLowerCase(), usd.toLowerCase());
    assert.equal(got.body.price, '2500000');
    assert.equal(got.body.max_per_wallet, null);
    const bad = await call(`${mp.adminUrl}/api/nft/collections/sale`, {
      method: 'PUT',
      headers: asService(),
      body: { ...body, price: 'x' },
    });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error ?? bad.body.message, /price/);
  });

  test('a creator-owned contract: 409 with the exact call, which the creator then sends', async () => {
    const creator = mp.wallet(1);
    const creatorAddress = getAddress(creator.account.address);
    const created = await call(`${mp.backendUrl}/nft/collections`, {
      body: { title: 'Creator owned', description: 'x', editions: 10, data: (await import('../helpers/platform.ts')).sampleData() },
      headers: asService(),
    });
    const id = created.body.data.collection.id as string;
    const sent = await mp.chain.sender(31337).send({
      purpose: 'test_create_collection',
      to: mp.deployment.contracts.DiamondFactory,
      data: encodeFunctionData({
        abi: diamondFactoryAbi,
        functionName: 'createCollection',
        args: [
          {
            name: 'Creator',
            symbol: 'CRT',
            baseURI: '',
            contractURI: '',
            maxSupply: 10n,
            royaltyReceiver: creatorAddress,
            royaltyBps: 0n,
            owner: creatorAddress,
            minter: mp.platformAddress,
          },
        ],
      }),
    });
    const [ev] = parseEventLogs({ abi: diamondFactoryAbi, logs: sent.receipt.logs, eventName: 'CollectionCreated' });
    const address = getAddress(ev!.args.diamond);
    await mp.database.db
      .update(collections)
      .set({ contract_address: address, chain_id: 31337, mint_status: 'deployed' })
      .where(eq(collections.id, id));

    const r = await put(id, asService(), valid());
    assert.equal(r.status, 409, JSON.stringify(r.body));
    assert.equal(r.body.code, 'OWNER_MUST_SIGN');
    assert.equal(r.body.call.to, address);
    assert.equal(r.body.call.from, creatorAddress);
    // the creator's wallet sends exactly that (EIP-1193 eth_sendTransaction in a browser)
    const hash = await creator.sendTransaction({ to: r.body.call.to as Address, data: r.body.call.data as Hex });
    assert.equal((await mp.client.waitForTransactionReceipt({ hash })).status, 'success');
    const got = await call(`${mp.backendUrl}/nft/collections/${id}/sale`, { headers: asService() });
    assert.equal(got.body.data.configured, true);
    assert.equal(got.body.data.max_per_wallet, 3);
    // not deployed: 409 NOT_DEPLOYED
    const fresh = await call(`${mp.backendUrl}/nft/collections`, {
      body: { title: 'Undeployed', description: 'x', editions: 10, data: (await import('../helpers/platform.ts')).sampleData() },
      headers: asService(),
    });
    const nd = await put(fresh.body.data.collection.id, asService(), valid());
    assert.equal(nd.status, 409);
    assert.equal(nd.body.code, 'NOT_DEPLOYED');
  });
});

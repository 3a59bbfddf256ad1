/**
 * A collection's mint policy (docs/minting.md "Mint policy"), two users with
 * ordinary JWTs on the real backend and a real anvil: Alice owns the collection, Bob mints.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { getAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { collectionAbi } from '../../contracts/abi/index.ts';
import { ANVIL_PRIVATE_KEYS } from '../../src/chain/anvil.ts';
import { claimMintPayment, earlierMintPayment } from '../../src/db/mint-policy.ts';
import { chainTransactions, collections } from '../../src/db/schema/index.ts';
import { merkleProof, merkleRoot } from '../../src/domain/mint-policy.ts';
import { bearer, userToken } from '../helpers/content.ts';
import { asService, call } from '../helpers/platform.ts';
import { linkWallet } from '../helpers/wallets.ts';
import { payStablecoin, startMintingPlatform, type MintingPlatform } from './helpers.ts';

const PRICE = 2_000_000n;

describe('mint policy: owner-only by default, public by policy, paid from the minter’s own wallet', () => {
  let mp: MintingPlatform;
  let alice: string;
  let bob: string;
  let collectionId: string;
  let contract: `0x${string}`;
  const bobWallet = privateKeyToAccount(ANVIL_PRIVATE_KEYS[2]!);
  const strayWallet = privateKeyToAccount(ANVIL_PRIVATE_KEYS[3]!);
  const payout = getAddress(privateKeyToAccount(ANVIL_PRIVATE_KEYS[5]!).address);
  const put = (token: string, body: Record<string, unknown>) =>
    call(`${mp.backendUrl}/nft/collections/${collectionId}`, { method: 'PUT', headers: bearer(token), body });
  const mint = (token: string, body: Record<string, unknown>) =>
    call(`${mp.backendUrl}/nft/collections/${collectionId}/mint`, { headers: bearer(token), body });

  before(async () => {
    mp = await startMintingPlatform({ worker: false, env: { SIWE_DOMAIN: 'atelier.test' } });
    alice = await userToken('policy-alice');
    bob = await userToken('policy-bob');
    const aliceId = (await call(`${mp.backendUrl}/api/me`, { headers: bearer(alice) })).body.data.id as string;
    const deployed = await mp.deployedCollection({ title: 'Policy', editions: 50 });
    collectionId = deployed.id;
    contract = deployed.address;
    // Alice's collection (creator-owned records are another part of the issue; set here directly).
    await mp.database.db.update(collections).set({ user_id: aliceId }).where(eq(collections.id, collectionId));
    assert.equal((await linkWallet(mp.backendUrl, bob, bobWallet)).status, 200);
  });
  after(() => mp.close());

  test('owner-only by default: Bob cannot mint, nor change the policy; Alice sets it', async () => {
    const refused = await mint(bob, { recipient: bobWallet.address, quantity: 1 });
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.match(refused.body.error, /owner/);
    const notHis = await put(bob, { mint_access: 'public' });
    assert.equal(notHis.status, 403);

    const bad = await put(alice, { mint_start: '2030-01-02T00:00:00Z', mint_end: '2030-01-01T00:00:00Z' });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /mint_end/);
    const zero = await put(alice, { payout_address: `0x${'0'.repeat(40)}` });
    assert.equal(zero.status, 400);
    assert.match(zero.body.error, /payout_address.*zero address/);
    const set = await put(alice, { mint_access: 'public', mint_price: PRICE.toString(), payout_address: payout, max_per_wallet: 2 });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.deepEqual(
      { ...set.body.data.collection.mint_policy },
      {
        access: 'public',
        price: PRICE.toString(),
        mint_price: PRICE.toString(),
        payout_address: payout,
        max_per_wallet: 2,
        allowlist: null,
        merkle_root: null,
        start: null,
        end: null,
      },
    );
  });

  test('a public mint: refused unpaid, refused to a wallet Bob did not prove, accepted once with his payment', async () => {
    const unpaid = await mint(bob, { recipient: bobWallet.address, quantity: 1 });
    assert.equal(unpaid.status, 402, JSON.stringify(unpaid.body));
    assert.equal(
      unpaid.body.amount_due ?? unpaid.body.data?.amount_due ?? JSON.parse(JSON.stringify(unpaid.body)).amount_due,
      PRICE.toString(),
    );

    const strayHash = await payStablecoin(mp, 3, payout, PRICE);
    const stray = await mint(bob, { recipient: strayWallet.address, quantity: 1, tx_hash: strayHash });
    assert.equal(stray.status, 403, JSON.stringify(stray.body));
    assert.match(stray.body.error, /not linked to you/);

    const hash = await payStablecoin(mp, 2, payout, PRICE);
    const ok = await mint(bob, { recipient: bobWallet.address, quantity: 1, tx_hash: hash });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    const tokenId = BigInt(ok.body.data.token_ids[0]);
    const owner = await mp.client.readContract({ address: contract, abi: collectionAbi, functionName: 'ownerOf', args: [tokenId] });
    assert.equal(getAddress(owner as string), bobWallet.address, 'the token is in the minter’s wallet');
    const replay = await mint(bob, { recipient: bobWallet.address, quantity: 1, tx_hash: hash });
    assert.equal(replay.status, 409, JSON.stringify(replay.body));
    assert.match(replay.body.error, /already used/);

    // The resume check a retry after a timeout uses: that payment with the sender key of the mint
    // transaction it paid for, and nothing else.
    const [sent] = await mp.database.db
      .select({ key: chainTransactions.idempotency_key })
      .from(chainTransactions)
      .where(eq(chainTransactions.hash, ok.body.data.tx_hash));
    const q = { chainId: 31337, txHash: hash, payer: bobWallet.address, collectionId, senderKey: sent!.key! };
    assert.deepEqual(await earlierMintPayment(mp.database.db, q), { kind: 'replay' });
    assert.equal(await earlierMintPayment(mp.database.db, { ...q, senderKey: 'mint:another-request' }), null);
    assert.equal(await earlierMintPayment(mp.database.db, { ...q, payer: strayWallet.address }), null);
  });

  test('max_per_wallet: over the limit is refused and its payment given back; the limit holds', async () => {
    const hash = await payStablecoin(mp, 2, payout, 2n * PRICE);
    const over = await mint(bob, { recipient: bobWallet.address, quantity: 2, tx_hash: hash });
    assert.equal(over.status, 409, JSON.stringify(over.body));
    assert.match(over.body.error, /1 minted, 2 more asked/);
    // The refused request did not use the payment: it pays for the one token still allowed.
    const one = await mint(bob, { recipient: bobWallet.address, quantity: 1, tx_hash: hash });
    assert.equal(one.status, 201, JSON.stringify(one.body));
    const hash2 = await payStablecoin(mp, 2, payout, PRICE);
    const third = await mint(bob, { recipient: bobWallet.address, quantity: 1, tx_hash: hash2 });
    assert.equal(third.status, 409);
    assert.match(third.body.error, /may mint 2/);
  });

  test('the window and a Merkle allowlist', async () => {
    await put(alice, { max_per_wallet: null, mint_start: new Date(Date.now() + 3_600_000).toISOString() });
    const hash = await payStablecoin(mp, 2, payout, PRICE);
    const early = await mint(bob, { recipient: bobWallet.address, quantity: 1, tx_hash: hash });
    assert.equal(early.status, 409);
    assert.match(early.body.error, /opens at/);

    const list = [privateKeyToAccount(ANVIL_PRIVATE_KEYS[4]!).address, bobWallet.address, payout];
    const set = await put(alice, { mint_start: null, mint_merkle_root: merkleRoot(list) });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const noProof = await mint(bob, { recipient: bobWallet.address, quantity: 1, tx_hash: hash });
    assert.equal(noProof.status, 403);
    assert.match(noProof.body.error, /allowlist/);
    const proven = await mint(bob, {
      recipient: bobWallet.address,
      quantity: 1,
      tx_hash: hash,
      merkle_proof: merkleProof(list, bobWallet.address),
    });
    assert.equal(proven.status, 201, JSON.stringify(proven.body));
  });

  test('mint-and-generate by Bob charges his credits for the artwork', async () => {
    await put(alice, { mint_merkle_root: null });
    const credits = async () => (await call(`${mp.backendUrl}/api/credits`, { headers: bearer(bob) })).body.data.balance as number;
    const before = await credits();
    const hash = await payStablecoin(mp, 2, payout, PRICE);
    const r = await call(`${mp.backendUrl}/nft/collections/${collectionId}/mint-and-generate`, {
      headers: bearer(bob),
      body: { recipient: bobWallet.address, variables: {}, tx_hash: hash },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(await credits(), before - mp.config.CREDITS_PER_GENERATION);
  });

  test('a retry after a crash between claiming the payment and recording the mint uses that payment, once', async () => {
    const withKey = (key: string, body: Record<string, unknown>) =>
      call(`${mp.backendUrl}/nft/collections/${collectionId}/mint`, { headers: { ...bearer(bob), 'idempotency-key': key }, body });
    // A paid mint with a key names the request's chain-write key (a crashed run's differs only by its key).
    const paid = await payStablecoin(mp, 2, payout, PRICE);
    const first = await withKey('crash-probe-1', { recipient: bobWallet.address, quantity: 1, tx_hash: paid });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const [sent] = await mp.database.db
      .select({ key: chainTransactions.idempotency_key })
      .from(chainTransactions)
      .where(eq(chainTransactions.hash, first.body.data.tx_hash));
    assert.match(sent!.key!, /:crash-probe-1$/);
    const crashedKey = sent!.key!.replace(/crash-probe-1$/, 'crash-probe-2');

    // What a kill -9 leaves between the two steps: the payment claimed by that request, no mint transaction.
    const hash = await payStablecoin(mp, 2, payout, PRICE);
    const record = { chainId: 31337, txHash: hash, token: mp.stablecoin, payer: bobWallet.address, recipient: payout, amount: PRICE };
    await claimMintPayment(mp.database.db, record, collectionId, crashedKey);
    const body = { recipient: bobWallet.address, quantity: 1, tx_hash: hash };
    const other = await withKey('not-that-request', body);
    assert.equal(other.status, 409, JSON.stringify(other.body));
    assert.match(other.body.error, /already used/);
    const retry = await withKey('crash-probe-2', body);
    assert.equal(retry.status, 201, JSON.stringify(retry.body));
    const tokenId = BigInt(retry.body.data.token_ids[0]);
    const owner = await mp.client.readContract({ address: contract, abi: collectionAbi, functionName: 'ownerOf', args: [tokenId] });
    assert.equal(getAddress(owner as string), bobWallet.address);
    // Once: the same hash under a new key is refused, and the retried key replays its answer.
    const again = await withKey('crash-probe-3', body);
    assert.equal(again.status, 409, JSON.stringify(again.body));
    const replayed = await withKey('crash-probe-2', body);
    assert.equal(replayed.status, 201);
    assert.deepEqual(replayed.body.data.token_ids, retry.body.data.token_ids);

    // A claim that no longer covers the price (half of it here) does not pay for the retry.
    const half = await payStablecoin(mp, 2, payout, PRICE / 2n);
    await claimMintPayment(mp.database.db, { ...record, txHash: half, amount: PRICE / 2n }, collectionId, crashedKey.replace(/2$/, '4'));
    const short = await withKey('crash-probe-4', { ...body, tx_hash: half });
    assert.ok(short.status >= 400 && short.status < 500, JSON.stringify(short.body));
  });

  test('max_per_wallet holds under concurrency: 6 free public mints at once, limit 2, exactly 2 minted', async () => {
    const set = await put(alice, { mint_price: '0', max_per_wallet: 2 });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const carol = await userToken('policy-carol');
    const carolWallet = privateKeyToAccount(ANVIL_PRIVATE_KEYS[7]!);
    assert.equal((await linkWallet(mp.backendUrl, carol, carolWallet)).status, 200);
    const replies = await Promise.all(Array.from({ length: 6 }, () => mint(carol, { recipient: carolWallet.address, quantity: 1 })));
    const statuses = replies.map((r) => r.status).sort();
    assert.deepEqual(statuses, [201, 201, 409, 409, 409, 409], JSON.stringify(replies.map((r) => r.body)));
    const held = await mp.client.readContract({
      address: contract,
      abi: collectionAbi,
      functionName: 'balanceOf',
      args: [carolWallet.address],
    });
    assert.equal(held, 2n);
  });

  test('the admin update forwards the mint policy', async () => {
    const r = await call(`${mp.adminUrl}/api/nft/collections/update`, {
      method: 'PUT',
      headers: asService(),
      body: { collectionId, mint_access: 'owner', mint_allowlist: [bobWallet.address] },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.collection.mint_policy.access, 'owner');
    assert.deepEqual(r.body.collection.mint_policy.allowlist, [bobWallet.address.toLowerCase()]);
    const refused = await mint(bob, { recipient: bobWallet.address, quantity: 1 });
    assert.equal(refused.status, 403);
  });
});

/**
 * Payments bound to the payer (docs/minting.md "Payment verification"): a paid sample counts only from a wallet the caller
 * proved with Sign-In with Ethereum. Two users with ordinary JWTs, the real backend, real anvil.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { count, eq } from 'drizzle-orm';
import { privateKeyToAccount } from 'viem/accounts';
import { ANVIL_PRIVATE_KEYS } from '../../src/chain/anvil.ts';
import { payments, samples } from '../../src/db/schema/index.ts';
import { bearer, userToken } from '../helpers/content.ts';
import { asService, call, sampleData } from '../helpers/platform.ts';
import { linkWallet } from '../helpers/wallets.ts';
import { payStablecoin, startMintingPlatform, type MintingPlatform } from './helpers.ts';

const COST = 1_000_000n;

describe('paid samples count only from the caller’s linked wallet', () => {
  let mp: MintingPlatform;
  let alice: string;
  let bob: string;
  let collectionId: string;
  const aliceWallet = privateKeyToAccount(ANVIL_PRIVATE_KEYS[1]!);
  const post = (headers: Record<string, string>, body: Record<string, unknown>) =>
    call(`${mp.backendUrl}/nft/collections/${collectionId}/samples`, { headers, body });
  const rows = async () => ({
    samples: Number((await mp.database.db.select({ n: count() }).from(samples).where(eq(samples.collection_id, collectionId)))[0]!.n),
    payments: Number((await mp.database.db.select({ n: count() }).from(payments))[0]!.n),
  });

  before(async () => {
    mp = await startMintingPlatform({ worker: false, env: { SIWE_DOMAIN: 'atelier.test' } });
    alice = await userToken('payer-alice');
    bob = await userToken('payer-bob');
    const created = await call(`${mp.backendUrl}/nft/collections`, {
      headers: asService(),
      body: { title: 'Paid samples', description: 'd', editions: 10, data: sampleData() },
    });
    collectionId = created.body.data.collection.id;
  });
  after(() => mp.close());

  test("Bob cannot claim Alice's payment; Alice, having linked the paying wallet, is accepted once", async () => {
    const hash = await payStablecoin(mp, 1, mp.platformAddress, COST);

    // Before Alice links her wallet, not even she can claim it.
    const unlinked = await post(bearer(alice), { count: 1, wallet_address: aliceWallet.address, tx_hash: hash });
    assert.equal(unlinked.status, 403, JSON.stringify(unlinked.body));
    assert.match(unlinked.body.error, /not a wallet linked to you/);

    const linked = await linkWallet(mp.backendUrl, alice, aliceWallet);
    assert.equal(linked.status, 200, JSON.stringify(linked.body));

    const stolen = await post(bearer(bob), { count: 1, wallet_address: aliceWallet.address, tx_hash: hash });
    assert.equal(stolen.status, 403, JSON.stringify(stolen.body));
    assert.match(stolen.body.error, /wallet_address/);
    assert.deepEqual(await rows(), { samples: 0, payments: 0 });

    const accepted = await post(bearer(alice), { count: 1, wallet_address: aliceWallet.address, tx_hash: hash });
    assert.equal(accepted.status, 201, JSON.stringify(accepted.body));
    assert.equal(accepted.body.samples[0].is_free, false);
    const again = await post(bearer(alice), { count: 1, wallet_address: aliceWallet.address, tx_hash: hash });
    assert.equal(again.status, 409, JSON.stringify(again.body));
    assert.deepEqual(await rows(), { samples: 1, payments: 1 });
  });

  test('requester wallets: shown to the operator and to the requester, hidden from another user', async () => {
    const list = (headers: Record<string, string>, query = '') =>
      call(`${mp.backendUrl}/nft/collections/${collectionId}/samples${query}`, { headers });
    const byOperator = await list(asService());
    assert.equal(byOperator.body.samples[0].wallet_address, aliceWallet.address);
    const byAlice = await list(bearer(alice));
    assert.equal(byAlice.body.samples[0].wallet_address, aliceWallet.address);
    const byBob = await list(bearer(bob));
    assert.equal(byBob.status, 200);
    assert.equal(byBob.body.samples.length, 1);
    assert.equal(byBob.body.samples[0].wallet_address, null);
    const probe = await list(bearer(bob), `?wallet_address=${aliceWallet.address}`);
    assert.equal(probe.status, 403, JSON.stringify(probe.body));
    assert.equal((await list(bearer(alice), `?wallet_address=${aliceWallet.address}`)).status, 200);
  });
});

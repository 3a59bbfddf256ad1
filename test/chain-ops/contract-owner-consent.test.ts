/**
 * Nobody is made the owner() of a contract they never asked for (docs/permissions.md "Contracts the
 * creator owns"): a user deploying their collection names as `owner` only a wallet they proved
 * (Sign-In with Ethereum) or the platform wallet — on the backend's deploy and on the admin
 * proxy's deploy by id alike; another user's linked wallet, or any other address, is 403 naming
 * `owner`, and nothing is sent or claimed. The operator names any address.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { privateKeyToAccount } from 'viem/accounts';
import type { Address } from 'viem';
import { collectionAbi } from '../../contracts/abi/index.ts';
import { ANVIL_PRIVATE_KEYS } from '../../src/chain/anvil.ts';
import { DEV_ADDRESS } from '../../src/chain/wallet.ts';
import { userIdentities } from '../../src/db/schema/index.ts';
import { WALLET_PROVIDER } from '../../src/db/wallets.ts';
import { bearer, userToken } from '../helpers/content.ts';
import { call, sampleData } from '../helpers/platform.ts';
import { adminCall, backendCall, collectionParams, deployFactory, startChainPlatform, type ChainPlatform } from './helpers.ts';

const aliceWallet = privateKeyToAccount(ANVIL_PRIVATE_KEYS[5]).address;
const aliceSecond = privateKeyToAccount(ANVIL_PRIVATE_KEYS[8]).address;
const bobWallet = privateKeyToAccount(ANVIL_PRIVATE_KEYS[6]).address;
const stranger = privateKeyToAccount(ANVIL_PRIVATE_KEYS[7]).address;

describe("a deploy names as owner() only the caller's own wallet or the platform's", { timeout: 150_000 }, () => {
  let p: ChainPlatform;
  let alice: Record<string, string>;

  const ownerOf = (address: string) =>
    p.chain.client(31337).readContract({ address: address as Address, abi: collectionAbi, functionName: 'owner' });
  const newCollection = async (title: string) => {
    const r = await backendCall(p, '/nft/collections', { title, editions: 5, data: sampleData() }, alice);
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.data.collection.id as string;
  };
  const backendDeploy = (id: string, owner: string, headers = alice) =>
    backendCall(p, `/nft/collections/${id}/deploy`, { owner, royalty_bps: 0 }, headers);
  const adminDeploy = (id: string, owner: string) =>
    call(`${p.adminUrl}/api/nft/collections/deploy`, { headers: alice, body: { collectionId: id, owner, royalty_bps: 0 } });
  const record = async (id: string) => (await backendCall(p, `/nft/collections/${id}`, undefined, alice)).body.data.collection;

  before(async () => {
    p = await startChainPlatform();
    await deployFactory(p);
    alice = bearer(await userToken('consent-alice'));
    const bob = bearer(await userToken('consent-bob'));
    const aliceId = (await backendCall(p, '/api/me', undefined, alice)).body.data.id;
    const bobId = (await backendCall(p, '/api/me', undefined, bob)).body.data.id;
    // Linked wallets, as Sign-In with Ethereum records them: Alice two, Bob one.
    await p.database.db.insert(userIdentities).values([
      { user_id: aliceId, provider: WALLET_PROVIDER, provider_user_id: aliceWallet.toLowerCase() },
      { user_id: aliceId, provider: WALLET_PROVIDER, provider_user_id: aliceSecond.toLowerCase() },
      { user_id: bobId, provider: WALLET_PROVIDER, provider_user_id: bobWallet.toLowerCase() },
    ]);
  });
  after(() => p?.close());

  test("another user's linked wallet or a stranger's address: 403 naming owner, nothing claimed or sent", async () => {
    for (const [route, deploy] of [
      ['backend', backendDeploy],
      ['admin proxy', adminDeploy],
    ] as const) {
      for (const owner of [bobWallet, stranger]) {
        const id = await newCollection(`Not theirs ${route} ${owner.slice(0, 6)}`);
        const r = await deploy(id, owner);
        assert.equal(r.status, 403, `${route}: ${JSON.stringify(r.body)}`);
        assert.match(String(r.body.error), new RegExp(`owner: ${owner} is neither a wallet you linked`), route);
        const after = await record(id);
        assert.equal(after.contract_address, null, route);
        assert.equal(after.mint_status, 'draft', `${route}: the claim is not taken`);
      }
    }
  });

  test('their own linked wallets (either of them) and the platform wallet are accepted, on both routes', async () => {
    const cases = [
      ['backend', backendDeploy, aliceSecond],
      ['admin proxy', adminDeploy, aliceWallet],
      ['backend', backendDeploy, DEV_ADDRESS],
    ] as const;
    for (const [route, deploy, owner] of cases) {
      const id = await newCollection(`Theirs ${route} ${owner.slice(0, 6)}`);
      const r = await deploy(id, owner.toLowerCase());
      assert.equal(r.status, 200, `${route}: ${JSON.stringify(r.body)}`);
      assert.equal(await ownerOf(r.body.data?.contract_address ?? r.body.contract_address), owner, route);
    }
  });

  test('the operator names any address, on the design deploy and on the raw admin deploy', async () => {
    const id = await newCollection('Operator chooses');
    const r = await backendDeploy(id, stranger, { 'x-api-key': p.config.API_KEY! });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(await ownerOf(r.body.data.contract_address), stranger);
    const raw = await adminCall(p, '/api/nft/collections', collectionParams(31, { owner: stranger }));
    assert.equal(raw.status, 200, JSON.stringify(raw.body));
    assert.equal(raw.body.collection.owner, stranger);
  });
});

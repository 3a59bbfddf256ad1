/**
 * Creator-owned collections through the platform (docs/permissions.md "Contracts the creator owns"): both
 * deploy paths make the creator's linked wallet (or the `owner` given) the diamond's owner() and
 * the platform wallet only its minter. The platform mints; its admin actions answer 409 naming
 * the owner; the owner freezes upgrades from their own wallet (viem), after which a diamondCut
 * reverts. On a platform-owned collection, freezeUpgrades is an admin action.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createWalletClient, getAddress, http, toFunctionSelector, zeroAddress, type Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { collectionAbi } from '../../contracts/abi/index.ts';
import { ANVIL_PRIVATE_KEYS } from '../../src/chain/anvil.ts';
import { DEV_ADDRESS } from '../../src/chain/wallet.ts';
import { WALLET_PROVIDER } from '../../src/db/wallets.ts';
import { userIdentities } from '../../src/db/schema/index.ts';
import { bearer, userToken } from '../helpers/content.ts';
import { sampleData } from '../helpers/platform.ts';
import { adminCall, backendCall, collectionParams, deployFactory, startChainPlatform, type ChainPlatform } from './helpers.ts';

const creator = privateKeyToAccount(ANVIL_PRIVATE_KEYS[5]);
const collector = privateKeyToAccount(ANVIL_PRIVATE_KEYS[6]).address;
const chosen = privateKeyToAccount(ANVIL_PRIVATE_KEYS[7]).address;
const DIAMOND_CUT = toFunctionSelector('diamondCut((address,uint8,bytes4[])[],address,bytes)');

describe('creator-owned collections through the platform', { timeout: 120_000 }, () => {
  let p: ChainPlatform;
  let A: Record<string, string>;
  let aId: string;

  const read = (address: string, functionName: string, args: unknown[] = []) =>
    p.chain
      .client(31337)
      .readContract({ address: address as Address, abi: collectionAbi, functionName: functionName as never, args: args as never });
  const newCollection = async (headers: Record<string, string>, title: string) => {
    const r = await backendCall(p, '/nft/collections', { title, editions: 20, data: sampleData() }, headers);
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.data.collection.id as string;
  };
  const designDeploy = async (id: string, headers: Record<string, string>, extra: Record<string, unknown> = {}) => {
    const r = await backendCall(
      p,
      `/nft/collections/${id}/deploy`,
      { max_supply: 20, royalty_bps: 0, royalty_receiver: creator.address, ...extra },
      headers,
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.data.contract_address as Address;
  };

  before(async () => {
    p = await startChainPlatform();
    await deployFactory(p);
    A = bearer(await userToken('creator-owned-a'));
    aId = (await backendCall(p, '/api/me', undefined, A)).body.data.id;
    // A's linked wallet (what Sign-In with Ethereum records: a user_identity of the wallet provider).
    await p.database.db.insert(userIdentities).values({ user_id: aId, provider: WALLET_PROVIDER, provider_user_id: creator.address });
  });
  after(() => p?.close());

  test('design-stage deploy: owner() is the linked wallet, minter() the platform; the platform mints', async () => {
    const id = await newCollection(A, 'Creator owned');
    const c = await designDeploy(id, A);
    assert.equal(await read(c, 'owner'), creator.address);
    assert.equal(await read(c, 'minter'), DEV_ADDRESS);
    const m = await backendCall(p, `/nft/collections/${id}/mint`, { recipient: collector, quantity: 2 }, A);
    assert.equal(m.status, 201, JSON.stringify(m.body));
    assert.equal(await read(c, 'ownerOf', [2n]), collector);
  });

  test("an explicit owner wins (the operator's choice); a collection without a linked creator stays the platform's", async () => {
    // A user names only a wallet they proved (test/chain-ops/contract-owner-consent.test.ts); the operator any.
    const c = await designDeploy(await newCollection(A, 'Chosen owner'), { 'x-api-key': p.config.API_KEY! }, { owner: chosen });
    assert.equal(await read(c, 'owner'), chosen);
    const platform = await designDeploy(await newCollection({ 'x-api-key': p.config.API_KEY! }, 'Platform owned'), {
      'x-api-key': p.config.API_KEY!,
    });
    assert.equal(await read(platform, 'owner'), DEV_ADDRESS);
    const bad = await backendCall(
      p,
      `/nft/collections/${await newCollection(A, 'Bad owner')}/deploy`,
      { max_supply: 5, royalty_bps: 0, royalty_receiver: creator.address, owner: '0x12' },
      A,
    );
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /body\.owner/);
  });

  test("admin deploy of a platform record: the record creator's linked wallet owns it unless owner is given", async () => {
    const id = await newCollection(A, 'Admin deployed');
    const r = await adminCall(p, '/api/nft/collections', collectionParams(21, { platformCollectionId: id }));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.collection.owner, creator.address);
    assert.equal(await read(r.body.collection.address, 'minter'), DEV_ADDRESS);
    const id2 = await newCollection(A, 'Admin deployed, chosen');
    const r2 = await adminCall(p, '/api/nft/collections', collectionParams(22, { platformCollectionId: id2, owner: chosen }));
    assert.equal(r2.body.collection.owner, chosen);
  });

  test("the platform's admin actions answer 409 naming the owner; the owner freezes upgrades and a later cut reverts", async () => {
    const id = await newCollection(A, 'Frozen by its creator');
    const c = await designDeploy(id, A);
    for (const [action, value] of [
      ['setMintActive', false],
      ['freezeUpgrades', true],
      ['setBaseURI', 'https://example.com/t/'],
    ] as const) {
      const r = await adminCall(p, '/api/nft/admin', { chainId: 31337, collectionAddress: c, action, value });
      assert.equal(r.status, 409, JSON.stringify(r.body));
      assert.match(r.body.error, new RegExp(`owned by ${creator.address}`));
      assert.match(r.body.error, /cast send/);
    }
    // The creator, from their own wallet.
    const wallet = createWalletClient({ account: creator, chain: foundry, transport: http(p.anvil.rpcUrl) });
    const client = p.chain.client(31337);
    const cut = () =>
      client.simulateContract({
        account: creator,
        address: c,
        abi: collectionAbi,
        functionName: 'diamondCut',
        args: [[], zeroAddress, '0x'],
      });
    await cut(); // before the freeze the owner may cut
    const hash = await wallet.writeContract({ address: c, abi: collectionAbi, functionName: 'freezeUpgrades' });
    assert.equal((await client.waitForTransactionReceipt({ hash })).status, 'success');
    assert.equal(await read(c, 'upgradesFrozen'), true);
    assert.equal(await read(c, 'facetAddress', [DIAMOND_CUT]), zeroAddress, 'the loupe shows diamondCut gone');
    await assert.rejects(cut(), (err: Error) => /UpgradesAreFrozen|FunctionNotFound/.test(err.message));
    // the platform still mints as minter
    const m = await backendCall(p, `/nft/collections/${id}/mint`, { recipient: collector }, A);
    assert.equal(m.status, 201, JSON.stringify(m.body));
  });

  test('freezeUpgrades as an admin action on a platform-owned collection', async () => {
    const r = await adminCall(p, '/api/nft/collections', collectionParams(23));
    const c = getAddress(r.body.collection.address);
    assert.equal(await read(c, 'upgradesFrozen'), false);
    const frozen = await adminCall(p, '/api/nft/admin', { chainId: 31337, collectionAddress: c, action: 'freezeUpgrades' });
    assert.equal(frozen.status, 200, JSON.stringify(frozen.body));
    assert.equal(frozen.body.action, 'freezeUpgrades');
    assert.equal(await read(c, 'upgradesFrozen'), true);
    const again = await adminCall(p, '/api/nft/admin', { chainId: 31337, collectionAddress: c, action: 'freezeUpgrades', value: true });
    assert.equal(again.status, 409, `a second freeze is refused by the contract: ${JSON.stringify(again.body)}`);
  });

  test('freezeMetadata as an admin action: the URI setters refuse afterwards, a second freeze is 409 naming MetadataIsFrozen', async () => {
    const r = await adminCall(p, '/api/nft/collections', collectionParams(24));
    const c = getAddress(r.body.collection.address);
    const set = await adminCall(p, '/api/nft/admin', {
      chainId: 31337,
      collectionAddress: c,
      action: 'setBaseURI',
      value: 'ipfs://bafyfrozen/metadata/',
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const frozen = await adminCall(p, '/api/nft/admin', { chainId: 31337, collectionAddress: c, action: 'freezeMetadata' });
    assert.equal(frozen.status, 200, JSON.stringify(frozen.body));
    assert.equal(await read(c, 'metadataFrozen'), true);
    const again = await adminCall(p, '/api/nft/admin', { chainId: 31337, collectionAddress: c, action: 'freezeMetadata', value: true });
    assert.equal(again.status, 409, JSON.stringify(again.body));
    assert.match(again.body.error, /MetadataIsFrozen/);
    const change = await adminCall(p, '/api/nft/admin', {
      chainId: 31337,
      collectionAddress: c,
      action: 'setBaseURI',
      value: 'https://elsewhere.example/',
    });
    assert.equal(change.status, 409, JSON.stringify(change.body));
    assert.match(change.body.error, /MetadataIsFrozen/);
    const bad = await adminCall(p, '/api/nft/admin', { chainId: 31337, collectionAddress: c, action: 'freezeMetadata', value: false });
    assert.equal(bad.status, 400);
  });
});

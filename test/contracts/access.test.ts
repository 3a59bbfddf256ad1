/**
 * Access control on every mutating function, max supply, the mint switch, royalties (ERC-2981),
 * ERC-4906 and ERC-7572 events, ownership transfer (ERC-173), creation events.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { parseEventLogs, zeroAddress, maxUint256, type Address } from 'viem';
import { collectionAbi, diamondFactoryAbi } from '../../contracts/abi/index.ts';
import { setupChain, defaultParams, createCollection, write, read, revertName, type ChainContext, type Wallet } from './fixture.ts';

describe('access control, supply, mint switch, royalties and events', () => {
  let ctx: ChainContext;
  let c: Address;
  let owner: Wallet, minter: Wallet, stranger: Wallet, alice: Wallet, newOwner: Wallet;

  before(async () => {
    ctx = await setupChain();
    [owner, minter, stranger, alice, newOwner] = ctx.wallets as [Wallet, Wallet, Wallet, Wallet, Wallet];
    ({ address: c } = await createCollection(
      ctx,
      defaultParams(owner.account.address, minter.account.address, {
        maxSupply: 12n,
        royaltyReceiver: alice.account.address,
        royaltyBps: 750n,
      }),
    ));
  });
  after(async () => {
    await ctx?.stop();
  });

  test('creation state: owner, minter, maxSupply, mint switch on, supply 0', async () => {
    assert.equal(await read(ctx, c, 'owner'), owner.account.address);
    assert.equal(await read(ctx, c, 'minter'), minter.account.address);
    assert.equal(await read(ctx, c, 'maxSupply'), 12n);
    assert.equal(await read(ctx, c, 'mintActive'), true);
    assert.equal(await read(ctx, c, 'totalSupply'), 0n);
  });

  test('every owner-only function refuses the minter and strangers', async () => {
    const ownerOnly: Array<[string, unknown[]]> = [
      ['setMintActive', [false]],
      ['setMinter', [stranger.account.address]],
      ['setMaxSupply', [100n]],
      ['setBaseURI', ['x://']],
      ['setContractURI', ['x://c.json']],
      ['transferOwnership', [stranger.account.address]],
      ['setDefaultRoyalty', [stranger.account.address, 100n]],
      ['diamondCut', [[], zeroAddress, '0x']],
    ];
    for (const [fn, args] of ownerOnly) {
      for (const who of [minter, stranger]) {
        assert.equal(await revertName(ctx, who, c, fn, args), 'NotOwner', `${fn} by ${who === minter ? 'minter' : 'stranger'}`);
      }
    }
  });

  test('owner-or-minter functions refuse strangers and accept both', async () => {
    const shared: Array<[string, unknown[]]> = [
      ['mintTo', [alice.account.address, 1n]],
      ['emitMetadataUpdate', [1n]],
      ['emitBatchMetadataUpdate', [1n, 2n]],
    ];
    for (const [fn, args] of shared) {
      assert.equal(await revertName(ctx, stranger, c, fn, args), 'NotOwnerOrMinter', fn);
      await write(ctx, minter, c, fn, args);
      await write(ctx, owner, c, fn, args);
    }
    assert.equal(await read(ctx, c, 'totalSupply'), 2n);
  });

  test('mintTo input checks: quantity 0, zero recipient', async () => {
    assert.equal(await revertName(ctx, minter, c, 'mintTo', [alice.account.address, 0n]), 'InvalidQuantity');
    assert.equal(await revertName(ctx, minter, c, 'mintTo', [zeroAddress, 1n]), 'ERC721InvalidReceiver');
  });

  test('mint switch: setMintActive(false) stops minting for everyone, true resumes', async () => {
    const r = await write(ctx, owner, c, 'setMintActive', [false]);
    assert.deepEqual(parseEventLogs({ abi: collectionAbi, logs: r.logs, eventName: 'MintActiveChanged' })[0]?.args, { active: false });
    assert.equal(await read(ctx, c, 'mintActive'), false);
    assert.equal(await revertName(ctx, minter, c, 'mintTo', [alice.account.address, 1n]), 'MintNotActive');
    assert.equal(await revertName(ctx, owner, c, 'mintTo', [alice.account.address, 1n]), 'MintNotActive');
    await write(ctx, owner, c, 'setMintActive', [true]);
    assert.equal(await read(ctx, c, 'mintActive'), true);
  });

  test('max supply: cannot mint past it; setMaxSupply not below totalSupply', async () => {
    await write(ctx, minter, c, 'mintTo', [alice.account.address, 9n]); // 11
    assert.equal(await revertName(ctx, minter, c, 'mintTo', [alice.account.address, 2n]), 'MaxSupplyExceeded');
    await write(ctx, minter, c, 'mintTo', [alice.account.address, 1n]); // 12 = max
    assert.equal(await read(ctx, c, 'totalSupply'), 12n);
    assert.equal(await revertName(ctx, minter, c, 'mintTo', [alice.account.address, 1n]), 'MaxSupplyExceeded');
    assert.equal(await revertName(ctx, owner, c, 'setMaxSupply', [11n]), 'InvalidMaxSupply');
    assert.equal(await revertName(ctx, owner, c, 'setMaxSupply', [2n ** 40n]), 'InvalidMaxSupply');
    const r = await write(ctx, owner, c, 'setMaxSupply', [20n]);
    assert.deepEqual(parseEventLogs({ abi: collectionAbi, logs: r.logs, eventName: 'MaxSupplyChanged' })[0]?.args, { maxSupply: 20n });
    assert.equal(await read(ctx, c, 'maxSupply'), 20n);
    await write(ctx, minter, c, 'mintTo', [alice.account.address, 8n]);
    assert.equal(await read(ctx, c, 'totalSupply'), 20n);
    assert.equal(await read(ctx, c, 'ownerOf', [20n]), alice.account.address);
  });

  test('setMinter replaces the minter', async () => {
    const r = await write(ctx, owner, c, 'setMinter', [stranger.account.address]);
    assert.deepEqual(parseEventLogs({ abi: collectionAbi, logs: r.logs, eventName: 'MinterChanged' })[0]?.args, {
      previousMinter: minter.account.address,
      newMinter: stranger.account.address,
    });
    assert.equal(await read(ctx, c, 'minter'), stranger.account.address);
    assert.equal(await revertName(ctx, minter, c, 'emitMetadataUpdate', [1n]), 'NotOwnerOrMinter');
    await write(ctx, stranger, c, 'emitMetadataUpdate', [1n]);
    await write(ctx, owner, c, 'setMinter', [minter.account.address]);
  });

  test('ERC-2981 royalties: creation value, setDefaultRoyalty, bounds', async () => {
    assert.deepEqual(await read(ctx, c, 'royaltyInfo', [1n, 10_000n]), [alice.account.address, 750n]);
    assert.deepEqual(await read(ctx, c, 'royaltyInfo', [5n, 3n * 10n ** 18n]), [alice.account.address, 225n * 10n ** 15n]);
    const r = await write(ctx, owner, c, 'setDefaultRoyalty', [newOwner.account.address, 250n]);
    assert.equal(parseEventLogs({ abi: collectionAbi, logs: r.logs, eventName: 'DefaultRoyaltyChanged' }).length, 1);
    assert.deepEqual(await read(ctx, c, 'royaltyInfo', [1n, 10_000n]), [newOwner.account.address, 250n]);
    assert.equal(await revertName(ctx, owner, c, 'setDefaultRoyalty', [alice.account.address, 10_001n]), 'InvalidRoyalty');
    assert.equal(await revertName(ctx, owner, c, 'setDefaultRoyalty', [zeroAddress, 100n]), 'InvalidRoyalty');
    await write(ctx, owner, c, 'setDefaultRoyalty', [zeroAddress, 0n]);
    assert.deepEqual(await read(ctx, c, 'royaltyInfo', [1n, 10_000n]), [zeroAddress, 0n]);
    // owner changes do not move the royalty
    await write(ctx, owner, c, 'setDefaultRoyalty', [alice.account.address, 1000n]);
    assert.deepEqual(await read(ctx, c, 'royaltyInfo', [1n, 100n]), [alice.account.address, 10n]);
  });

  test('ERC-4906: setBaseURI emits BatchMetadataUpdate(1, max); per-token and range updates', async () => {
    let r = await write(ctx, owner, c, 'setBaseURI', ['https://new.example/t/']);
    assert.deepEqual(parseEventLogs({ abi: collectionAbi, logs: r.logs, eventName: 'BatchMetadataUpdate' })[0]?.args, {
      _fromTokenId: 1n,
      _toTokenId: maxUint256,
    });
    assert.equal(r.logs[0]?.address.toLowerCase(), c.toLowerCase());
    r = await write(ctx, minter, c, 'emitMetadataUpdate', [7n]);
    assert.deepEqual(parseEventLogs({ abi: collectionAbi, logs: r.logs, eventName: 'MetadataUpdate' })[0]?.args, { _tokenId: 7n });
    r = await write(ctx, minter, c, 'emitBatchMetadataUpdate', [3n, 9n]);
    assert.deepEqual(parseEventLogs({ abi: collectionAbi, logs: r.logs, eventName: 'BatchMetadataUpdate' })[0]?.args, {
      _fromTokenId: 3n,
      _toTokenId: 9n,
    });
    assert.equal(await revertName(ctx, minter, c, 'emitBatchMetadataUpdate', [9n, 3n]), 'InvalidRange');
  });

  test('ERC-7572: setContractURI changes contractURI and emits ContractURIUpdated', async () => {
    const r = await write(ctx, owner, c, 'setContractURI', ['https://new.example/collection.json']);
    assert.equal(parseEventLogs({ abi: collectionAbi, logs: r.logs, eventName: 'ContractURIUpdated' }).length, 1);
    assert.equal(await read(ctx, c, 'contractURI'), 'https://new.example/collection.json');
  });

  test('ERC-173: transferOwnership moves every owner right', async () => {
    const r = await write(ctx, owner, c, 'transferOwnership', [newOwner.account.address]);
    assert.deepEqual(parseEventLogs({ abi: collectionAbi, logs: r.logs, eventName: 'OwnershipTransferred' })[0]?.args, {
      previousOwner: owner.account.address,
      newOwner: newOwner.account.address,
    });
    assert.equal(await read(ctx, c, 'owner'), newOwner.account.address);
    assert.equal(await revertName(ctx, owner, c, 'setMintActive', [false]), 'NotOwner');
    await write(ctx, newOwner, c, 'setMintActive', [false]);
    await write(ctx, newOwner, c, 'setMintActive', [true]);
    // the owner word also holds the royalty fee and URI flags: they survive
    assert.deepEqual(await read(ctx, c, 'royaltyInfo', [1n, 100n]), [alice.account.address, 10n]);
    assert.equal(await read(ctx, c, 'contractURI'), 'https://new.example/collection.json');
    assert.equal(await read(ctx, c, 'tokenURI', [2n]), 'https://new.example/t/2');
  });

  test('creation emits OwnershipTransferred(0, owner) and DiamondCut from the collection, CollectionCreated from the factory', async () => {
    const { address, receipt } = await createCollection(ctx, defaultParams(owner.account.address, minter.account.address));
    const mine = receipt.logs.filter((l) => l.address.toLowerCase() === address.toLowerCase());
    const own = parseEventLogs({ abi: collectionAbi, logs: mine, eventName: 'OwnershipTransferred' });
    assert.deepEqual(own[0]?.args, { previousOwner: zeroAddress, newOwner: owner.account.address });
    const cut = parseEventLogs({ abi: collectionAbi, logs: mine, eventName: 'DiamondCut' });
    assert.equal(cut.length, 1);
    const created = parseEventLogs({ abi: diamondFactoryAbi, logs: receipt.logs, eventName: 'CollectionCreated' });
    assert.deepEqual(created[0]?.args, { diamond: address, name: 'Atelier Dreamscapes', symbol: 'DREAM', owner: owner.account.address });
    assert.equal(created[0]?.address.toLowerCase(), ctx.deployment.contracts.DiamondFactory.toLowerCase());
  });
});

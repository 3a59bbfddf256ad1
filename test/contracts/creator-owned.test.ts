/**
 * Creator-owned collections (docs/permissions.md "Contracts the creator owns"): the creator's wallet is the diamond's owner(), the platform
 * wallet only its minter. The platform mints and emits metadata updates but can change nothing
 * else; the creator does every admin action of docs/api/nft.md §4.1.4 from their own wallet and can
 * freeze upgrades for good (diamondCut leaves the loupe, a later cut reverts, the fast path stays).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  encodeEventTopics,
  getAddress,
  parseEventLogs,
  toEventSelector,
  toFunctionSelector,
  zeroAddress,
  type AbiFunction,
  type Address,
} from 'viem';
import { collectionAbi } from '../../contracts/abi/index.ts';
import {
  setupChain,
  defaultParams,
  createCollection,
  deployArtifact,
  write,
  read,
  revertName,
  type ChainContext,
  type Wallet,
} from './fixture.ts';
import { assertLoupeTellsTheTruth, dispatchedTo, type Facet } from './loupe.ts';

const DIAMOND_CUT = toFunctionSelector('diamondCut((address,uint8,bytes4[])[],address,bytes)');
const CORE_SLOT = '0xa7b176edf3a70942502572a234c16ed64889530632318bb3bd799d443b486300';

test('docs/contracts.md "Owning your collection": every documented call exists with its selector', () => {
  const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'contracts.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Owning your collection'), doc.indexOf('## Gas'));
  const known = new Set(
    (collectionAbi as readonly { type: string }[]).filter((i): i is AbiFunction => i.type === 'function').map((f) => toFunctionSelector(f)),
  );
  // "`sig` | `selector`" in the table, "`sig` `selector`" for reads, "`Error(..)` (`selector`)" for errors
  const pairs = [...section.matchAll(/`(\w+\([^`]*\))` (?:\| |\()?`(0x[0-9a-f]{8})`/g)];
  assert.ok(pairs.length >= 17, `documented calls found: ${pairs.length}`);
  for (const [, signature, selector] of pairs) {
    const sig = signature as string;
    assert.equal(toFunctionSelector(sig), selector, sig); // errors are 4-byte selectors too
    if (/^[a-z]/.test(sig)) assert.ok(known.has(selector as `0x${string}`), `${sig} is a collection function`);
  }
  // the event topic the indexer would use
  assert.ok(section.includes(toEventSelector('UpgradesFrozen(address)')));
  for (const call of section.matchAll(/cast send \$C "([^"]+)"/g)) {
    assert.ok(known.has(toFunctionSelector(call[1] as string)), `cast example ${call[1]}`);
  }
});

describe('creator-owned collection: the creator owns, the platform only mints', () => {
  let ctx: ChainContext;
  let platform: Wallet, creator: Wallet, collector: Wallet, heir: Wallet;
  let c: Address;
  let other: Address; // a platform-owned collection, for contrast

  before(async () => {
    ctx = await setupChain();
    [platform, creator, collector, heir] = ctx.wallets as [Wallet, Wallet, Wallet, Wallet];
    // the platform wallet sends createCollection (it pays), naming the creator as owner and itself as minter
    ({ address: c } = await createCollection(ctx, defaultParams(creator.account.address, platform.account.address), platform));
    ({ address: other } = await createCollection(ctx, defaultParams(platform.account.address, platform.account.address), platform));
  });
  after(async () => {
    await ctx?.stop();
  });

  test('owner() is the creator, minter() the platform; the platform mints', async () => {
    assert.equal(await read(ctx, c, 'owner'), creator.account.address);
    assert.equal(await read(ctx, c, 'minter'), platform.account.address);
    const r = await write(ctx, platform, c, 'mintTo', [collector.account.address, 3n]);
    assert.equal(parseEventLogs({ abi: collectionAbi, logs: r.logs, eventName: 'Transfer' }).length, 3);
    assert.equal(await read(ctx, c, 'ownerOf', [3n]), collector.account.address);
    await write(ctx, platform, c, 'emitMetadataUpdate', [1n]);
    await write(ctx, platform, c, 'emitBatchMetadataUpdate', [1n, 3n]);
  });

  test('the platform wallet can do no admin action: every one answers NotOwner', async () => {
    const adminCalls: Array<[string, unknown[]]> = [
      ['setMintActive', [false]],
      ['setMinter', [platform.account.address]],
      ['setMaxSupply', [5n]],
      ['setBaseURI', ['https://evil.example/']],
      ['setContractURI', ['https://evil.example/c.json']],
      ['transferOwnership', [platform.account.address]],
      ['setDefaultRoyalty', [platform.account.address, 1000n]],
      ['diamondCut', [[], zeroAddress, '0x']],
      ['freezeUpgrades', []],
    ];
    for (const [fn, args] of adminCalls) {
      assert.equal(await revertName(ctx, platform, c, fn, args), 'NotOwner', `${fn} by the platform`);
    }
    // nor can it move a collector's tokens
    assert.equal(
      await revertName(ctx, platform, c, 'transferFrom', [collector.account.address, platform.account.address, 1n]),
      'ERC721InsufficientApproval',
    );
  });

  test('the creator does every §4.1.4 admin action from their wallet', async () => {
    const creatorAddr = creator.account.address;
    await write(ctx, creator, c, 'setMintActive', [false]);
    assert.equal(await revertName(ctx, platform, c, 'mintTo', [collector.account.address, 1n]), 'MintNotActive');
    await write(ctx, creator, c, 'setMintActive', [true]);
    await write(ctx, creator, c, 'setMaxSupply', [500n]);
    assert.equal(await read(ctx, c, 'maxSupply'), 500n);
    await write(ctx, creator, c, 'setBaseURI', ['ipfs://creator/']);
    assert.equal(await read(ctx, c, 'tokenURI', [2n]), 'ipfs://creator/2');
    await write(ctx, creator, c, 'setContractURI', ['ipfs://creator/collection.json']);
    assert.equal(await read(ctx, c, 'contractURI'), 'ipfs://creator/collection.json');
    await write(ctx, creator, c, 'setDefaultRoyalty', [creatorAddr, 250n]);
    assert.deepEqual(await read(ctx, c, 'royaltyInfo', [1n, 10_000n]), [creatorAddr, 250n]);
    // the creator can take the minter role away from the platform and give it back
    await write(ctx, creator, c, 'setMinter', [zeroAddress]);
    assert.equal(await revertName(ctx, platform, c, 'mintTo', [collector.account.address, 1n]), 'NotOwnerOrMinter');
    await write(ctx, creator, c, 'setMinter', [platform.account.address]);
    await write(ctx, platform, c, 'mintTo', [collector.account.address, 1n]);
    // a platform-owned collection is not affected
    assert.equal(await read(ctx, other, 'owner'), platform.account.address);
  });

  test('freezeUpgrades: owner only, removes diamondCut for good, the loupe shows it, the fast path stays', async () => {
    const wordBefore = await ctx.publicClient.getStorageAt({ address: c, slot: CORE_SLOT });
    assert.equal(await read(ctx, c, 'upgradesFrozen'), false);
    assert.equal(await read(ctx, c, 'supportsInterface', [DIAMOND_CUT]), true);
    const cutFacet = getAddress(ctx.deployment.contracts.DiamondCutFacet as Address);
    assert.equal(await read(ctx, c, 'facetAddress', [DIAMOND_CUT]), cutFacet);

    const r = await write(ctx, creator, c, 'freezeUpgrades');
    const cut = parseEventLogs({ abi: collectionAbi, logs: r.logs, eventName: 'DiamondCut' });
    assert.deepEqual(
      cut.map((e) => e.args),
      [{ _diamondCut: [{ facetAddress: zeroAddress, action: 2, functionSelectors: [DIAMOND_CUT] }], _init: zeroAddress, _calldata: '0x' }],
    );
    const frozen = parseEventLogs({ abi: collectionAbi, logs: r.logs, eventName: 'UpgradesFrozen' });
    assert.deepEqual(
      frozen.map((e) => [getAddress(e.address), e.args.owner]),
      [[getAddress(c), creator.account.address]],
    );
    // the topic the indexer would filter on
    assert.equal(frozen[0]?.topics[0], encodeEventTopics({ abi: collectionAbi, eventName: 'UpgradesFrozen' })[0]);

    assert.equal(await read(ctx, c, 'upgradesFrozen'), true);
    assert.equal(await read(ctx, c, 'facetAddress', [DIAMOND_CUT]), zeroAddress);
    assert.equal(await read(ctx, c, 'supportsInterface', [DIAMOND_CUT]), false);
    const facets = await assertLoupeTellsTheTruth(ctx, collector.account.address, c);
    assert.ok(!facets.some((f) => f.functionSelectors.includes(DIAMOND_CUT)), 'diamondCut not reported');
    const cutSelectors = facets.find((f) => getAddress(f.facetAddress) === cutFacet)?.functionSelectors ?? [];
    assert.deepEqual([...cutSelectors].sort(), [toFunctionSelector('freezeUpgrades()'), toFunctionSelector('upgradesFrozen()')].sort());
    // a later cut reverts, for the owner too, without reaching any facet
    const { address: ovr } = await deployArtifact(ctx, creator, 'TestOverrideFacet');
    const replaceSymbol = [{ facetAddress: ovr, action: 1, functionSelectors: [toFunctionSelector('symbol()')] }];
    assert.equal(await revertName(ctx, creator, c, 'diamondCut', [replaceSymbol, zeroAddress, '0x']), 'UpgradesAreFrozen');
    assert.equal(await revertName(ctx, creator, c, 'diamondCut', [[], zeroAddress, '0x']), 'UpgradesAreFrozen');
    assert.equal(await dispatchedTo(ctx, creator.account.address, c, DIAMOND_CUT), undefined);
    assert.equal(await revertName(ctx, creator, c, 'freezeUpgrades'), 'UpgradesAreFrozen');
    // nothing else changed: same mint word (no override flag: transfers keep the proxy fast path)
    assert.equal(await ctx.publicClient.getStorageAt({ address: c, slot: CORE_SLOT }), wordBefore);
    assert.equal(
      await dispatchedTo(ctx, collector.account.address, c, toFunctionSelector('transferFrom(address,address,uint256)')),
      getAddress(ctx.deployment.contracts.ERC721Facet as Address),
    );
    await write(ctx, collector, c, 'transferFrom', [collector.account.address, heir.account.address, 2n]);
    await write(ctx, platform, c, 'mintTo', [collector.account.address, 1n]);
    // another collection keeps diamondCut
    assert.equal(await read(ctx, other, 'facetAddress', [DIAMOND_CUT]), cutFacet);
    assert.equal(await read(ctx, other, 'upgradesFrozen'), false);
  });

  test('the freeze survives a change of owner; the new owner cannot cut either', async () => {
    await write(ctx, creator, c, 'transferOwnership', [heir.account.address]);
    assert.equal(await read(ctx, c, 'owner'), heir.account.address);
    assert.equal(await read(ctx, c, 'upgradesFrozen'), true);
    assert.equal(await revertName(ctx, heir, c, 'diamondCut', [[], zeroAddress, '0x']), 'UpgradesAreFrozen');
    assert.equal(await revertName(ctx, creator, c, 'setMintActive', [false]), 'NotOwner');
    await write(ctx, heir, c, 'setMintActive', [false]);
    assert.equal(await read(ctx, c, 'mintActive'), false);
  });

  test('freezing after overriding diamondCut hides the override too', async () => {
    const { address: y } = await createCollection(ctx, defaultParams(creator.account.address, platform.account.address), platform);
    // the owner replaces diamondCut itself with the platform's DiamondCutFacet at another address: use
    // a second deployment of the facet so the override is real
    const { address: cut2 } = await deployArtifact(ctx, creator, 'DiamondCutFacet');
    await write(ctx, creator, y, 'diamondCut', [[{ facetAddress: cut2, action: 1, functionSelectors: [DIAMOND_CUT] }], zeroAddress, '0x']);
    assert.equal(await read(ctx, y, 'facetAddress', [DIAMOND_CUT]), cut2);
    await write(ctx, creator, y, 'freezeUpgrades');
    assert.equal(await read(ctx, y, 'facetAddress', [DIAMOND_CUT]), zeroAddress);
    const facets = await read<Facet[]>(ctx, y, 'facets');
    assert.ok(!facets.some((f) => getAddress(f.facetAddress) === cut2), 'the overriding facet is gone from the loupe');
    assert.equal(await revertName(ctx, creator, y, 'diamondCut', [[], zeroAddress, '0x']), 'UpgradesAreFrozen');
    await assertLoupeTellsTheTruth(ctx, creator.account.address, y);
  });
});

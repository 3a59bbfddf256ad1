/**
 * ERC-2535 conformance of collections: the loupe tells where every selector is dispatched (checked
 * with call traces), every callable selector is reported, ERC-165, per-collection diamondCut
 * overrides, the DiamondCut event at creation, CREATE2 address prediction, factory views, the
 * ERC-7201 slots and the deployment record / CLI.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  concat,
  encodeAbiParameters,
  getAddress,
  getContractAddress,
  keccak256,
  parseEventLogs,
  toFunctionSelector,
  toHex,
  zeroAddress,
  type Abi,
  type AbiFunction,
  type Address,
  type Hex,
} from 'viem';
import { collectionAbi, diamondFactoryAbi } from '../../contracts/abi/index.ts';
import { loadArtifact } from '../../src/chain/artifacts.ts';
import { ANVIL_PRIVATE_KEYS } from '../../src/chain/anvil.ts';
import { FACET_NAMES, writeDeploymentRecord, readDeploymentRecord } from '../../src/chain/deploy-platform.ts';
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
import { dispatchedTo as dispatched, assertLoupeTellsTheTruth as loupeTruth, type Facet } from './loupe.ts';

const execFileP = promisify(execFile);

function facetSelectors(name: string): Hex[] {
  return (loadArtifact(name).abi as Abi).filter((i): i is AbiFunction => i.type === 'function').map((f) => toFunctionSelector(f));
}

describe('diamond: loupe, ERC-165, diamondCut overrides, CREATE2, factory', () => {
  let ctx: ChainContext;
  let owner: Wallet, minter: Wallet, alice: Wallet;
  let x: Address; // gets overrides
  let y: Address; // stays on the shared table

  const dispatchedTo = (collection: Address, selector: Hex) => dispatched(ctx, alice.account.address, collection, selector);
  const assertLoupeTellsTheTruth = (collection: Address) => loupeTruth(ctx, alice.account.address, collection);

  before(async () => {
    ctx = await setupChain();
    [owner, minter, alice] = ctx.wallets as [Wallet, Wallet, Wallet];
    ({ address: x } = await createCollection(ctx, defaultParams(owner.account.address, minter.account.address)));
    ({ address: y } = await createCollection(ctx, defaultParams(owner.account.address, minter.account.address)));
    await write(ctx, minter, x, 'mintTo', [alice.account.address, 3n]);
    await write(ctx, minter, y, 'mintTo', [alice.account.address, 3n]);
  });
  after(async () => {
    await ctx?.stop();
  });

  test('the loupe reports the 9 platform facets with all their selectors, and each dispatches there', async () => {
    const facets = await assertLoupeTellsTheTruth(y);
    const byAddress = new Map(facets.map((f) => [getAddress(f.facetAddress), [...f.functionSelectors].sort()]));
    assert.equal(facets.length, FACET_NAMES.length);
    for (const name of FACET_NAMES) {
      const addr = getAddress(ctx.deployment.contracts[name] as Address);
      assert.deepEqual(byAddress.get(addr), facetSelectors(name).sort(), `${name} selectors`);
    }
  });

  test('every selector that answers is reported; unknown selectors revert with FunctionNotFound', async () => {
    const reported = new Set((await read<Facet[]>(ctx, y, 'facets')).flatMap((f) => f.functionSelectors));
    const all = FACET_NAMES.flatMap((n) => facetSelectors(n));
    assert.equal(all.length, 50);
    for (const s of all) assert.ok(reported.has(s), `${s} is reported`);
    // router-only names and random selectors do not answer
    for (const s of ['0x00000000', '0xdeadbeef', toFunctionSelector('pendingCollection()'), toFunctionSelector('hello()')] as Hex[]) {
      assert.ok(!reported.has(s));
      assert.equal(await dispatchedTo(y, s), undefined);
      await assert.rejects(ctx.publicClient.call({ to: y, data: s }), /FunctionNotFound|0x|revert/i);
    }
    assert.equal(await revertName(ctx, alice, y, 'hello', [], withOverride()), 'FunctionNotFound');
  });

  const withOverride = (): Abi => [...(collectionAbi as Abi), ...(loadArtifact('TestOverrideFacet').abi as Abi)];

  test('ERC-165 answers', async () => {
    for (const id of ['0x01ffc9a7', '0x80ac58cd', '0x5b5e139f', '0x7f5828d0', '0x2a55205a', '0x49064906', '0x48e2b093', '0x1f931c1c']) {
      assert.equal(await read(ctx, y, 'supportsInterface', [id]), true, id);
    }
    for (const id of ['0xffffffff', '0x12345678', '0x780e9d63' /* enumerable: not implemented */]) {
      assert.equal(await read(ctx, y, 'supportsInterface', [id]), false, id);
    }
  });

  test('diamondCut overrides selectors for one collection only; the loupe follows', async () => {
    const { address: ovr } = await deployArtifact(ctx, owner, 'TestOverrideFacet');
    const abi = withOverride();
    const sel = (sig: string) => toFunctionSelector(sig);
    const cuts = [
      { facetAddress: ovr, action: 1, functionSelectors: [sel('symbol()'), sel('transferFrom(address,address,uint256)')] },
      { facetAddress: ovr, action: 0, functionSelectors: [sel('hello()')] },
    ];
    assert.equal(await revertName(ctx, minter, x, 'diamondCut', [cuts, zeroAddress, '0x']), 'NotOwner');
    const r = await write(ctx, owner, x, 'diamondCut', [cuts, zeroAddress, '0x']);
    const ev = parseEventLogs({ abi: collectionAbi, logs: r.logs, eventName: 'DiamondCut' })[0];
    assert.equal(ev?.args._diamondCut.length, 2);
    assert.equal(getAddress(ev?.args._diamondCut[0]?.facetAddress as Address), ovr);

    // x uses the override, including on the proxy's fast path (transferFrom)
    assert.equal(await read(ctx, x, 'symbol', [], abi), 'OVR');
    assert.equal(await read(ctx, x, 'hello', [], abi), x); // runs in x's context
    assert.equal(
      await revertName(ctx, alice, x, 'transferFrom', [alice.account.address, owner.account.address, 1n], abi),
      'TransfersFrozen',
    );
    assert.equal(await dispatchedTo(x, sel('transferFrom(address,address,uint256)')), ovr);
    // y is untouched
    assert.equal(await read(ctx, y, 'symbol'), 'DREAM');
    assert.equal(await revertName(ctx, alice, y, 'hello', [], abi), 'FunctionNotFound');
    await write(ctx, alice, y, 'transferFrom', [alice.account.address, owner.account.address, 1n]);

    const facets = await assertLoupeTellsTheTruth(x);
    const o = facets.find((f) => getAddress(f.facetAddress) === ovr);
    assert.deepEqual(
      [...(o?.functionSelectors ?? [])].sort(),
      [sel('symbol()'), sel('transferFrom(address,address,uint256)'), sel('hello()')].sort(),
    );
    const erc721 = facets.find((f) => getAddress(f.facetAddress) === getAddress(ctx.deployment.contracts.ERC721Facet));
    assert.equal(erc721?.functionSelectors.length, 11);
    assert.ok(!erc721?.functionSelectors.includes(sel('symbol()')));
    await assertLoupeTellsTheTruth(y);

    // cut errors
    assert.equal(
      await revertName(ctx, owner, x, 'diamondCut', [
        [{ facetAddress: ovr, action: 0, functionSelectors: [sel('name()')] }],
        zeroAddress,
        '0x',
      ]),
      'CutSelectorExists',
    );
    assert.equal(
      await revertName(ctx, owner, x, 'diamondCut', [
        [{ facetAddress: ovr, action: 1, functionSelectors: [sel('nope()')] }],
        zeroAddress,
        '0x',
      ]),
      'CutSelectorMissing',
    );
    assert.equal(
      await revertName(ctx, owner, x, 'diamondCut', [
        [{ facetAddress: ovr, action: 1, functionSelectors: [sel('hello()')] }],
        zeroAddress,
        '0x',
      ]),
      'CutSameFacet',
    );
    assert.equal(
      await revertName(ctx, owner, x, 'diamondCut', [
        [{ facetAddress: alice.account.address, action: 0, functionSelectors: [sel('nope()')] }],
        zeroAddress,
        '0x',
      ]),
      'CutNoCode',
    );
    assert.equal(
      await revertName(ctx, owner, x, 'diamondCut', [
        [{ facetAddress: ovr, action: 2, functionSelectors: [sel('hello()')] }],
        zeroAddress,
        '0x',
      ]),
      'CutRemoveFacetNotZero',
    );

    // remove an added selector and a default one; put transferFrom back on the shared facet
    await write(ctx, owner, x, 'diamondCut', [
      [
        { facetAddress: zeroAddress, action: 2, functionSelectors: [sel('hello()'), sel('emitMetadataUpdate(uint256)')] },
        {
          facetAddress: ctx.deployment.contracts.ERC721Facet,
          action: 1,
          functionSelectors: [sel('transferFrom(address,address,uint256)')],
        },
      ],
      zeroAddress,
      '0x',
    ]);
    assert.equal(await revertName(ctx, alice, x, 'hello', [], abi), 'FunctionNotFound');
    assert.equal(await revertName(ctx, minter, x, 'emitMetadataUpdate', [1n]), 'FunctionNotFound');
    assert.equal(await read(ctx, x, 'facetAddress', [sel('emitMetadataUpdate(uint256)')]), zeroAddress);
    await write(ctx, alice, x, 'transferFrom', [alice.account.address, owner.account.address, 1n]);
    await assertLoupeTellsTheTruth(x);
    // adding a removed default selector back restores it
    await write(ctx, owner, x, 'diamondCut', [
      [{ facetAddress: ctx.deployment.contracts.MetadataUpdateFacet, action: 0, functionSelectors: [sel('emitMetadataUpdate(uint256)')] }],
      zeroAddress,
      '0x',
    ]);
    await write(ctx, minter, x, 'emitMetadataUpdate', [1n]);
    await assertLoupeTellsTheTruth(x);
  });

  test('diamondCut runs its init (delegatecall) and bubbles init failures', async () => {
    const { address: init } = await deployArtifact(ctx, owner, 'TestCutInit');
    const initAbi = loadArtifact('TestCutInit').abi as Abi;
    const { encodeFunctionData } = await import('viem');
    const data = encodeFunctionData({ abi: initAbi, functionName: 'init', args: ['0x12345678'] });
    await write(ctx, owner, x, 'diamondCut', [[], init, data]);
    assert.equal(await read(ctx, x, 'supportsInterface', ['0x12345678']), true);
    assert.equal(await read(ctx, y, 'supportsInterface', ['0x12345678']), false);
    const bad = encodeFunctionData({ abi: initAbi, functionName: 'fail' });
    assert.equal(await revertName(ctx, owner, x, 'diamondCut', [[], init, bad]), 'Error(TestCutInit: failed)');
    // ERC-2535: with _init = 0, _calldata is not executed (it may carry anything) and is logged as given
    const r = await write(ctx, owner, x, 'diamondCut', [[], zeroAddress, '0x1234']);
    const ev = parseEventLogs({ abi: collectionAbi, logs: r.logs, eventName: 'DiamondCut' });
    assert.deepEqual(
      ev.map((e) => [e.args._init, e.args._calldata]),
      [[zeroAddress, '0x1234']],
    );
    // an init without code is refused, an init that reverts without a reason too
    assert.equal(await revertName(ctx, owner, x, 'diamondCut', [[], alice.account.address, '0x1234']), 'CutNoCode');
    const { address: silent } = await deployArtifact(ctx, owner, 'TestNonReceiver');
    assert.equal(await revertName(ctx, owner, x, 'diamondCut', [[], silent, '0x12345678']), 'CutInitFailed');
  });

  test('removing every override puts the collection back on the fast path', async () => {
    const sel = (sig: string) => toFunctionSelector(sig);
    await write(ctx, owner, x, 'diamondCut', [
      [{ facetAddress: ctx.deployment.contracts.ERC721Facet, action: 1, functionSelectors: [sel('symbol()')] }],
      zeroAddress,
      '0x',
    ]);
    const coreSlot = '0xa7b176edf3a70942502572a234c16ed64889530632318bb3bd799d443b486300';
    const word = BigInt((await ctx.publicClient.getStorageAt({ address: x, slot: coreSlot })) ?? '0x0');
    assert.equal(word >> 255n, 0n, 'hasOverrides flag cleared');
    assert.equal(await read(ctx, x, 'symbol'), 'DREAM');
    assert.equal(await dispatchedTo(x, sel('transferFrom(address,address,uint256)')), getAddress(ctx.deployment.contracts.ERC721Facet));
    await assertLoupeTellsTheTruth(x);
  });

  test('the DiamondCut event at creation lists exactly what the loupe reports', async () => {
    const { address, receipt } = await createCollection(ctx, defaultParams(owner.account.address, minter.account.address));
    const ev = parseEventLogs({ abi: collectionAbi, logs: receipt.logs, eventName: 'DiamondCut' }).filter(
      (l) => getAddress(l.address) === address,
    )[0];
    assert.ok(ev);
    assert.equal(ev.args._init, zeroAddress);
    assert.equal(ev.args._calldata, '0x');
    const facets = await read<Facet[]>(ctx, address, 'facets');
    assert.deepEqual(
      ev.args._diamondCut.map((c) => ({
        facetAddress: getAddress(c.facetAddress),
        action: c.action,
        functionSelectors: c.functionSelectors,
      })),
      facets.map((f) => ({ facetAddress: getAddress(f.facetAddress), action: 0, functionSelectors: f.functionSelectors })),
    );
  });

  test('CREATE2: the predicted address is the deployed one (on chain and off chain)', async () => {
    const factory = ctx.deployment.contracts.DiamondFactory;
    for (const wallet of [owner, alice]) {
      const count = await read<bigint>(ctx, factory, 'collectionCount', [], diamondFactoryAbi as Abi);
      const predicted = await read<Address>(
        ctx,
        factory,
        'predictCollectionAddress',
        [wallet.account.address, count],
        diamondFactoryAbi as Abi,
      );
      // off chain: salt = keccak256(abi.encode(creator, index)), init code = fixed template around CollectionInit
      const salt = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [wallet.account.address, count]));
      const initCode = concat(['0x3d3d3d3d73', ctx.deployment.contracts.CollectionInit, '0x5af43d5f5f3e6025573d5ffd5b3d5ff3']);
      assert.equal(await read(ctx, factory, 'collectionInitCodeHash', [], diamondFactoryAbi as Abi), keccak256(initCode));
      const offChain = getContractAddress({ opcode: 'CREATE2', from: factory, salt, bytecode: initCode });
      assert.equal(offChain, predicted);
      const { address } = await createCollection(ctx, defaultParams(wallet.account.address, minter.account.address), wallet);
      assert.equal(address, predicted);
      assert.equal(await read(ctx, factory, 'collectionCount', [], diamondFactoryAbi as Abi), count + 1n);
      assert.equal(await read(ctx, address, 'owner'), wallet.account.address);
    }
  });

  test('factory views (§2.8) and parameter validation', async () => {
    const f = ctx.deployment.contracts.DiamondFactory;
    const fabi = diamondFactoryAbi as Abi;
    assert.equal(await read(ctx, f, 'owner', [], fabi), owner.account.address);
    const views: Array<[string, string]> = [
      ['diamondCutFacet', 'DiamondCutFacet'],
      ['diamondLoupeFacet', 'DiamondLoupeFacet'],
      ['ownershipFacet', 'OwnershipFacet'],
      ['erc721Facet', 'ERC721Facet'],
      ['mintFacet', 'MintFacet'],
      ['contractURIFacet', 'ContractURIFacet'],
      ['metadataUpdateFacet', 'MetadataUpdateFacet'],
      ['royaltyFacet', 'RoyaltyFacet'],
      ['collectionInit', 'CollectionInit'],
      ['router', 'DiamondRouter'],
    ];
    for (const [fn, key] of views) assert.equal(await read(ctx, f, fn, [], fabi), ctx.deployment.contracts[key], fn);
    const base = defaultParams(owner.account.address, minter.account.address);
    const bad: Array<[Partial<typeof base>, string]> = [
      [{ owner: zeroAddress }, 'owner'],
      [{ name: '' }, 'name'],
      [{ symbol: 'x'.repeat(256) }, 'symbol'],
      [{ maxSupply: 2n ** 40n }, 'maxSupply'],
      [{ royaltyBps: 10_001n }, 'royalty'],
      [{ royaltyReceiver: zeroAddress, royaltyBps: 1n }, 'royalty'],
    ];
    for (const [o, field] of bad) {
      try {
        await ctx.publicClient.simulateContract({
          address: f,
          abi: fabi,
          functionName: 'createCollection',
          args: [{ ...base, ...o }],
          account: owner.account,
        } as never);
        assert.fail(`${field} accepted`);
      } catch (err) {
        assert.match(String((err as Error).message), new RegExp(`InvalidCollectionParams[^]*\\(${field}\\)`));
      }
    }
    // a collection without royalty and without minter
    const { address } = await createCollection(ctx, { ...base, royaltyReceiver: zeroAddress, royaltyBps: 0n, minter: zeroAddress });
    assert.deepEqual(await read(ctx, address, 'royaltyInfo', [1n, 100n]), [zeroAddress, 0n]);
    assert.equal(await revertName(ctx, minter, address, 'mintTo', [alice.account.address, 1n]), 'NotOwnerOrMinter');
    await write(ctx, owner, address, 'mintTo', [alice.account.address, 1n]);
    // pendingCollection outside a creation
    await assert.rejects(read(ctx, f, 'pendingCollection', [], fabi), /NoPendingCollection/);
  });

  test('storage namespaces are the ERC-7201 slots of their ids', () => {
    const erc7201 = (id: string) => {
      const h = BigInt(keccak256(toHex(id))) - 1n;
      const x = BigInt(keccak256(encodeAbiParameters([{ type: 'uint256' }], [h])));
      return '0x' + (x & ~0xffn).toString(16).padStart(64, '0');
    };
    const dir = join(import.meta.dirname, '..', '..', 'contracts', 'src', 'libraries');
    const src = ['LibStorage.sol', 'LibFairnessStorage.sol'].map((f) => readFileSync(join(dir, f), 'utf8')).join('\n');
    const re = /erc7201:(atelier\.[A-Za-z0-9.]+)[\s\S]*?bytes32 internal constant \w+ = (0x[0-9a-f]{64});/g;
    let n = 0;
    for (const m of src.matchAll(re)) {
      assert.equal(m[2], erc7201(m[1] as string), m[1]);
      n++;
    }
    assert.equal(n, 7);
  });

  test('deployment record: §2.7 shape written to <dir>/<chainId>.json; the CLI deploys and never prints the key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'atelier-deploy-'));
    try {
      const path = writeDeploymentRecord(ctx.deployment, dir);
      assert.equal(path, join(dir, '31337.json'));
      const rec = readDeploymentRecord(31337, dir);
      assert.deepEqual(rec, ctx.deployment);
      assert.equal(rec?.chainId, 31337);
      assert.equal(rec?.deployer, owner.account.address);
      assert.ok(!Number.isNaN(Date.parse(rec?.timestamp ?? '')));
      for (const k of [
        'DiamondCutFacet',
        'DiamondLoupeFacet',
        'OwnershipFacet',
        'ERC721Facet',
        'MintFacet',
        'ContractURIFacet',
        'CollectionInit',
        'DiamondFactory',
        'MetadataUpdateFacet',
        'RoyaltyFacet',
      ]) {
        assert.match(rec?.contracts[k] ?? '', /^0x[0-9a-fA-F]{40}$/, k);
        const code = await ctx.publicClient.getCode({ address: rec?.contracts[k] as Address });
        assert.ok(code && code.length > 2, `${k} has code`);
      }

      const cliDir = join(dir, 'cli');
      const key = ANVIL_PRIVATE_KEYS[5];
      const root = join(import.meta.dirname, '..', '..');
      const { stdout, stderr } = await execFileP(
        process.execPath,
        ['--import', 'tsx', join(root, 'scripts', 'deploy-contracts.ts'), '--rpc-url', ctx.anvil.rpcUrl, '--out-dir', cliDir],
        { env: { ...process.env, NFT_DEPLOYER_PRIVATE_KEY: key }, cwd: root },
      );
      assert.ok(!stdout.includes(key.slice(2)) && !stderr.includes(key.slice(2)), 'key not printed');
      assert.deepEqual(readdirSync(cliDir), ['31337.json']);
      const cliRec = JSON.parse(readFileSync(join(cliDir, '31337.json'), 'utf8'));
      assert.equal(cliRec.deployer, ctx.wallets[5]?.account.address);
      const code = await ctx.publicClient.getCode({ address: cliRec.contracts.DiamondFactory });
      assert.ok(code && code.length > 2);
      // the fresh factory works
      const p = defaultParams(owner.account.address, minter.account.address);
      const r = await write(ctx, owner, cliRec.contracts.DiamondFactory, 'createCollection', [p], diamondFactoryAbi as Abi);
      assert.equal(parseEventLogs({ abi: diamondFactoryAbi, logs: r.logs, eventName: 'CollectionCreated' }).length, 1);

      // bad input is refused with a message, exit code 1
      await assert.rejects(
        execFileP(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'deploy-contracts.ts'), '--rpc-url', ctx.anvil.rpcUrl], {
          env: { ...process.env, NFT_DEPLOYER_PRIVATE_KEY: '' },
          cwd: root,
        }),
        /NFT_DEPLOYER_PRIVATE_KEY is required/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

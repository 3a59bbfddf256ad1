/**
 * The one-way metadata freeze (MetadataUpdateFacet.freezeMetadata, docs/contracts.md "Frozen
 * metadata") on a real anvil: only the owner freezes, once; afterwards setBaseURI,
 * setContractURI and setMaxSupply revert MetadataIsFrozen, tokenURI keeps the frozen base,
 * maxSupply is the supply at the freeze (no later mint), and the freeze emitted MetadataFrozen
 * with both URIs and one BatchMetadataUpdate(1, totalSupply).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseEventLogs, type Abi, type Address } from 'viem';
import { collectionAbi } from '../../contracts/abi/index.ts';
import { createCollection, defaultParams, read, setupChain, write, type ChainContext, type Wallet } from './fixture.ts';

const abi = collectionAbi as Abi;
let ctx: ChainContext;
let owner: Wallet, other: Wallet;
before(async () => {
  ctx = await setupChain();
  [owner, other] = ctx.wallets as [Wallet, Wallet];
});
after(async () => ctx?.stop());

/** The custom error a call from `from` would revert with, or 'ok'. */
async function outcome(from: Address, address: Address, functionName: string, args: readonly unknown[] = []): Promise<string> {
  try {
    await ctx.publicClient.simulateContract({ address, abi, functionName, args, account: from } as never);
    return 'ok';
  } catch (err) {
    const found = (err as { walk?: (fn: (e: unknown) => boolean) => unknown }).walk?.(
      (x) => typeof x === 'object' && x !== null && typeof (x as { data?: { errorName?: string } }).data?.errorName === 'string',
    ) as { data?: { errorName?: string } } | undefined;
    return found?.data?.errorName ?? `unknown: ${(err as Error).message}`;
  }
}

test('freezeMetadata: owner only, once; the URI setters revert afterwards; one MetadataFrozen and one BatchMetadataUpdate(1, totalSupply)', async () => {
  const o = owner.account.address;
  const { address: c } = await createCollection(ctx, defaultParams(o, o), owner);
  await write(ctx, owner, c, 'mintTo', [o, 3n]);
  await write(ctx, owner, c, 'setBaseURI', ['ipfs://bafyroot/metadata/']);
  await write(ctx, owner, c, 'setContractURI', ['ipfs://bafyroot/contract.json']);
  assert.equal(await read(ctx, c, 'metadataFrozen'), false);

  assert.equal(await outcome(other.account.address, c, 'freezeMetadata'), 'NotOwner');
  const receipt = await write(ctx, owner, c, 'freezeMetadata', []);
  assert.equal(await read(ctx, c, 'metadataFrozen'), true);
  const frozen = parseEventLogs({ abi, logs: receipt.logs, eventName: 'MetadataFrozen' }) as unknown as Array<{
    args: { baseURI: string; contractURI: string };
  }>;
  assert.equal(frozen.length, 1);
  assert.equal(frozen[0]!.args.baseURI, 'ipfs://bafyroot/metadata/');
  assert.equal(frozen[0]!.args.contractURI, 'ipfs://bafyroot/contract.json');
  const batch = parseEventLogs({ abi, logs: receipt.logs, eventName: 'BatchMetadataUpdate' }) as unknown as Array<{
    args: { _fromTokenId: bigint; _toTokenId: bigint };
  }>;
  assert.deepEqual(
    batch.map((b) => [b.args._fromTokenId, b.args._toTokenId]),
    [[1n, 3n]],
  );

  assert.equal(await outcome(o, c, 'setBaseURI', ['https://elsewhere/']), 'MetadataIsFrozen');
  assert.equal(await outcome(o, c, 'setContractURI', ['https://elsewhere/c.json']), 'MetadataIsFrozen');
  assert.equal(await outcome(o, c, 'freezeMetadata'), 'MetadataIsFrozen', 'freezing twice is refused');
  // The supply is fixed with the metadata: no raising maxSupply past what the frozen URIs cover.
  assert.equal(await outcome(o, c, 'setMaxSupply', [10_000n]), 'MetadataIsFrozen');
  assert.equal(await read(ctx, c, 'tokenURI', [1n]), 'ipfs://bafyroot/metadata/1');
  assert.equal(await read(ctx, c, 'contractURI'), 'ipfs://bafyroot/contract.json');
  // The freeze fixed maxSupply at the 3 tokens the frozen metadata holds (it was 1000): no token is
  // minted after it, whoever signs, so every token's URI is one the frozen bundle has.
  assert.equal(await read(ctx, c, 'maxSupply'), 3n);
  const capped = parseEventLogs({ abi, logs: receipt.logs, eventName: 'MaxSupplyChanged' }) as unknown as Array<{
    args: { maxSupply: bigint };
  }>;
  assert.deepEqual(
    capped.map((e) => e.args.maxSupply),
    [3n],
  );
  assert.equal(await outcome(o, c, 'mintTo', [o, 1n]), 'MaxSupplyExceeded');
});

test('a freeze at maxSupply == totalSupply changes no supply and emits no MaxSupplyChanged', async () => {
  const o = owner.account.address;
  const { address: c } = await createCollection(ctx, { ...defaultParams(o, o), maxSupply: 2n }, owner);
  await write(ctx, owner, c, 'mintTo', [o, 2n]);
  const receipt = await write(ctx, owner, c, 'freezeMetadata', []);
  assert.equal(parseEventLogs({ abi, logs: receipt.logs, eventName: 'MaxSupplyChanged' }).length, 0);
  assert.equal(await read(ctx, c, 'maxSupply'), 2n);
  assert.equal(await read(ctx, c, 'totalSupply'), 2n);
});

test('a collection frozen before any mint emits no BatchMetadataUpdate; the creation URIs are the frozen ones', async () => {
  const o = owner.account.address;
  const params = defaultParams(o, o);
  const { address: c } = await createCollection(ctx, params, owner);
  const receipt = await write(ctx, owner, c, 'freezeMetadata', []);
  assert.equal(parseEventLogs({ abi, logs: receipt.logs, eventName: 'BatchMetadataUpdate' }).length, 0);
  const frozen = parseEventLogs({ abi, logs: receipt.logs, eventName: 'MetadataFrozen' }) as unknown as Array<{
    args: { baseURI: string; contractURI: string };
  }>;
  assert.equal(frozen[0]!.args.contractURI, await read(ctx, c, 'contractURI'));
  // nothing minted, nothing frozen to mint: maxSupply is 0 from now on
  assert.equal(await read(ctx, c, 'maxSupply'), 0n);
  assert.equal(await outcome(o, c, 'mintTo', [o, 1n]), 'MaxSupplyExceeded');
});

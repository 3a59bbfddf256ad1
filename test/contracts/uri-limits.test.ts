/**
 * URI limits on chain (docs/contracts.md "URI limits"): createCollection, setBaseURI and
 * setContractURI refuse a URI longer than MAX_URI_BYTES with URITooLong(field, length, max), and
 * the worst case they accept — name and symbol of 255 bytes, both URIs of MAX_URI_BYTES — deploys
 * (its code is exactly EIP-170's 24,576 bytes) and reads back intact.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Abi, Address } from 'viem';
import { diamondFactoryAbi } from '../../contracts/abi/index.ts';
import { MAX_URI_BYTES } from '../../src/domain/contract-limits.ts';
import { createCollection, defaultParams, read, revertName, setupChain, write, type ChainContext } from './fixture.ts';

const uri = (bytes: number, prefix = 'https://') => prefix + 'a'.repeat(bytes - prefix.length);

describe('URI limits of the collection contracts', { timeout: 120_000 }, () => {
  let ctx: ChainContext;
  let owner: Address;
  let factory: Address;
  before(async () => {
    ctx = await setupChain();
    owner = ctx.wallets[0]!.account.address;
    factory = ctx.deployment.contracts.DiamondFactory as Address;
  });
  after(() => ctx?.stop());

  test('createCollection: one byte over MAX_URI_BYTES is URITooLong', async () => {
    for (const field of ['baseURI', 'contractURI'] as const) {
      const params = defaultParams(owner, owner, { [field]: uri(MAX_URI_BYTES + 1) });
      const name = await revertName(ctx, ctx.wallets[0]!, factory, 'createCollection', [params], diamondFactoryAbi as Abi);
      assert.equal(name, 'URITooLong', field);
    }
    // The 30,000-byte baseURI that reverted without a reason (code too large) now names its error.
    const big = defaultParams(owner, owner, { baseURI: uri(30_000) });
    assert.equal(await revertName(ctx, ctx.wallets[0]!, factory, 'createCollection', [big], diamondFactoryAbi as Abi), 'URITooLong');
  });

  test('the worst accepted parameters deploy: code exactly 24,576 bytes, URIs read back', async () => {
    const params = defaultParams(owner, owner, {
      name: 'é'.repeat(127) + 'n', // 255 bytes of UTF-8
      symbol: 's'.repeat(255),
      baseURI: uri(MAX_URI_BYTES),
      contractURI: uri(MAX_URI_BYTES, 'ipfs://'),
    });
    const { address } = await createCollection(ctx, params);
    const code = await ctx.publicClient.getCode({ address });
    assert.equal((code!.length - 2) / 2, 24_576);
    assert.equal(await read(ctx, address, 'contractURI'), params.contractURI);
    assert.equal(await read(ctx, address, 'name'), params.name);
  });

  test('setBaseURI / setContractURI: MAX_URI_BYTES is written, one byte more is URITooLong', async () => {
    const { address } = await createCollection(ctx, defaultParams(owner, owner));
    for (const fn of ['setBaseURI', 'setContractURI'] as const) {
      assert.equal(await revertName(ctx, ctx.wallets[0]!, address, fn, [uri(MAX_URI_BYTES + 1)]), 'URITooLong', fn);
      const receipt = await write(ctx, ctx.wallets[0]!, address, fn, [uri(MAX_URI_BYTES)]);
      assert.equal(receipt.status, 'success');
    }
    assert.equal(await read(ctx, address, 'contractURI'), uri(MAX_URI_BYTES));
  });
});

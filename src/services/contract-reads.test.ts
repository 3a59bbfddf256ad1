import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ContractFunctionExecutionError,
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
  getAddress,
  HttpRequestError,
} from 'viem';
import { testConfig } from '../config.ts';
import { AppError } from '../domain/errors.ts';
import { type ContractReader, createContractReads } from './contract-reads.ts';

const C1 = '0xc011ec7100000000000000000000000000000001';
const RPC = 'http://rpc.test';

/** A reader that records its calls and answers `answer` (or throws it when it is an Error). */
function fakeReader(answer: unknown) {
  const calls: Parameters<ContractReader>[0][] = [];
  const reader: ContractReader = async (c) => {
    calls.push(c);
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { reader, calls };
}

const service = (answer: unknown, extra: Partial<Parameters<typeof createContractReads>[0]> = {}) => {
  const { reader, calls } = fakeReader(answer);
  const reads = createContractReads({
    config: testConfig(),
    host: { chainId: 31337, rpcUrl: RPC, contracts: { DiamondFactory: '0xFac7' } },
    readContract: reader,
    deployedContracts: () => undefined,
    ...extra,
  });
  return { reads, calls };
};

const kind = (k: string) => (err: unknown) => err instanceof AppError && err.kind === k;
const read = (extra: Partial<Parameters<ReturnType<typeof createContractReads>['read']>[0]> = {}) => ({
  contract: 'Collection',
  function: 'ownerOf',
  address: C1,
  args: '["1"]',
  chainId: 31337,
  ...extra,
});

describe('contract reads', () => {
  test('a view function over the hosted chain’s RPC; the result as a string', async () => {
    const { reads, calls } = service(12n);
    const r = await reads.read(read({ contract: 'app', function: 'totalSupply', args: undefined }));
    assert.deepEqual(r, { contract: 'Collection', function: 'totalSupply', address: getAddress(C1), chain_id: 31337, result: '12' });
    assert.equal(calls[0]!.rpcUrl, RPC);
    assert.deepEqual(calls[0]!.args, []);
    const tuple = service([1n, 'x', true]);
    assert.equal((await tuple.reads.read(read())).result, '["1","x",true]');
  });

  test('unknown contract or function: 404; bad args, wrong count, not a view function: 400 naming the field', async () => {
    const { reads, calls } = service('0x0');
    await assert.rejects(reads.read(read({ contract: 'Nope' })), kind('not_found'));
    await assert.rejects(reads.read(read({ function: 'noSuchFunction' })), kind('not_found'));
    await assert.rejects(reads.read(read({ args: 'oops' })), (e) => kind('invalid')(e) && /query\.args/.test((e as Error).message));
    await assert.rejects(reads.read(read({ args: '{"a":1}' })), /query\.args: expected a JSON array/);
    await assert.rejects(reads.read(read({ args: '[]' })), /query\.args: ownerOf takes 1 argument\(s\), got 0/);
    await assert.rejects(reads.read(read({ function: 'transferFrom', args: '[]' })), /path\.function: transferFrom is not a view function/);
    await assert.rejects(reads.read(read({ chainId: 999_999 })), /query\.chainId/);
    assert.equal(calls.length, 0, 'nothing reached the chain');
  });

  test('a revert or an address without the contract is a 400 naming it; a failing RPC node a 502', async () => {
    const wrap = (cause: Error) =>
      new ContractFunctionExecutionError(cause as never, { abi: [], functionName: 'ownerOf', args: [1n], contractAddress: C1 });
    const reverted = service(
      wrap(new ContractFunctionRevertedError({ abi: [], functionName: 'ownerOf', message: 'ERC721NonexistentToken' })),
    );
    await assert.rejects(
      reverted.reads.read(read()),
      (e) => kind('invalid')(e) && /read reverted: Collection\.ownerOf at 0x.* reverted/.test((e as Error).message),
    );
    const empty = service(wrap(new ContractFunctionZeroDataError({ functionName: 'ownerOf' })));
    await assert.rejects(
      empty.reads.read(read()),
      (e) => kind('invalid')(e) && /^query\.address: .* returned no data for ownerOf\(\)/.test((e as Error).message),
    );
    const down = service(wrap(new HttpRequestError({ url: RPC, details: 'connection refused' })));
    await assert.rejects(down.reads.read(read()), (e) => kind('upstream')(e) && /chain RPC failed/.test((e as Error).message));
  });

  test('contract info: the ABI and the address the hosted indexer (or the deployment record) knows', () => {
    const { reads } = service(undefined, { deployedContracts: (c) => (c === 42161 ? { DiamondFactory: '0xArb' } : undefined) });
    const info = reads.info('diamondfactory', 31337);
    assert.equal(info.name, 'DiamondFactory');
    assert.equal(info.address, '0xFac7');
    assert.ok(info.abi.some((x) => x.type === 'event' && x.name === 'CollectionCreated'));
    assert.equal(reads.info('DiamondFactory', 42161).address, '0xArb');
    assert.equal(reads.info('Collection', 31337).address, null);
    assert.throws(() => reads.info('Nope', 31337), kind('not_found'));
  });

  test('reads need a chain: the hosted RPC, a configured one, or the running dev chain', () => {
    assert.equal(service(0).reads.canReadChain(), true);
    const none = createContractReads({ config: testConfig({ DEV_CHAIN: 'false' }) });
    assert.equal(none.canReadChain(), false);
    assert.equal(createContractReads({ config: testConfig({ DEV_CHAIN: 'true' }) }).canReadChain(), true);
    assert.equal(createContractReads({ config: testConfig({ NFT_RPC_URL: RPC, NFT_CHAIN_ID: '31337' }) }).canReadChain(), true);
  });
});

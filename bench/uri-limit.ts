/**
 * URI limits of a collection contract, measured on a fresh anvil (docs/contracts.md "URI limits"):
 *
 * 1. createCollection: the URIs live in the collection's code (verbatim, uriMode 0), so the largest
 *    baseURI that deploys (binary search, contractURI empty) shows which limit binds; gas per byte
 *    of URI from two sizes; the worst case the platform accepts (name and symbol 255 bytes, both
 *    URIs MAX_URI_BYTES) deployed, with its code size and gas.
 * 2. setBaseURI / setContractURI: the value goes to storage; gas per byte and the gas of a
 *    MAX_URI_BYTES value, against the block gas limit of anvil and of Arbitrum One.
 *
 *   npx tsx bench/uri-limit.ts
 */
import { type Abi, type Address, encodeFunctionData } from 'viem';
import { collectionAbi, diamondFactoryAbi } from '../contracts/abi/index.ts';
import { MAX_URI_BYTES } from '../src/domain/contract-limits.ts';
import { createCollection, defaultParams, setupChain, write, type ChainContext } from '../test/contracts/fixture.ts';

const EIP170 = 24_576;

const uri = (bytes: number, prefix = 'ipfs://') => prefix + 'a'.repeat(Math.max(0, bytes - prefix.length));

async function main() {
  const ctx = await setupChain();
  try {
    const owner = ctx.wallets[0]!.account.address;
    const factory = ctx.deployment.contracts.DiamondFactory as Address;
    const block = await ctx.publicClient.getBlock();
    console.log(`anvil block gas limit: ${block.gasLimit}`);

    // Gas of a createCollection call, or null when it reverts (simulated: nothing is sent).
    const estimate = async (p: ReturnType<typeof defaultParams>): Promise<bigint | null> =>
      ctx.publicClient
        .estimateGas({
          account: ctx.wallets[0]!.account,
          to: factory,
          data: encodeFunctionData({ abi: diamondFactoryAbi as Abi, functionName: 'createCollection', args: [p] }),
        })
        .catch(() => null);
    const withBase = (b: number, extra: Partial<ReturnType<typeof defaultParams>> = {}) =>
      defaultParams(owner, owner, { name: 'N', symbol: 'S', baseURI: uri(b), contractURI: '', ...extra });

    // 1. The largest baseURI that deploys (contractURI empty, name and symbol one byte).
    let lo = 0;
    let hi = 65_535;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if ((await estimate(withBase(mid))) !== null) lo = mid;
      else hi = mid - 1;
    }
    const g1 = (await estimate(withBase(1_000)))!;
    const g2 = (await estimate(withBase(9_000)))!;
    console.log(`createCollection: largest baseURI that deploys (name, symbol 1 byte, contractURI empty): ${lo} bytes`);
    console.log(`  code then: 210 + 1 + 1 + ${lo} = ${210 + 2 + lo} bytes (EIP-170 limit ${EIP170})`);
    console.log(`  gas per URI byte: ${Number(g2 - g1) / 8_000} (1,000 bytes: ${g1} gas; 9,000 bytes: ${g2} gas)`);
    console.log(`  ${lo + 1} bytes: ${(await estimate(withBase(lo + 1))) === null ? 'reverts' : 'deploys'}`);

    // The worst case the platform accepts.
    const worst = defaultParams(owner, owner, {
      name: 'n'.repeat(255),
      symbol: 's'.repeat(255),
      baseURI: uri(MAX_URI_BYTES, 'https://'),
      contractURI: uri(MAX_URI_BYTES, 'ipfs://'),
    });
    const { address, receipt } = await createCollection(ctx as ChainContext, worst);
    const code = await ctx.publicClient.getCode({ address });
    console.log(
      `worst accepted (name, symbol 255 bytes, both URIs ${MAX_URI_BYTES}): deployed, code ${(code!.length - 2) / 2} bytes, ${receipt.gasUsed} gas`,
    );

    // 2. setBaseURI / setContractURI: storage.
    const set = async (fn: 'setBaseURI' | 'setContractURI', bytes: number) =>
      (await write(ctx as ChainContext, ctx.wallets[0]!, address, fn, [uri(bytes, 'https://')], collectionAbi as Abi)).gasUsed;
    for (const fn of ['setBaseURI', 'setContractURI'] as const) {
      // Fresh slots each time: a longer value than before writes new words (the dearest case).
      const a = await set(fn, 64);
      const b = await set(fn, 64 + 3_200);
      const max = await set(fn, MAX_URI_BYTES);
      console.log(`${fn}: gas per byte written to fresh slots ${Number(b - a) / 3_200}; ${MAX_URI_BYTES} bytes: ${max} gas`);
    }
  } finally {
    await ctx.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

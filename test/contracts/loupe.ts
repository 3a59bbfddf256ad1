/**
 * Loupe checks shared by the diamond tests: where a call of a selector really ends up (from a
 * callTracer trace of the proxy -> router -> facet DELEGATECALL chain), and that every selector the
 * loupe reports is dispatched to the facet it names.
 */
import assert from 'node:assert/strict';
import { getAddress, toHex, type Address, type Hex } from 'viem';
import { read, type ChainContext } from './fixture.ts';

export interface Facet {
  facetAddress: Address;
  functionSelectors: readonly Hex[];
}

interface CallFrame {
  type: string;
  from: string;
  to: string;
  input: string;
  calls?: CallFrame[];
}

/** The facet a call of `selector` on `collection` ends up delegatecalling (undefined: none). */
export async function dispatchedTo(ctx: ChainContext, from: Address, collection: Address, selector: Hex): Promise<string | undefined> {
  const router = getAddress(ctx.deployment.contracts.DiamondRouter as Address);
  const input = (selector + '00'.repeat(4 * 32)) as Hex; // arguments are irrelevant: we only look at the route
  const trace = (await ctx.publicClient.request({
    method: 'debug_traceCall' as never,
    params: [{ from, to: collection, data: input, gas: toHex(5_000_000) }, 'latest', { tracer: 'callTracer' }] as never,
  })) as CallFrame;
  let frame: CallFrame | undefined = trace;
  for (;;) {
    const next: CallFrame | undefined = frame?.calls?.find((f) => f.type === 'DELEGATECALL');
    if (!next) return undefined;
    if (getAddress(next.to) !== router) return getAddress(next.to);
    frame = next;
  }
}

/** Asserts facets/facetFunctionSelectors/facetAddress/facetAddresses agree and match real dispatch. */
export async function assertLoupeTellsTheTruth(ctx: ChainContext, from: Address, collection: Address): Promise<Facet[]> {
  const facets = await read<Facet[]>(ctx, collection, 'facets');
  const seen = new Set<string>();
  for (const f of facets) {
    assert.ok(f.functionSelectors.length > 0, `facet ${f.facetAddress} listed without selectors`);
    assert.deepEqual(await read(ctx, collection, 'facetFunctionSelectors', [f.facetAddress]), f.functionSelectors);
    for (const s of f.functionSelectors) {
      assert.ok(!seen.has(s), `selector ${s} reported twice`);
      seen.add(s);
      assert.equal(await read(ctx, collection, 'facetAddress', [s]), f.facetAddress, `facetAddress(${s})`);
      assert.equal(await dispatchedTo(ctx, from, collection, s), f.facetAddress, `selector ${s} dispatches to its facet`);
    }
  }
  assert.deepEqual(
    await read(ctx, collection, 'facetAddresses'),
    facets.map((f) => f.facetAddress),
  );
  return facets;
}

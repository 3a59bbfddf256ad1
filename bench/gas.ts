/**
 * Gas bench: an Atelier collection (diamond through DiamondFactory) side by side with two standalone
 * references with the same features, OpenZeppelin ERC721 (RefOZ721) and ERC721A (RefERC721A), all
 * compiled by the same solc-js build (contracts/scripts/build.ts runs first in `npm run bench:gas`)
 * and measured in one run on a fresh anvil. Prints one markdown table with the targets.
 *
 *   npm run bench:gas
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { getAddress, keccak256, toHex, type Abi, type Address } from 'viem';
import { anvilBinary } from '../src/chain/anvil.ts';
import { ARTIFACTS_DIR } from '../src/chain/artifacts.ts';
import { SOLC_SETTINGS } from '../contracts/scripts/build.ts';
import {
  setupChain,
  defaultParams,
  createCollection,
  deployArtifact,
  write,
  read,
  METADATA_BASE,
  type ChainContext,
  type Wallet,
  type CollectionParams,
} from '../test/contracts/fixture.ts';

const MAX_BATCH = 10n; // LibERC721Storage.MAX_BATCH

let fresh = 0;
/** A never-used address (fresh recipient: its balance slot is zero). */
function freshAddress(): Address {
  fresh += 1;
  return getAddress(keccak256(toHex(`atelier-bench-recipient-${fresh}`)).slice(0, 42));
}

function uuidFor(i: number): string {
  const h = keccak256(toHex(`collection-${i}`)).slice(2);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function platformParams(owner: Address, i: number): CollectionParams {
  const id = uuidFor(i);
  return defaultParams(owner, owner, {
    name: 'Neon Botanica',
    symbol: 'NEONB',
    baseURI: `${METADATA_BASE}/collections/${id}/tokens/`,
    contractURI: `${METADATA_BASE}/collections/${id}/metadata.json`,
    maxSupply: 10_000n,
    royaltyReceiver: owner,
    royaltyBps: 500n,
  });
}

function customParams(owner: Address): CollectionParams {
  return defaultParams(owner, owner, {
    name: 'Neon Botanica',
    symbol: 'NEONB',
    baseURI: 'ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/',
    contractURI: 'ipfs://bafybeihkoviema7g3gxyt6la7vd5ho32ictqbilu3wnlo3rs7ewhnp7lly/collection.json',
    maxSupply: 10_000n,
    royaltyReceiver: owner,
    royaltyBps: 500n,
  });
}

type Subject = 'diamond' | 'oz' | 'erc721a';
const SUBJECTS: Subject[] = ['diamond', 'oz', 'erc721a'];
const REF_ARTIFACT: Record<Exclude<Subject, 'diamond'>, string> = { oz: 'RefOZ721', erc721a: 'RefERC721A' };

interface Row {
  label: string;
  gas: Partial<Record<Subject, bigint>>;
  target?: bigint;
}

async function deployCollection(ctx: ChainContext, s: Subject, p: CollectionParams): Promise<{ address: Address; gas: bigint }> {
  const w = ctx.wallets[0] as Wallet;
  if (s === 'diamond') {
    const { address, receipt } = await createCollection(ctx, p, w);
    return { address, gas: receipt.gasUsed };
  }
  const { address, receipt } = await deployArtifact(ctx, w, REF_ARTIFACT[s], [
    p.name,
    p.symbol,
    p.baseURI,
    p.contractURI,
    p.maxSupply,
    p.royaltyReceiver,
    p.royaltyBps,
    p.owner,
    p.minter,
  ]);
  return { address, gas: receipt.gasUsed };
}

function abiOf(s: Subject): Abi | undefined {
  if (s === 'diamond') return undefined; // fixture default: the collection ABI
  return JSON.parse(readFileSync(join(ARTIFACTS_DIR, `${REF_ARTIFACT[s]}.json`), 'utf8')).abi as Abi;
}

async function main(): Promise<void> {
  const ctx = await setupChain();
  try {
    const owner = ctx.wallets[0] as Wallet;
    const holder = ctx.wallets[1] as Wallet;
    const rows: Row[] = [];
    const row = (label: string, target?: bigint): Row => {
      const r: Row = { label, gas: {}, target };
      rows.push(r);
      return r;
    };

    const deployDefault = row('deploy one collection, platform URIs ({metadata_base}/collections/<uuid>/…)', 250_000n);
    const deployCustom = row('deploy one collection, custom URIs (ipfs://…)', 250_000n);
    const mintRows = new Map<bigint, Row>([
      [1n, row('mintTo(fresh recipient, 1)', 80_000n)],
      [2n, row('mintTo(fresh recipient, 2)')],
      [5n, row('mintTo(fresh recipient, 5)')],
      [10n, row('mintTo(fresh recipient, 10)', 100_000n)],
    ]);
    const transferFirst = row(`transferFrom, first token of a ${MAX_BATCH}-token mintTo (max run), fresh recipient`, 100_000n);
    const transferLast = row(`transferFrom, last token of a ${MAX_BATCH}-token mintTo (max run), fresh recipient`, 100_000n);
    const mint100 = row('mintTo(fresh recipient, 100) (info)');
    const transferLast100 = row('transferFrom, last token of a 100-token mintTo (info)');

    let n = 0;
    for (const s of SUBJECTS) {
      const abi = abiOf(s);
      const d1 = await deployCollection(ctx, s, platformParams(owner.account.address, n++));
      deployDefault.gas[s] = d1.gas;
      deployCustom.gas[s] = (await deployCollection(ctx, s, customParams(owner.account.address))).gas;
      const c = d1.address;
      // "collection already minted from"
      await write(ctx, owner, c, 'mintTo', [freshAddress(), 1n], abi);
      for (const [q, r] of mintRows) {
        r.gas[s] = (await write(ctx, owner, c, 'mintTo', [freshAddress(), q], abi)).gasUsed;
      }
      // a maximum-size run to the holder, then transfers of its first and last token
      await write(ctx, owner, c, 'mintTo', [holder.account.address, MAX_BATCH], abi);
      const total = (await read<bigint>(ctx, c, 'totalSupply', [], abi)) as bigint;
      await write(ctx, owner, c, 'mintTo', [freshAddress(), 1n], abi); // tokens follow the run
      const first = total - MAX_BATCH + 1n;
      // the last token first: nothing in the run has a record yet but its first token (the longest scan)
      transferLast.gas[s] = (await write(ctx, holder, c, 'transferFrom', [holder.account.address, freshAddress(), total], abi)).gasUsed;
      transferFirst.gas[s] = (await write(ctx, holder, c, 'transferFrom', [holder.account.address, freshAddress(), first], abi)).gasUsed;
      // informative: a 100-token mint and the transfer of its last token
      mint100.gas[s] = (await write(ctx, owner, c, 'mintTo', [holder.account.address, 100n], abi)).gasUsed;
      const total2 = (await read<bigint>(ctx, c, 'totalSupply', [], abi)) as bigint;
      await write(ctx, owner, c, 'mintTo', [freshAddress(), 1n], abi);
      transferLast100.gas[s] = (await write(ctx, holder, c, 'transferFrom', [holder.account.address, freshAddress(), total2], abi)).gasUsed;
    }

    const fmt = (g: bigint | undefined) => (g === undefined ? '—' : g.toLocaleString('en-US'));
    const anvilVersion = execFileSync(anvilBinary(), ['--version'], { encoding: 'utf8' }).split('\n')[0];
    const buildInfo = JSON.parse(readFileSync(join(ARTIFACTS_DIR, '.build-info.json'), 'utf8')) as { solcVersion: string; hash: string };
    const lines: string[] = [];
    lines.push(
      `Gas used (transaction receipts) on ${anvilVersion}, chain ${ctx.deployment.chainId}; solc ${buildInfo.solcVersion}, ` +
        `evm ${SOLC_SETTINGS.evmVersion}, optimizer runs ${SOLC_SETTINGS.optimizer.runs}; build ${buildInfo.hash.slice(0, 12)} (all three compiled together).`,
    );
    lines.push('');
    lines.push('| operation | Atelier diamond | OZ ERC721 | ERC721A | target (diamond) | diamond |');
    lines.push('|---|---:|---:|---:|---:|---|');
    let missed = 0;
    for (const r of rows) {
      const g = r.gas.diamond;
      let verdict = '';
      if (r.target !== undefined && g !== undefined) {
        const ok = g <= r.target;
        if (!ok) missed++;
        verdict = ok ? 'pass' : 'MISS';
      }
      lines.push(
        `| ${r.label} | ${fmt(r.gas.diamond)} | ${fmt(r.gas.oz)} | ${fmt(r.gas.erc721a)} | ${r.target === undefined ? '' : `≤ ${fmt(r.target)}`} | ${verdict} |`,
      );
    }
    lines.push('');
    lines.push(
      `Diamond: the worst transfer is bounded by the run cap (${MAX_BATCH} tokens per ownership record); ` +
        `OZ ERC721 and ERC721A deploy a full contract per collection; ERC721A's transfer cost grows with the batch size.`,
    );
    process.stdout.write(lines.join('\n') + '\n');
    process.stdout.write(missed === 0 ? 'all diamond targets met\n' : `${missed} diamond target(s) missed\n`);
    process.exitCode = missed === 0 ? 0 : 1;
  } finally {
    await ctx.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});

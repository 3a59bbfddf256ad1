/**
 * Gas bench: an Atelier collection (diamond through DiamondFactory) side by side with two standalone
 * references with the same features, OpenZeppelin ERC721 (RefOZ721) and ERC721A (RefERC721A), all
 * compiled by the same solc-js build (contracts/scripts/build.ts runs first in `npm run bench:gas`)
 * and measured in one run on a fresh anvil. Prints one markdown table with the targets: deploy, mints,
 * the transfer of every position 1..10 of a fresh max run (to a fresh recipient and to one already
 * holding tokens), a few informative cases, a 100-token mint to a fresh recipient, and the transfer
 * of every position 1..100 of a fresh 100-token mint (the platform's largest mint; each position
 * measured on the same fresh mint state, restored by an anvil snapshot). Exits 1 when a diamond
 * target is missed.
 *
 *   npm run bench:gas [-- --check-docs | --write-docs]   (the table in docs/contracts.md)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { createWalletClient, getAddress, http, keccak256, toHex, zeroAddress, type Abi, type Address, type Hex } from 'viem';
import { merkleProof, merkleRoot } from '../src/domain/mint-policy.ts';
import { collectionAbi } from '../contracts/abi/index.ts';
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
  waitOk,
  METADATA_BASE,
  type ChainContext,
  type Wallet,
  type CollectionParams,
} from '../test/contracts/fixture.ts';

const MAX_BATCH = 10n; // OWNERSHIP_MAX_BATCH in contracts/src/libraries/LibStorage.sol
/** The largest mint the platform sends: POST …/mint takes quantity 1–100 (src/http/schemas/minting.ts). */
const MAX_MINT = 100n;

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

/** A wallet for an address without a key (anvil impersonation), funded for gas. */
async function impersonate(ctx: ChainContext, address: Address): Promise<Wallet> {
  await ctx.anvil.rpc('anvil_impersonateAccount', [address]);
  await ctx.anvil.rpc('anvil_setBalance', [address, toHex(10n ** 20n)]);
  return createWalletClient({
    chain: ctx.chain,
    transport: http(ctx.anvil.rpcUrl),
    account: address,
    pollingInterval: 20,
    cacheTime: 0,
  }) as unknown as Wallet;
}

async function main(): Promise<void> {
  const ctx = await setupChain();
  try {
    const owner = ctx.wallets[0] as Wallet;
    const holder = ctx.wallets[1] as Wallet;
    const holdingRecipient = ctx.wallets[2] as Wallet; // already holds tokens of every collection
    const operator = ctx.wallets[3] as Wallet;
    const rows: Row[] = [];
    const row = (label: string, target?: bigint): Row => {
      const r: Row = { label, gas: {}, target };
      rows.push(r);
      return r;
    };
    const positions = Array.from({ length: Number(MAX_BATCH) }, (_, i) => BigInt(i + 1));

    const deployDefault = row('deploy one collection, platform URIs ({metadata_base}/collections/<uuid>/…)', 250_000n);
    const deployCustom = row('deploy one collection, custom URIs (ipfs://…)', 250_000n);
    const mintRows = new Map<bigint, Row>([
      [1n, row('mintTo(fresh recipient, 1)', 80_000n)],
      [2n, row('mintTo(fresh recipient, 2)')],
      [5n, row('mintTo(fresh recipient, 5)')],
      [10n, row('mintTo(fresh recipient, 10)', 100_000n)],
    ]);
    const freshRows = positions.map((p) =>
      row(`transferFrom, token ${p} of ${MAX_BATCH} of a fresh ${MAX_BATCH}-token mintTo (max run), fresh recipient`, 100_000n),
    );
    const holdingRows = positions.map((p) =>
      row(
        `transferFrom, token ${p} of ${MAX_BATCH} of a fresh ${MAX_BATCH}-token mintTo (max run), recipient already holding tokens`,
        100_000n,
      ),
    );
    const again = row('transferFrom of a token transferred before (token 5 of a max run, its second move), fresh recipient (info)');
    const safeLast = row(`safeTransferFrom(from, EOA, id), token ${MAX_BATCH} of a fresh max run, fresh recipient (info)`);
    const operatorLast = row(
      `transferFrom by an operator (setApprovalForAll), token ${MAX_BATCH} of a fresh max run, fresh recipient (info)`,
    );
    const mint100 = row('mintTo(fresh recipient, 100) (info)');
    const transferLast100 = row('transferFrom by that fresh holder, token 100 of the 100-token mintTo, fresh recipient (info)');
    const everyRow = row(
      `transferFrom, the worst of tokens 1..${MAX_MINT} of a fresh ${MAX_MINT}-token mintTo (the platform's largest), each from the fresh mint, fresh recipient`,
      100_000n,
    );
    const every: Partial<Record<Subject, bigint[]>> = {};
    const saleRows = {
      native1: row('purchase(1) native, fresh buyer (70/30 split pushed, no limit, no allowlist)'),
      native5: row('purchase(5) native, fresh buyer'),
      erc20: row('purchase(1) erc20, fresh buyer (tUSD, 70/30 split, each share measured at the recipient)'),
      limited: row('purchase(1) native, fresh buyer, max per wallet + allowlist proof (1,024 wallets) (info)'),
    };

    let n = 0;
    for (const s of SUBJECTS) {
      const abi = abiOf(s);
      const d1 = await deployCollection(ctx, s, platformParams(owner.account.address, n++));
      deployDefault.gas[s] = d1.gas;
      deployCustom.gas[s] = (await deployCollection(ctx, s, customParams(owner.account.address))).gas;
      const c = d1.address;
      const send = (w: Wallet, fn: string, args: readonly unknown[]) => write(ctx, w, c, fn, args, abi);
      // "collection already minted from"; the holding recipient holds a token
      await send(owner, 'mintTo', [holdingRecipient.account.address, 1n]);
      for (const [q, r] of mintRows) r.gas[s] = (await send(owner, 'mintTo', [freshAddress(), q])).gasUsed;

      /** A fresh max run to `holder`, followed by another token; returns its first id. */
      const freshRun = async (): Promise<bigint> => {
        await send(owner, 'mintTo', [holder.account.address, MAX_BATCH]);
        const total = (await read<bigint>(ctx, c, 'totalSupply', [], abi)) as bigint;
        await send(owner, 'mintTo', [freshAddress(), 1n]); // tokens follow the run
        return total - MAX_BATCH + 1n;
      };
      const from = holder.account.address;
      for (const p of positions) {
        const first = await freshRun();
        (freshRows[Number(p) - 1] as Row).gas[s] = (await send(holder, 'transferFrom', [from, freshAddress(), first + p - 1n])).gasUsed;
      }
      for (const p of positions) {
        const first = await freshRun();
        (holdingRows[Number(p) - 1] as Row).gas[s] = (
          await send(holder, 'transferFrom', [from, holdingRecipient.account.address, first + p - 1n])
        ).gasUsed;
      }
      {
        const first = await freshRun();
        await send(holder, 'transferFrom', [from, holdingRecipient.account.address, first + 4n]);
        again.gas[s] = (
          await send(holdingRecipient, 'transferFrom', [holdingRecipient.account.address, freshAddress(), first + 4n])
        ).gasUsed;
      }
      {
        const first = await freshRun();
        safeLast.gas[s] = (await send(holder, 'safeTransferFrom', [from, freshAddress(), first + MAX_BATCH - 1n])).gasUsed;
      }
      {
        await send(holder, 'setApprovalForAll', [operator.account.address, true]);
        const first = await freshRun();
        operatorLast.gas[s] = (await send(operator, 'transferFrom', [from, freshAddress(), first + MAX_BATCH - 1n])).gasUsed;
        await send(holder, 'setApprovalForAll', [operator.account.address, false]);
      }
      // informative: a 100-token mint to a fresh address, then that address moves the last token
      const bigHolder = freshAddress();
      mint100.gas[s] = (await send(owner, 'mintTo', [bigHolder, 100n])).gasUsed;
      const total100 = (await read<bigint>(ctx, c, 'totalSupply', [], abi)) as bigint;
      await send(owner, 'mintTo', [freshAddress(), 1n]);
      const big = await impersonate(ctx, bigHolder);
      transferLast100.gas[s] = (await send(big, 'transferFrom', [bigHolder, freshAddress(), total100])).gasUsed;

      // Every position of a fresh largest mint: each transfer from the same state (snapshot, revert).
      await send(owner, 'mintTo', [holder.account.address, MAX_MINT]);
      const lastOfMint = (await read<bigint>(ctx, c, 'totalSupply', [], abi)) as bigint;
      await send(owner, 'mintTo', [freshAddress(), 1n]);
      const firstOfMint = lastOfMint - MAX_MINT + 1n;
      const gases: bigint[] = [];
      // (the nonce is given: after a revert the node's "pending" count may still count the undone transaction)
      const nonce = await ctx.publicClient.getTransactionCount({ address: from, blockTag: 'latest' });
      for (let p = 0n; p < MAX_MINT; p++) {
        const snap = (await ctx.anvil.rpc('evm_snapshot', [])) as string;
        const hash = await holder.writeContract({
          address: c,
          abi: abi ?? (collectionAbi as Abi),
          functionName: 'transferFrom',
          args: [from, freshAddress(), firstOfMint + p],
          nonce,
        } as never);
        gases.push((await waitOk(ctx, hash)).gasUsed);
        await ctx.anvil.rpc('evm_revert', [snap]);
        await ctx.anvil.rpc('anvil_dropAllTransactions', []); // nothing of the undone block waits in the pool
      }
      every[s] = gases;
      everyRow.gas[s] = gases.reduce((m, g) => (g > m ? g : m), 0n);
    }
    await measureSales(ctx, saleRows);
    // The sale rows' target is the ERC721A reference measured in this run (docs/contracts.md "Sale").
    for (const r of Object.values(saleRows)) if (!r.label.endsWith('(info)')) r.target = r.gas.erc721a;

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
    const worst = freshRows.reduce((w, r) => ((r.gas.diamond ?? 0n) > (w.gas.diamond ?? 0n) ? r : w));
    const worstGas = worst.gas.diamond ?? 0n;
    lines.push('');
    lines.push(
      `Diamond: worst transfer of a max run to a fresh recipient: ${fmt(worstGas)} gas (token ${freshRows.indexOf(worst) + 1} of ${MAX_BATCH}), ` +
        `target ≤ 100,000: ${worstGas <= 100_000n ? 'pass' : 'MISS'}. The run cap (${MAX_BATCH} tokens per run head) bounds it whatever the mintTo size; ` +
        `OZ ERC721 and ERC721A deploy a full contract per collection; ERC721A's transfer cost grows with the batch size.`,
    );
    const spread = (s: Subject) => {
      const g = every[s] ?? [];
      const max = g.reduce((m, x) => (x > m ? x : m), 0n);
      const min = g.reduce((m, x) => (x < m ? x : m), max);
      return `${fmt(min)}–${fmt(max)} (worst token ${g.indexOf(max) + 1})`;
    };
    lines.push(
      `Every position of a fresh mintTo(${MAX_MINT}), fresh recipient: diamond ${spread('diamond')}, OZ ERC721 ${spread('oz')}, ERC721A ${spread('erc721a')}; ` +
        `diamond target ≤ 100,000: ${(everyRow.gas.diamond ?? 0n) <= 100_000n ? 'pass' : 'MISS'}.`,
    );
    lines.push(`purchase(1) native: ${saleRows.native1.gas.diamond} gas`);
    process.stdout.write(lines.join('\n') + '\n');
    process.stdout.write(missed === 0 ? 'all diamond targets met\n' : `${missed} diamond target(s) missed\n`);
    const docsOk = syncDocs(lines.filter(isTableLine));
    process.exitCode = missed === 0 && docsOk ? 0 : 1;
  } finally {
    await ctx.stop();
  }
}

type SaleRows = Record<'native1' | 'native5' | 'erc20' | 'limited', Row>;
const SALE_ARTIFACT: Record<Exclude<Subject, 'diamond'>, string> = { oz: 'RefOZ721Sale', erc721a: 'RefERC721ASale' };
const ZERO_ROOT = `0x${'0'.repeat(64)}` as Hex;
const ETH_PRICE = 10n ** 15n;
const USD_PRICE = 5_000_000n;

/**
 * The sale rows: for each subject a fresh collection with a sale (the diamond's SaleFacet, the
 * references' RefSale), 70/30 payouts to two recipients that already hold funds (one purchase
 * first), then purchases by fresh buyers (never held a token of the collection; funded by anvil)
 * for themselves, paying exactly the price.
 */
async function measureSales(ctx: ChainContext, rows: SaleRows): Promise<void> {
  const owner = ctx.wallets[0] as Wallet;
  const usd = (await deployArtifact(ctx, owner, 'AtelierTestUSD')).address;
  const usdAbi = JSON.parse(readFileSync(join(ARTIFACTS_DIR, 'AtelierTestUSD.json'), 'utf8')).abi as Abi;
  const payouts = [
    { recipient: freshAddress(), bps: 7000 },
    { recipient: freshAddress(), bps: 3000 },
  ];
  const listed = Array.from({ length: 1024 }, () => freshAddress());
  for (const s of SUBJECTS) {
    let c: Address;
    let abi: Abi | undefined;
    if (s === 'diamond') {
      c = (await createCollection(ctx, platformParams(owner.account.address, 1000), owner)).address;
    } else {
      abi = JSON.parse(readFileSync(join(ARTIFACTS_DIR, `${SALE_ARTIFACT[s]}.json`), 'utf8')).abi as Abi;
      c = (await deployArtifact(ctx, owner, SALE_ARTIFACT[s], ['Neon Botanica', 'NEONB', 10_000n, owner.account.address])).address;
    }
    const configure = (currency: Address, price: bigint, maxPerWallet: number, root: Hex) =>
      s === 'diamond'
        ? write(ctx, owner, c, 'setSale', [{ currency, price, start: 0n, end: 0n, maxPerWallet, merkleRoot: root, payouts }])
        : write(ctx, owner, c, 'setSale', [{ price, start: 0, end: 0, maxPerWallet, paused: false }, currency, root, payouts], abi);
    const buy = async (q: bigint, value: bigint, proof: Hex[] = [], who?: Address) => {
      const buyer = await impersonate(ctx, who ?? freshAddress());
      const hash = await buyer.writeContract({
        address: c,
        abi: abi ?? (collectionAbi as Abi),
        functionName: 'purchase',
        args: [buyer.account.address, q, proof, '0x'],
        value,
      } as never);
      return (await waitOk(ctx, hash)).gasUsed;
    };
    await configure(zeroAddress, ETH_PRICE, 0, ZERO_ROOT);
    await buy(1n, ETH_PRICE); // recipients hold ETH, the collection was sold from
    rows.native1.gas[s] = await buy(1n, ETH_PRICE);
    rows.native5.gas[s] = await buy(5n, ETH_PRICE * 5n);
    const who = listed[7] as Address;
    await configure(zeroAddress, ETH_PRICE, 5, merkleRoot(listed));
    rows.limited.gas[s] = await buy(1n, ETH_PRICE, merkleProof(listed, who), who);

    await configure(usd, USD_PRICE, 0, ZERO_ROOT);
    const erc20Buy = async () => {
      const buyer = await impersonate(ctx, freshAddress());
      await write(ctx, buyer, usd, 'mint', [buyer.account.address, USD_PRICE * 10n], usdAbi);
      await write(ctx, buyer, usd, 'approve', [c, USD_PRICE * 10n], usdAbi);
      const hash = await buyer.writeContract({
        address: c,
        abi: abi ?? (collectionAbi as Abi),
        functionName: 'purchase',
        args: [buyer.account.address, 1n, [], '0x'],
      } as never);
      return (await waitOk(ctx, hash)).gasUsed;
    };
    await erc20Buy(); // recipients hold tUSD
    rows.erc20.gas[s] = await erc20Buy();
  }
}

const isTableLine = (l: string) => l.startsWith('|') || l.startsWith('Diamond: ') || l.startsWith('Every position ');

/**
 * docs/contracts.md keeps the table between the bench:gas markers. `--write-docs` replaces it with
 * this run's; `--check-docs` fails when it differs. Without either flag nothing is compared.
 */
function syncDocs(table: string[]): boolean {
  const write = process.argv.includes('--write-docs');
  if (!write && !process.argv.includes('--check-docs')) return true;
  const path = join(import.meta.dirname, '..', 'docs', 'contracts.md');
  const doc = readFileSync(path, 'utf8');
  const m = /(<!-- bench:gas table[^\n]*-->\n)([\s\S]*?)(<!-- \/bench:gas table -->)/.exec(doc);
  if (!m) throw new Error('docs/contracts.md: bench:gas table markers not found');
  const current = (m[2] as string).split('\n').filter(isTableLine);
  if (write) {
    const [head, rest] = [table.filter((l) => l.startsWith('|')), table.filter((l) => !l.startsWith('|'))];
    writeFileSync(path, doc.replace(m[0], `${m[1]}${head.join('\n')}\n\n${rest.join('\n')}\n${m[3]}`));
    process.stdout.write('docs/contracts.md: gas table written\n');
    return true;
  }
  const same = current.length === table.length && current.every((l, i) => l === table[i]);
  process.stdout.write(
    same
      ? 'docs/contracts.md: gas table matches\n'
      : 'docs/contracts.md: gas table DIFFERS from this run (npm run bench:gas -- --write-docs)\n',
  );
  return same;
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});

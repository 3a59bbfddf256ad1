/**
 * Ownership records (LibERC721Storage): a mint writes one run head per run of at most 10 tokens; a
 * transfer writes the token's own word (or, for a run head, its first-owner word) and never splits
 * a run. Checked two ways: the exact storage a transfer changes (prestateTracer diff), and
 * property-style walks that transfer random positions of several batches in random orders, by
 * owners, approved addresses and operators, and compare ownerOf / balanceOf / getApproved with a
 * model after every step. Every transferFrom by the holder to an EOA stays within 100,000 gas.
 * OWNERSHIP_SEED=<n> replays another walk.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { encodeAbiParameters, keccak256, parseEventLogs, toHex, zeroAddress, type Address, type Hex, type TransactionReceipt } from 'viem';
import { collectionAbi } from '../../contracts/abi/index.ts';
import { setupChain, defaultParams, createCollection, write, read, revertName, type ChainContext, type Wallet } from './fixture.ts';

const OWNERSHIPS = BigInt('0x155c6401baa9359616908c689a74584618913e7e3f5540593235b60c2033da00');
const ERC721_SLOT = BigInt('0xc65aad0dc38ef6ff60e3d5dbcd49887f97e214efbc364665a1c0fb58c65aa900');
const FIRST_OWNER_OFFSET = 1n << 40n;
const SPAN_SHIFT = 160n;
const FIRST_MOVED = 1n << 176n;
const HAS_APPROVAL = 1n << 177n;
const TRANSFER_GAS_LIMIT = 100_000n;
const SEED = Number(process.env.OWNERSHIP_SEED ?? 20_240_917);

const hex32 = (n: bigint): Hex => toHex(n, { size: 32 });
const ownershipSlot = (id: bigint): Hex => hex32(OWNERSHIPS + id);
const firstOwnerSlot = (id: bigint): Hex => hex32(OWNERSHIPS + FIRST_OWNER_OFFSET + id);
const balanceSlot = (a: Address): Hex => keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [a, ERC721_SLOT]));
const approvalSlot = (id: bigint): Hex =>
  keccak256(encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], [id, ERC721_SLOT + 1n]));

/** mulberry32: a small seeded generator, so a failing walk can be replayed. */
function prng(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n: number) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

function shuffle<T>(items: T[], rand: (n: number) => number): T[] {
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = rand(i + 1);
    [a[i], a[j]] = [a[j] as T, a[i] as T];
  }
  return a;
}

describe('ownership records and transfers in any order', () => {
  let ctx: ChainContext;
  let owner: Wallet, minter: Wallet, operator: Wallet;
  let holders: Wallet[];

  before(async () => {
    ctx = await setupChain();
    [owner, minter] = ctx.wallets as [Wallet, Wallet];
    holders = ctx.wallets.slice(2, 8);
    operator = ctx.wallets[8] as Wallet;
  });
  after(async () => {
    await ctx?.stop();
  });

  /** Storage slots of `c` changed by a transaction, with their new values (zero when cleared). */
  async function storageDiff(c: Address, r: TransactionReceipt): Promise<Record<string, Hex>> {
    type Side = Record<string, { storage?: Record<string, Hex> }>;
    const diff = await ctx.anvil.rpc<{ pre: Side; post: Side }>('debug_traceTransaction', [
      r.transactionHash,
      { tracer: 'prestateTracer', tracerConfig: { diffMode: true } },
    ]);
    const post = diff.post[c.toLowerCase()]?.storage ?? {};
    const out: Record<string, Hex> = {};
    // diffMode leaves cleared slots out of `post`
    for (const k of Object.keys(diff.pre[c.toLowerCase()]?.storage ?? {})) out[k] = hex32(0n);
    return Object.assign(out, post);
  }
  const word = async (c: Address, slot: Hex) => BigInt((await ctx.publicClient.getStorageAt({ address: c, slot })) ?? '0x0');
  const addr = (w: Wallet) => w.account.address;
  const big = (a: Address) => BigInt(a);

  test('a mint writes one run head per 10 tokens; a transfer writes only the token word (no split)', async () => {
    const [a, b, c2, d] = holders as [Wallet, Wallet, Wallet, Wallet];
    const { address: c } = await createCollection(ctx, defaultParams(addr(owner), addr(minter)));
    const m = await write(ctx, minter, c, 'mintTo', [addr(a), 25n]);
    const minted = await storageDiff(c, m);
    // run heads at 1, 11, 21 (spans 10, 10, 5), the balance, the mint word: nothing else
    assert.deepEqual(
      Object.keys(minted).sort(),
      [
        ownershipSlot(1n),
        ownershipSlot(11n),
        ownershipSlot(21n),
        balanceSlot(addr(a)),
        hex32(BigInt('0xa7b176edf3a70942502572a234c16ed64889530632318bb3bd799d443b486300')),
      ].sort(),
    );
    assert.equal(await word(c, ownershipSlot(1n)), big(addr(a)) | (10n << SPAN_SHIFT));
    assert.equal(await word(c, ownershipSlot(21n)), big(addr(a)) | (5n << SPAN_SHIFT));

    // a token inside a run: its own word only (span 0), the run head is untouched
    let r = await write(ctx, a, c, 'transferFrom', [addr(a), addr(b), 5n]);
    assert.deepEqual(await storageDiff(c, r), {
      [ownershipSlot(5n)]: hex32(big(addr(b))),
      [balanceSlot(addr(a))]: hex32(24n),
      [balanceSlot(addr(b))]: hex32(1n),
    });
    // the run head: FIRST_MOVED on the head word, its owner in the first-owner word
    r = await write(ctx, a, c, 'transferFrom', [addr(a), addr(c2), 1n]);
    assert.deepEqual(await storageDiff(c, r), {
      [ownershipSlot(1n)]: hex32(big(addr(a)) | (10n << SPAN_SHIFT) | FIRST_MOVED),
      [firstOwnerSlot(1n)]: hex32(big(addr(c2))),
      [balanceSlot(addr(a))]: hex32(23n),
      [balanceSlot(addr(c2))]: hex32(1n),
    });
    // moving them again overwrites one non-zero word each
    r = await write(ctx, c2, c, 'transferFrom', [addr(c2), addr(d), 1n]);
    assert.deepEqual(Object.keys(await storageDiff(c, r)).sort(), [firstOwnerSlot(1n), balanceSlot(addr(c2)), balanceSlot(addr(d))].sort());
    r = await write(ctx, b, c, 'transferFrom', [addr(b), addr(a), 5n]);
    assert.deepEqual(Object.keys(await storageDiff(c, r)).sort(), [ownershipSlot(5n), balanceSlot(addr(a)), balanceSlot(addr(b))].sort());
    // approve inside a run gives the token an explicit word carrying the flag
    r = await write(ctx, a, c, 'approve', [addr(operator), 7n]);
    assert.deepEqual(await storageDiff(c, r), {
      [ownershipSlot(7n)]: hex32(big(addr(a)) | HAS_APPROVAL),
      [approvalSlot(7n)]: hex32(big(addr(operator))),
    });
    // the approved transfer clears the flag and the approval
    r = await write(ctx, operator, c, 'transferFrom', [addr(a), addr(b), 7n]);
    const after7 = await storageDiff(c, r);
    assert.equal(after7[ownershipSlot(7n)], hex32(big(addr(b))));
    assert.equal(BigInt(after7[approvalSlot(7n)] ?? '0x0'), 0n);
    // a one-token run head is simply overwritten (nothing to keep for other tokens)
    await write(ctx, minter, c, 'mintTo', [addr(a), 1n]);
    r = await write(ctx, a, c, 'transferFrom', [addr(a), addr(b), 26n]);
    assert.equal((await storageDiff(c, r))[ownershipSlot(26n)], hex32(big(addr(b)) | (1n << SPAN_SHIFT)));
    // owners everywhere
    const expected = new Map<bigint, Address>();
    for (let id = 1n; id <= 26n; id++) expected.set(id, addr(a));
    expected.set(1n, addr(d));
    expected.set(7n, addr(b));
    expected.set(26n, addr(b));
    for (const [id, who] of expected) assert.equal(await read(ctx, c, 'ownerOf', [id]), who, `owner of ${id}`);
  });

  test(`every position of several max runs, in random orders, twice over (seed ${SEED})`, async () => {
    const rand = prng(SEED);
    const { address: c } = await createCollection(ctx, defaultParams(addr(owner), addr(minter), { maxSupply: 10_000n }));
    const model = new Map<bigint, Wallet>();
    // three full runs to the first holder, a partial one and another full one to others
    let next = 1n;
    for (const [who, q] of [
      [holders[0], 10n],
      [holders[0], 10n],
      [holders[1], 7n],
      [holders[0], 10n],
      [holders[2], 25n],
    ] as Array<[Wallet, bigint]>) {
      await write(ctx, minter, c, 'mintTo', [addr(who), q]);
      for (let i = 0n; i < q; i++) model.set(next + i, who);
      next += q;
    }
    let worst = 0n;
    const ids = [...model.keys()];
    for (const round of [1, 2]) {
      for (const id of shuffle(ids, rand)) {
        const from = model.get(id) as Wallet;
        const to = holders[rand(holders.length)] as Wallet;
        const r = await write(ctx, from, c, 'transferFrom', [addr(from), addr(to), id]);
        const logs = parseEventLogs({ abi: collectionAbi, logs: r.logs, eventName: 'Transfer' });
        assert.deepEqual(
          logs.map((l) => [l.args.from, l.args.to, (l.args as { tokenId: bigint }).tokenId]),
          [[addr(from), addr(to), id]],
        );
        assert.ok(r.gasUsed <= TRANSFER_GAS_LIMIT, `round ${round}: token ${id} cost ${r.gasUsed} gas`);
        if (r.gasUsed > worst) worst = r.gasUsed;
        model.set(id, to);
        await checkNeighbourhood(c, model, id);
      }
      await checkAll(c, model, new Map());
    }
    assert.ok(worst > 0n);
  });

  test(`random walk of owner, approved and operator transfers, approvals and safe transfers (seed ${SEED + 1})`, async () => {
    const rand = prng(SEED + 1);
    const { address: c } = await createCollection(ctx, defaultParams(addr(owner), addr(minter), { maxSupply: 10_000n }));
    const model = new Map<bigint, Wallet>();
    const approvals = new Map<bigint, Wallet>();
    const operatorOf = new Set<Address>(); // holders that made `operator` their operator
    let next = 1n;
    for (const q of [10n, 1n, 4n, 10n, 13n, 2n, 10n]) {
      const who = holders[rand(holders.length)] as Wallet;
      await write(ctx, minter, c, 'mintTo', [addr(who), q]);
      for (let i = 0n; i < q; i++) model.set(next + i, who);
      next += q;
    }
    const total = next - 1n;
    for (let step = 0; step < 120; step++) {
      const id = BigInt(1 + rand(Number(total)));
      const holder = model.get(id) as Wallet;
      const to = holders[rand(holders.length)] as Wallet;
      const stranger = holders.find((h) => h !== holder && approvals.get(id) !== h) as Wallet;
      switch (rand(6)) {
        case 0: {
          const spender = rand(2) === 0 ? operator : (holders[rand(holders.length)] as Wallet);
          await write(ctx, holder, c, 'approve', [addr(spender), id]);
          approvals.set(id, spender);
          break;
        }
        case 1: {
          const spender = approvals.get(id);
          if (!spender) {
            assert.equal(await revertName(ctx, stranger, c, 'transferFrom', [addr(holder), addr(to), id]), 'ERC721InsufficientApproval');
            break;
          }
          await write(ctx, spender, c, 'transferFrom', [addr(holder), addr(to), id]);
          model.set(id, to);
          approvals.delete(id);
          break;
        }
        case 2: {
          const on = !operatorOf.has(addr(holder));
          await write(ctx, holder, c, 'setApprovalForAll', [addr(operator), on]);
          if (on) operatorOf.add(addr(holder));
          else operatorOf.delete(addr(holder));
          break;
        }
        case 3: {
          if (!operatorOf.has(addr(holder)) && approvals.get(id) !== operator) {
            assert.equal(await revertName(ctx, operator, c, 'transferFrom', [addr(holder), addr(to), id]), 'ERC721InsufficientApproval');
            break;
          }
          await write(ctx, operator, c, 'safeTransferFrom', [addr(holder), addr(to), id]);
          model.set(id, to);
          approvals.delete(id);
          break;
        }
        default: {
          const fn = rand(2) === 0 ? 'transferFrom' : 'safeTransferFrom';
          const r = await write(ctx, holder, c, fn, [addr(holder), addr(to), id]);
          if (fn === 'transferFrom') assert.ok(r.gasUsed <= TRANSFER_GAS_LIMIT, `token ${id} cost ${r.gasUsed} gas`);
          model.set(id, to);
          approvals.delete(id);
        }
      }
      // a wrong `from` is always refused
      const current = model.get(id) as Wallet;
      const other = holders.find((h) => h !== current) as Wallet;
      assert.equal(await revertName(ctx, current, c, 'transferFrom', [addr(other), addr(to), id]), 'ERC721IncorrectOwner');
      await checkNeighbourhood(c, model, id, approvals);
      if (step % 30 === 29) await checkAll(c, model, approvals);
    }
    await checkAll(c, model, approvals);
  });

  /** ownerOf of the tokens around `id` (its run and the next) and the holders' balances. */
  async function checkNeighbourhood(c: Address, model: Map<bigint, Wallet>, id: bigint, approvals?: Map<bigint, Wallet>) {
    for (let t = id - 10n; t <= id + 10n; t++) {
      const who = model.get(t);
      if (!who) continue;
      assert.equal(await read(ctx, c, 'ownerOf', [t]), addr(who), `owner of ${t}`);
      if (approvals)
        assert.equal(await read(ctx, c, 'getApproved', [t]), approvals.has(t) ? addr(approvals.get(t) as Wallet) : zeroAddress);
    }
    await checkBalances(c, model);
  }

  async function checkBalances(c: Address, model: Map<bigint, Wallet>) {
    for (const h of holders) {
      const n = [...model.values()].filter((w) => w === h).length;
      assert.equal(await read(ctx, c, 'balanceOf', [addr(h)]), BigInt(n), `balance of ${addr(h)}`);
    }
  }

  async function checkAll(c: Address, model: Map<bigint, Wallet>, approvals: Map<bigint, Wallet>) {
    assert.equal(await read(ctx, c, 'totalSupply'), BigInt(model.size));
    for (const [t, who] of model) {
      assert.equal(await read(ctx, c, 'ownerOf', [t]), addr(who), `owner of ${t}`);
      assert.equal(
        await read(ctx, c, 'getApproved', [t]),
        approvals.has(t) ? addr(approvals.get(t) as Wallet) : zeroAddress,
        `approval of ${t}`,
      );
    }
    await checkBalances(c, model);
    assert.equal(await revertName(ctx, owner, c, 'ownerOf', [BigInt(model.size) + 1n]), 'ERC721NonexistentToken');
  }
});

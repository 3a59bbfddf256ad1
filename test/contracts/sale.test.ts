/**
 * The on-chain sale (SaleFacet, docs/contracts.md "Sale") on a real anvil: every refusal reverts
 * with its custom error; native and ERC-20 purchases split 70/30 pay each recipient exactly; the
 * excess of a native payment comes back; the per-wallet limit and the allowlist hold for 20
 * purchases from 5 wallets mined in one block; a reentrant receiver, a fee-on-transfer token and
 * misbehaving tokens neither mint more nor move funds they should not.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { parseEventLogs, toHex, type Abi, type Address, type Hex } from 'viem';
import { collectionAbi } from '../../contracts/abi/index.ts';
import { loadArtifact } from '../../src/chain/artifacts.ts';
import { merkleProof, merkleRoot } from '../../src/domain/mint-policy.ts';
import { setupChain, defaultParams, createCollection, deployArtifact, write, read, type ChainContext, type Wallet } from './fixture.ts';

const ZERO = '0x0000000000000000000000000000000000000000' as Address;
const ZERO_ROOT = `0x${'0'.repeat(64)}` as Hex;
const PRICE = 1_000_000_000_000_000n; // 0.001 ETH
const abi = collectionAbi as Abi;

interface Sale {
  currency: Address;
  price: bigint;
  start: bigint;
  end: bigint;
  maxPerWallet: number;
  merkleRoot: Hex;
  payouts: { recipient: Address; bps: number }[];
}

/** The revert error name of a call simulated from `from` with `value`, or 'ok'. */
async function outcome(
  ctx: ChainContext,
  from: Address,
  address: Address,
  functionName: string,
  args: readonly unknown[],
  value = 0n,
  callAbi: Abi = abi,
): Promise<string> {
  try {
    await ctx.publicClient.simulateContract({ address, abi: callAbi, functionName, args, account: from, value } as never);
    return 'ok';
  } catch (err) {
    const e = err as { walk?: (fn: (e: unknown) => boolean) => unknown; message?: string };
    const found = e.walk?.(
      (x) => typeof x === 'object' && x !== null && typeof (x as { data?: { errorName?: string } }).data?.errorName === 'string',
    ) as { data?: { errorName?: string } } | undefined;
    return found?.data?.errorName ?? `unknown: ${e.message}`;
  }
}

describe('SaleFacet on anvil', () => {
  let ctx: ChainContext;
  let owner: Wallet, buyer: Wallet, other: Wallet;
  let r70: Address, r30: Address;
  let now: bigint;

  const balance = (address: Address) => ctx.publicClient.getBalance({ address });
  const sale = (over: Partial<Sale> = {}): Sale => ({
    currency: ZERO,
    price: PRICE,
    start: 0n,
    end: 0n,
    maxPerWallet: 0,
    merkleRoot: ZERO_ROOT,
    payouts: [
      { recipient: r70, bps: 7000 },
      { recipient: r30, bps: 3000 },
    ],
    ...over,
  });
  const newCollection = async (maxSupply = 1000n): Promise<Address> =>
    (await createCollection(ctx, defaultParams(owner.account.address, owner.account.address, { maxSupply }), owner)).address;
  /** Sends a payable call and waits for a successful receipt. */
  const pay = async (w: Wallet, address: Address, functionName: string, args: readonly unknown[], value: bigint, callAbi: Abi = abi) => {
    const hash = await w.writeContract({ address, abi: callAbi, functionName, args, value } as never);
    const receipt = await ctx.publicClient.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success', `${functionName} reverted`);
    return receipt;
  };
  const configure = async (c: Address, s: Sale) => write(ctx, owner, c, 'setSale', [s]);

  before(async () => {
    ctx = await setupChain();
    [owner, buyer, other] = ctx.wallets as [Wallet, Wallet, Wallet];
    // payout recipients that hold nothing yet: their balance change is the payment alone
    r70 = '0x7000000000000000000000000000000000000007';
    r30 = '0x3000000000000000000000000000000000000003';
    now = (await ctx.publicClient.getBlock()).timestamp;
  });
  after(async () => {
    await ctx?.stop();
  });

  test('every refusal reverts with its custom error', async () => {
    const c = await newCollection(5n);
    const b = buyer.account.address;
    const buy = (q: bigint, value: bigint, to: Address = b, proof: Hex[] = []) =>
      outcome(ctx, b, c, 'purchase', [to, q, proof, '0x'], value);

    assert.equal(await buy(1n, PRICE), 'SaleNotConfigured');
    // bad configurations, each naming its field; only the owner configures
    const bad: [Partial<Sale>, string][] = [
      [{ payouts: [{ recipient: r70, bps: 7000 }] }, 'InvalidSaleConfig'],
      [{ payouts: [] }, 'InvalidSaleConfig'],
      [{ payouts: [{ recipient: ZERO, bps: 10000 }] }, 'InvalidSaleConfig'],
      [{ start: now + 100n, end: now + 50n }, 'InvalidSaleConfig'],
      [{ currency: r70 }, 'InvalidSaleConfig'], // no code there
      [{ price: 1n << 128n }, 'InvalidSaleConfig'],
    ];
    for (const [over, name] of bad) {
      assert.equal(
        await outcome(ctx, owner.account.address, c, 'setSale', [sale(over)]),
        name,
        JSON.stringify(over, (_, v) => (typeof v === 'bigint' ? `${v}` : v)),
      );
    }
    assert.equal(await outcome(ctx, b, c, 'setSale', [sale()]), 'NotOwner');
    assert.equal(await outcome(ctx, b, c, 'setSalePaused', [true]), 'NotOwner');

    await configure(c, sale({ start: now + 10_000n }));
    assert.equal(await buy(1n, PRICE), 'SaleNotStarted');
    await configure(c, sale({ start: 1n, end: now - 1n }));
    assert.equal(await buy(1n, PRICE), 'SaleEnded');
    await configure(c, sale({ maxPerWallet: 2 }));
    assert.equal(await buy(1n, PRICE - 1n), 'WrongPayment');
    assert.equal(await buy(0n, 0n), 'InvalidQuantity');
    assert.equal(await buy(1n, PRICE, ZERO), 'ERC721InvalidReceiver');
    assert.equal(await buy(6n, PRICE * 6n), 'SoldOut');
    assert.equal(await buy(3n, PRICE * 3n), 'WalletLimitExceeded');
    await write(ctx, owner, c, 'setSalePaused', [true]);
    assert.equal(await buy(1n, PRICE), 'SalePaused');
    await write(ctx, owner, c, 'setSalePaused', [false]);
    await write(ctx, owner, c, 'setMintActive', [false]);
    assert.equal(await buy(1n, PRICE), 'SalePaused', 'the mint switch pauses the sale too');
    await write(ctx, owner, c, 'setMintActive', [true]);
    const list = [other.account.address, owner.account.address];
    await configure(c, sale({ merkleRoot: merkleRoot(list) }));
    assert.equal(await buy(1n, PRICE), 'NotAllowlisted');
    assert.equal(await buy(1n, PRICE, b, merkleProof(list, other.account.address)), 'NotAllowlisted', "another wallet's proof");
    assert.equal(await buy(1n, PRICE, other.account.address, merkleProof(list, other.account.address)), 'ok', 'a gift to a listed wallet');
    // a token sale refuses native value
    const usd = (await deployArtifact(ctx, owner, 'AtelierTestUSD')).address;
    await configure(c, sale({ currency: usd }));
    assert.equal(await buy(1n, 1n), 'WrongPayment');
    // after a refused purchase nothing was minted
    assert.equal(await read(ctx, c, 'totalSupply'), 0n);
  });

  test('native 70/30: each recipient gets exactly its share, the excess comes back, Purchase says what happened', async () => {
    const c = await newCollection();
    await configure(c, sale({ price: 333_333_333_333_333n }));
    const amount = 333_333_333_333_333n * 3n;
    const before = { b: await balance(buyer.account.address), r70: await balance(r70), r30: await balance(r30) };
    const data = toHex(JSON.stringify({ palette: 'dusk' }));
    const receipt = await pay(buyer, c, 'purchase', [other.account.address, 3n, [], data], amount + 12345n);
    const share70 = (amount * 7000n) / 10000n;
    assert.equal((await balance(r70)) - before.r70, share70);
    assert.equal((await balance(r30)) - before.r30, amount - share70, 'the last recipient takes the rounding remainder');
    const spent = before.b - (await balance(buyer.account.address));
    assert.equal(spent, amount + receipt.gasUsed * receipt.effectiveGasPrice, 'the 12345 wei excess was refunded');
    assert.equal(await balance(c), 0n, 'the collection holds nothing');
    const [p] = parseEventLogs({ abi: collectionAbi, logs: receipt.logs, eventName: 'Purchase' });
    assert.ok(p);
    assert.equal(p.args.buyer, buyer.account.address);
    assert.equal(p.args.to, other.account.address);
    assert.equal(p.args.firstTokenId, 1n);
    assert.equal(p.args.quantity, 3n);
    assert.equal(p.args.currency, ZERO);
    assert.equal(p.args.amount, amount);
    assert.equal(p.args.data, data);
    assert.equal(await read(ctx, c, 'ownerOf', [3n]), other.account.address);
    // the platform's own mintTo continues the same counter
    await write(ctx, owner, c, 'mintTo', [owner.account.address, 1n]);
    assert.equal(await read(ctx, c, 'ownerOf', [4n]), owner.account.address);
    const [cfg, paused, configured] = await read<[Sale, boolean, boolean]>(ctx, c, 'saleConfig');
    assert.equal(cfg.price, 333_333_333_333_333n);
    assert.deepEqual(cfg.payouts, [
      { recipient: r70, bps: 7000 },
      { recipient: r30, bps: 3000 },
    ]);
    assert.equal(paused, false);
    assert.equal(configured, true);
  });

  test('ERC-20 70/30: transferFrom straight from the buyer to each recipient, exact amounts', async () => {
    const c = await newCollection();
    const usd = (await deployArtifact(ctx, owner, 'AtelierTestUSD')).address;
    const usdAbi = loadArtifact('AtelierTestUSD').abi as Abi;
    await write(ctx, buyer, usd, 'mint', [buyer.account.address, 100_000_000n], usdAbi);
    await configure(c, sale({ currency: usd, price: 2_500_001n }));
    const amount = 2_500_001n * 2n;
    await write(ctx, buyer, usd, 'approve', [c, amount], usdAbi);
    const receipt = await write(ctx, buyer, c, 'purchase', [buyer.account.address, 2n, [], '0x']);
    const bal = (a: Address) => read<bigint>(ctx, usd, 'balanceOf', [a], usdAbi);
    assert.equal(await bal(r70), (amount * 7000n) / 10000n);
    assert.equal(await bal(r30), amount - (amount * 7000n) / 10000n);
    assert.equal(await bal(buyer.account.address), 100_000_000n - amount);
    assert.equal(await bal(c), 0n);
    const [p] = parseEventLogs({ abi: collectionAbi, logs: receipt.logs, eventName: 'Purchase' });
    assert.equal(p?.args.currency, usd);
    assert.equal(p?.args.amount, amount);
    // without allowance: refused, nothing minted
    assert.equal(await outcome(ctx, buyer.account.address, c, 'purchase', [buyer.account.address, 1n, [], '0x']), 'PayoutFailed');
  });

  test('per-wallet limit and allowlist hold for 20 purchases from 5 wallets mined in one block', async () => {
    const c = await newCollection();
    const wallets = ctx.wallets.slice(3, 8) as Wallet[];
    const listed = wallets.slice(0, 4).map((w) => w.account.address); // the fifth is not on the list
    await configure(c, sale({ maxPerWallet: 3, merkleRoot: merkleRoot(listed) }));
    await ctx.anvil.rpc('evm_setAutomine', [false]);
    const hashes: { wallet: Address; hash: Hex }[] = [];
    try {
      await Promise.all(
        wallets.map(async (w) => {
          const me = w.account.address;
          const nonce = await ctx.publicClient.getTransactionCount({ address: me, blockTag: 'pending' });
          const proof = listed.includes(me) ? merkleProof(listed, me) : merkleProof(listed, listed[0] as Address);
          const sends = [0, 1, 2, 3].map(async (i) => {
            const hash = await w.writeContract({
              address: c,
              abi,
              functionName: 'purchase',
              args: [me, 1n, proof, '0x'],
              value: PRICE,
              nonce: nonce + i,
              gas: 400_000n,
            } as never);
            hashes.push({ wallet: me, hash });
          });
          await Promise.all(sends);
        }),
      );
      await ctx.anvil.rpc('evm_mine', []);
    } finally {
      await ctx.anvil.rpc('evm_setAutomine', [true]);
    }
    assert.equal(hashes.length, 20);
    const receipts = await Promise.all(
      hashes.map(async (h) => ({ ...h, r: await ctx.publicClient.getTransactionReceipt({ hash: h.hash }) })),
    );
    assert.equal(new Set(receipts.map((x) => x.r.blockNumber)).size, 1, 'all in one block');
    for (const w of wallets) {
      const mine = receipts.filter((x) => x.wallet === w.account.address);
      const ok = mine.filter((x) => x.r.status === 'success').length;
      assert.equal(ok, listed.includes(w.account.address) ? 3 : 0, w.account.address);
      assert.equal(await read(ctx, c, 'balanceOf', [w.account.address]), BigInt(ok));
      assert.equal(await read(ctx, c, 'saleMinted', [w.account.address]), BigInt(ok));
    }
    assert.equal(await read(ctx, c, 'totalSupply'), 12n);
  });

  test('a reentrant payout recipient or buyer cannot mint more or keep funds', async () => {
    const c = await newCollection();
    const recvAbi = loadArtifact('TestReentrantReceiver').abi as Abi;
    // recipient that re-enters on payment and swallows the failure: the purchase completes, one token
    const swallow = (await deployArtifact(ctx, owner, 'TestReentrantReceiver', [c, 0n])).address;
    await configure(c, sale({ payouts: [{ recipient: swallow, bps: 10000 }] }));
    await pay(buyer, c, 'purchase', [buyer.account.address, 1n, [], '0x'], PRICE);
    assert.equal(await read(ctx, c, 'totalSupply'), 1n, 'the re-entry minted nothing');
    assert.equal(await read(ctx, swallow, 'reentered', [], recvAbi), false);
    assert.equal(await balance(swallow), PRICE);
    // recipient that bubbles the re-entry failure up: the whole purchase reverts
    const bubble = (await deployArtifact(ctx, owner, 'TestReentrantReceiver', [c, 1n])).address;
    await configure(c, sale({ payouts: [{ recipient: bubble, bps: 10000 }] }));
    assert.equal(await outcome(ctx, buyer.account.address, c, 'purchase', [buyer.account.address, 1n, [], '0x'], PRICE), 'PayoutFailed');
    // a buyer contract whose refund hook re-enters: gets its refund, one token, no more
    await configure(c, sale());
    const buyerContract = (await deployArtifact(ctx, owner, 'TestReentrantReceiver', [c, 0n])).address;
    const before = await read<bigint>(ctx, c, 'totalSupply');
    await pay(buyer, buyerContract, 'buy', [2n, PRICE * 5n], PRICE * 5n, recvAbi);
    assert.equal((await read<bigint>(ctx, c, 'totalSupply')) - before, 2n);
    assert.equal(await read(ctx, buyerContract, 'reentered', [], recvAbi), false);
    assert.equal(await balance(buyerContract), PRICE * 3n, 'the excess came back to the buyer contract');
    assert.equal(await balance(c), 0n);
  });

  test('fee-on-transfer and misbehaving ERC-20s cannot buy for less or mint more', async () => {
    const c = await newCollection();
    const fee = (await deployArtifact(ctx, owner, 'TestFeeToken')).address;
    const feeAbi = loadArtifact('TestFeeToken').abi as Abi;
    await write(ctx, buyer, fee, 'mint', [buyer.account.address, 10n ** 24n], feeAbi);
    await write(ctx, buyer, fee, 'approve', [c, 10n ** 24n], feeAbi);
    await configure(c, sale({ currency: fee, price: 10n ** 18n }));
    assert.equal(await outcome(ctx, buyer.account.address, c, 'purchase', [buyer.account.address, 1n, [], '0x']), 'WrongPayment');

    const badAbi = loadArtifact('TestBadToken').abi as Abi;
    const expected: Record<number, string> = { 1: 'PayoutFailed', 2: 'PayoutFailed', 3: 'WrongPayment', 4: 'PayoutFailed' };
    for (const mode of [1, 2, 3, 4]) {
      const bad = (await deployArtifact(ctx, owner, 'TestBadToken', [BigInt(mode)])).address;
      await write(ctx, owner, bad, 'setTarget', [c], badAbi);
      await write(ctx, buyer, bad, 'mint', [buyer.account.address, 10n ** 24n], badAbi);
      await write(ctx, buyer, bad, 'approve', [c, 10n ** 24n], badAbi);
      await configure(c, sale({ currency: bad, price: 10n ** 18n }));
      assert.equal(
        await outcome(ctx, buyer.account.address, c, 'purchase', [buyer.account.address, 1n, [], '0x']),
        expected[mode],
        `mode ${mode}`,
      );
      // sent for real: reverted, nothing minted, nobody paid
      const hash = await buyer.writeContract({
        address: c,
        abi,
        functionName: 'purchase',
        args: [buyer.account.address, 1n, [], '0x'],
        gas: 600_000n,
      } as never);
      assert.equal((await ctx.publicClient.waitForTransactionReceipt({ hash })).status, 'reverted', `mode ${mode}`);
      assert.equal(await read(ctx, bad, 'balanceOf', [buyer.account.address], badAbi), 10n ** 24n);
    }
    assert.equal(await read(ctx, c, 'totalSupply'), 0n);
  });
});

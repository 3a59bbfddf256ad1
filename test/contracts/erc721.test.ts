/**
 * ERC-721 behaviour of a collection (through its proxy): owners, balances, approvals, operators,
 * safe transfers, runs of batch-minted tokens, URIs.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { parseEventLogs, zeroAddress, type Address, type Abi } from 'viem';
import { collectionAbi } from '../../contracts/abi/index.ts';
import { loadArtifact } from '../../src/chain/artifacts.ts';
import {
  setupChain,
  defaultParams,
  createCollection,
  deployArtifact,
  write,
  read,
  revertName,
  METADATA_BASE,
  SAMPLE_UUID,
  type ChainContext,
  type Wallet,
} from './fixture.ts';

describe('ERC721Facet through a collection', () => {
  let ctx: ChainContext;
  let c: Address;
  let w: Wallet[];
  let owner: Wallet, minter: Wallet, alice: Wallet, bob: Wallet, carol: Wallet, dave: Wallet, op: Wallet;
  /** model of token owners: index = token id */
  const model = new Map<bigint, Address>();

  const ownerOf = (id: bigint) => read<Address>(ctx, c, 'ownerOf', [id]);
  const balanceOf = (a: Address) => read<bigint>(ctx, c, 'balanceOf', [a]);

  async function checkModel(): Promise<void> {
    const total = await read<bigint>(ctx, c, 'totalSupply');
    assert.equal(total, BigInt(model.size));
    const counts = new Map<Address, bigint>();
    for (let id = 1n; id <= total; id++) {
      const expected = model.get(id) as Address;
      assert.equal(await ownerOf(id), expected, `owner of token ${id}`);
      counts.set(expected, (counts.get(expected) ?? 0n) + 1n);
    }
    for (const [a, n] of counts) assert.equal(await balanceOf(a), n, `balance of ${a}`);
  }

  async function transfer(by: Wallet, from: Address, to: Address, id: bigint, fn = 'transferFrom', extra: unknown[] = []) {
    const r = await write(ctx, by, c, fn, [from, to, id, ...extra]);
    model.set(id, to);
    return r;
  }

  before(async () => {
    ctx = await setupChain();
    w = ctx.wallets;
    [owner, minter, alice, bob, carol, dave, op] = w as [Wallet, Wallet, Wallet, Wallet, Wallet, Wallet, Wallet];
    ({ address: c } = await createCollection(ctx, defaultParams(owner.account.address, minter.account.address)));
  });
  after(async () => {
    await ctx?.stop();
  });

  test('mints sequential ids from 1, in runs; owners and balances follow', async () => {
    const r1 = await write(ctx, minter, c, 'mintTo', [alice.account.address, 3n]);
    const t1 = parseEventLogs({ abi: collectionAbi, logs: r1.logs, eventName: 'Transfer' });
    assert.deepEqual(
      t1.map((l) => [l.args.from, l.args.to, (l.args as { tokenId: bigint }).tokenId]),
      [1n, 2n, 3n].map((id) => [zeroAddress, alice.account.address, id]),
    );
    for (const id of [1n, 2n, 3n]) model.set(id, alice.account.address);
    // 25 tokens: runs 4..13, 14..23, 24..28
    const r2 = await write(ctx, owner, c, 'mintTo', [bob.account.address, 25n]);
    const t2 = parseEventLogs({ abi: collectionAbi, logs: r2.logs, eventName: 'Transfer' });
    assert.equal(t2.length, 25);
    assert.equal((t2[0]?.args as { tokenId: bigint }).tokenId, 4n);
    assert.equal((t2[24]?.args as { tokenId: bigint }).tokenId, 28n);
    for (let id = 4n; id <= 28n; id++) model.set(id, bob.account.address);
    await checkModel();
  });

  test('nonexistent tokens and the zero owner are refused', async () => {
    for (const id of [0n, 29n, 1000n]) {
      assert.equal(await revertName(ctx, alice, c, 'ownerOf', [id]), 'ERC721NonexistentToken');
      assert.equal(await revertName(ctx, alice, c, 'tokenURI', [id]), 'ERC721NonexistentToken');
      assert.equal(await revertName(ctx, alice, c, 'getApproved', [id]), 'ERC721NonexistentToken');
    }
    assert.equal(await revertName(ctx, alice, c, 'balanceOf', [zeroAddress]), 'ERC721InvalidOwner');
  });

  test('transfers of the first, a middle and the last token of runs keep every owner right', async () => {
    const b = bob.account.address;
    await transfer(bob, b, alice.account.address, 4n); // first of a run
    await transfer(bob, b, carol.account.address, 8n); // middle
    await transfer(bob, b, dave.account.address, 13n); // last of a full run
    await transfer(bob, b, carol.account.address, 28n); // last minted token
    await transfer(bob, b, alice.account.address, 23n);
    await transfer(bob, b, alice.account.address, 24n);
    await checkModel();
    // back and forth
    await transfer(carol, carol.account.address, b, 8n);
    await transfer(alice, alice.account.address, dave.account.address, 1n);
    await checkModel();
  });

  test('a random walk of transfers matches the model', async () => {
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const people = [alice, bob, carol, dave];
    for (let i = 0; i < 24; i++) {
      const id = BigInt(1 + rand(model.size));
      const from = model.get(id) as Address;
      const fromWallet = people.find((p) => p.account.address === from) as Wallet;
      const to = people[rand(people.length)]?.account.address as Address;
      await transfer(fromWallet, from, to, id);
    }
    await checkModel();
  });

  test('refuses a wrong from, the zero receiver and strangers', async () => {
    const id = 15n;
    const holder = model.get(id) as Address;
    const holderWallet = [alice, bob, carol, dave].find((p) => p.account.address === holder) as Wallet;
    const stranger = [alice, bob, carol, dave].find((p) => p.account.address !== holder) as Wallet;
    assert.equal(await revertName(ctx, holderWallet, c, 'transferFrom', [stranger.account.address, holder, id]), 'ERC721IncorrectOwner');
    assert.equal(await revertName(ctx, holderWallet, c, 'transferFrom', [holder, zeroAddress, id]), 'ERC721InvalidReceiver');
    assert.equal(await revertName(ctx, stranger, c, 'transferFrom', [holder, stranger.account.address, id]), 'ERC721InsufficientApproval');
    assert.equal(await revertName(ctx, holderWallet, c, 'transferFrom', [holder, stranger.account.address, 99n]), 'ERC721NonexistentToken');
  });

  test('approve: the approved address may transfer once; the approval is cleared by the transfer', async () => {
    // a token inside a run that never had its own record
    const id = 17n;
    const holder = model.get(id) as Address;
    const holderWallet = [alice, bob, carol, dave].find((p) => p.account.address === holder) as Wallet;
    assert.equal(await read(ctx, c, 'getApproved', [id]), zeroAddress);
    assert.equal(await revertName(ctx, op, c, 'approve', [op.account.address, id]), 'ERC721InvalidApprover');
    const r = await write(ctx, holderWallet, c, 'approve', [op.account.address, id]);
    const ev = parseEventLogs({ abi: collectionAbi, logs: r.logs, eventName: 'Approval' })[0];
    assert.deepEqual(ev?.args, { owner: holder, approved: op.account.address, tokenId: id });
    assert.equal(await read(ctx, c, 'getApproved', [id]), op.account.address);
    await checkModel(); // approving initialised the token's record without changing any owner
    await transfer(op, holder, op.account.address, id);
    assert.equal(await read(ctx, c, 'getApproved', [id]), zeroAddress);
    assert.equal(await revertName(ctx, holderWallet, c, 'transferFrom', [op.account.address, holder, id]), 'ERC721InsufficientApproval');
    await transfer(op, op.account.address, holder, id);
    await checkModel();
  });

  test('operators: setApprovalForAll lets an operator transfer and approve, until revoked', async () => {
    const b = bob.account.address;
    const id = [...model.entries()].find(([, a]) => a === b)?.[0] as bigint;
    assert.ok(id, 'bob holds a token');
    assert.equal(await revertName(ctx, bob, c, 'setApprovalForAll', [zeroAddress, true]), 'ERC721InvalidOperator');
    const r = await write(ctx, bob, c, 'setApprovalForAll', [op.account.address, true]);
    const ev = parseEventLogs({ abi: collectionAbi, logs: r.logs, eventName: 'ApprovalForAll' })[0];
    assert.deepEqual(ev?.args, { owner: b, operator: op.account.address, approved: true });
    assert.equal(await read(ctx, c, 'isApprovedForAll', [b, op.account.address]), true);
    await write(ctx, op, c, 'approve', [carol.account.address, id]); // operator approves
    assert.equal(await read(ctx, c, 'getApproved', [id]), carol.account.address);
    await transfer(op, b, alice.account.address, id);
    assert.equal(await read(ctx, c, 'getApproved', [id]), zeroAddress);
    await write(ctx, bob, c, 'setApprovalForAll', [op.account.address, false]);
    assert.equal(await read(ctx, c, 'isApprovedForAll', [b, op.account.address]), false);
    const other = [...model.entries()].find(([, a]) => a === b)?.[0] as bigint;
    assert.equal(await revertName(ctx, op, c, 'transferFrom', [b, op.account.address, other]), 'ERC721InsufficientApproval');
    await checkModel();
  });

  test('safe transfers: to an EOA, to a receiver contract (with data), refused by rejecting contracts', async () => {
    const a = alice.account.address;
    const tokens = [...model.entries()].filter(([, x]) => x === a).map(([id]) => id);
    assert.ok(tokens.length >= 3);
    const [t1, t2, t3] = tokens as [bigint, bigint, bigint];
    await transfer(alice, a, carol.account.address, t1, 'safeTransferFrom');
    const { address: receiver } = await deployArtifact(ctx, owner, 'TestERC721Receiver');
    const receiverAbi = loadArtifact('TestERC721Receiver').abi as Abi;
    const r = await transfer(alice, a, receiver, t2, 'safeTransferFrom', ['0xc0ffee']);
    const got = parseEventLogs({ abi: receiverAbi, logs: r.logs, eventName: 'Received' })[0] as unknown as {
      args: { operator: Address; from: Address; tokenId: bigint; data: string };
    };
    assert.deepEqual(got.args, { operator: a, from: a, tokenId: t2, data: '0xc0ffee' });
    await transfer(alice, a, receiver, t3, 'safeTransferFrom'); // 3-argument form
    assert.equal(await read(ctx, receiver, 'received', [], receiverAbi), 2n);

    const t4 = tokens[3] ?? t1;
    const holder = model.get(t4) as Address;
    const holderWallet = [alice, bob, carol, dave].find((p) => p.account.address === holder) as Wallet;
    for (const mode of [0n, 1n, 2n]) {
      const { address: rejecting } = await deployArtifact(ctx, owner, 'TestRejectingReceiver', [mode]);
      const name = await revertName(ctx, holderWallet, c, 'safeTransferFrom', [holder, rejecting, t4]);
      assert.equal(name, mode === 0n ? 'Error(TestRejectingReceiver: no thanks)' : 'ERC721InvalidReceiver', `mode ${mode}`);
    }
    const { address: nonReceiver } = await deployArtifact(ctx, owner, 'TestNonReceiver');
    assert.equal(await revertName(ctx, holderWallet, c, 'safeTransferFrom', [holder, nonReceiver, t4, '0x']), 'ERC721InvalidReceiver');
    // plain transferFrom to a contract does not call it
    await transfer(holderWallet, holder, nonReceiver, t4);
    await checkModel();
  });

  test('name, symbol, tokenURI = baseURI + id; setBaseURI changes it', async () => {
    assert.equal(await read(ctx, c, 'name'), 'Atelier Dreamscapes');
    assert.equal(await read(ctx, c, 'symbol'), 'DREAM');
    assert.equal(await read(ctx, c, 'tokenURI', [7n]), `${METADATA_BASE}/collections/${SAMPLE_UUID}/tokens/7`);
    assert.equal(await read(ctx, c, 'contractURI'), `${METADATA_BASE}/collections/${SAMPLE_UUID}/metadata.json`);
    await write(ctx, owner, c, 'setBaseURI', ['ipfs://bafy/']);
    assert.equal(await read(ctx, c, 'tokenURI', [12n]), 'ipfs://bafy/12');
    await write(ctx, owner, c, 'setBaseURI', ['']);
    assert.equal(await read(ctx, c, 'tokenURI', [12n]), '');
  });

  test('custom URIs (not the platform pattern) and long names are kept verbatim', async () => {
    const long = 'A'.repeat(200);
    const { address: x } = await createCollection(
      ctx,
      defaultParams(owner.account.address, minter.account.address, {
        name: long,
        symbol: 'S'.repeat(40),
        baseURI: 'ar://abc/tokens/',
        contractURI: 'ar://xyz/metadata.json',
      }),
    );
    await write(ctx, minter, x, 'mintTo', [alice.account.address, 1n]);
    assert.equal(await read(ctx, x, 'name'), long);
    assert.equal(await read(ctx, x, 'symbol'), 'S'.repeat(40));
    assert.equal(await read(ctx, x, 'tokenURI', [1n]), 'ar://abc/tokens/1');
    assert.equal(await read(ctx, x, 'contractURI'), 'ar://xyz/metadata.json');
    const { address: y } = await createCollection(
      ctx,
      defaultParams(owner.account.address, minter.account.address, { baseURI: '', contractURI: '' }),
    );
    await write(ctx, minter, y, 'mintTo', [alice.account.address, 1n]);
    assert.equal(await read(ctx, y, 'tokenURI', [1n]), '');
    assert.equal(await read(ctx, y, 'contractURI'), '');
  });
});

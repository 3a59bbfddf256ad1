/**
 * Ownership routes (admin + backend), the §4.4 indexer package routes and socket.io rooms, over a
 * real backend/admin and a real anvil.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { io as connect, type Socket } from 'socket.io-client';
import type { Address } from 'viem';
import { IndexerEvents } from '../../src/indexer/events.ts';
import { rows } from '../../src/db/client.ts';
import type { Indexer } from '../../src/indexer/indexer.ts';
import { createIndexer } from '../../src/indexer/service.ts';
import { asService, call, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { setupChain, defaultParams, createCollection, write, type ChainContext, type Wallet } from '../contracts/fixture.ts';

const ZERO = '0x0000000000000000000000000000000000000000';

describe('indexer API and realtime', () => {
  let ctx: ChainContext;
  let p: TestPlatform;
  let ix: Indexer;
  let owner: Wallet, alice: Wallet, bob: Wallet;
  let c1: Address, c2: Address;
  let collectionId: string;
  let deck1: string;
  const events = new IndexerEvents();
  const sockets: Socket[] = [];

  before(async () => {
    ctx = await setupChain();
    [owner, alice, bob] = [ctx.wallets[0]!, ctx.wallets[1]!, ctx.wallets[2]!];
    p = await startTestPlatform(
      {},
      {
        indexer: {
          chainId: ctx.anvil.chainId,
          rpcUrl: ctx.anvil.rpcUrl,
          contracts: ctx.deployment.contracts,
          events,
          liveStatus: () => ix.liveStatus(),
        },
      },
    );
    ix = createIndexer({
      database: p.database,
      chainId: ctx.anvil.chainId,
      rpcUrl: ctx.anvil.rpcUrl,
      factoryAddress: ctx.deployment.contracts.DiamondFactory,
      startBlock: ctx.deployment.blockNumber,
      confirmations: 0,
      events,
    });
    ({ address: c1 } = await createCollection(ctx, defaultParams(owner.account.address, owner.account.address)));
    ({ address: c2 } = await createCollection(
      ctx,
      defaultParams(owner.account.address, owner.account.address, { name: 'Second', symbol: 'TWO' }),
    ));
    const [col] = await rows<{ id: string }>(
      p.database.db,
      sql`INSERT INTO collections (title, data, contract_address, chain_id) VALUES ('Indexed', '{}'::jsonb, ${c1}, ${ctx.anvil.chainId}) RETURNING id`,
    );
    collectionId = col!.id;
    const [d] = await rows<{ id: string }>(
      p.database.db,
      sql`INSERT INTO decks (collection_id, token_id, mint_status, mint_recipient) VALUES (${collectionId}, 1, 'minted', ${alice.account.address}) RETURNING id`,
    );
    deck1 = d!.id;
    await write(ctx, owner, c1, 'mintTo', [alice.account.address, 3n]);
    await write(ctx, alice, c1, 'transferFrom', [alice.account.address, bob.account.address, 1n]);
    await write(ctx, owner, c2, 'mintTo', [bob.account.address, 2n]);
    await ix.syncOnce();
  });

  after(async () => {
    for (const s of sockets) s.disconnect();
    await ix?.stop();
    await p?.close();
    await ctx?.stop();
  });

  const admin = (path: string) => call(`${p.adminUrl}${path}`, { headers: asService() });
  const backend = (path: string) => call(`${p.backendUrl}${path}`, { headers: asService() });

  test('admin ownership: tokens, transfers newest first, indexer status', async () => {
    const own = await admin(`/api/nft/ownership?collectionId=${collectionId}`);
    assert.equal(own.status, 200);
    assert.equal(own.body.success, true);
    assert.equal(own.body.tokens.length, 1);
    assert.equal(own.body.tokens[0].id, deck1);
    assert.equal(own.body.tokens[0].current_owner, bob.account.address);
    assert.equal(own.body.tokens[0].mint_recipient, alice.account.address);
    assert.ok(own.body.tokens[0].last_transfer_at);

    const tr = await admin(`/api/nft/ownership/transfers?deckId=${deck1}`);
    assert.equal(tr.status, 200);
    assert.equal(tr.body.transfers.length, 2);
    const [newest, oldest] = tr.body.transfers;
    assert.ok(BigInt(newest.block_number) > BigInt(oldest.block_number));
    assert.equal(oldest.from_address, ZERO);
    assert.equal(newest.to_address, bob.account.address);
    assert.equal(typeof newest.block_number, 'string');
    assert.equal(typeof newest.log_index, 'number');

    const st = await admin('/api/nft/ownership/indexer-status');
    assert.equal(st.status, 200);
    assert.equal(st.body.state.id, 'singleton');
    assert.equal(st.body.state.status, 'idle');
    assert.equal(st.body.state.chain_id, ctx.anvil.chainId);
    assert.equal(typeof st.body.state.last_indexed_block, 'string');
    assert.ok(Number(st.body.state.last_indexed_block) > 0);
  });

  test('ownership routes: 400 naming the field, 404 for missing, auth required', async () => {
    const bad = await admin('/api/nft/ownership?collectionId=nope');
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /collectionId/);
    const missing = await admin('/api/nft/ownership?collectionId=6f1c2a9e-4b7d-4e21-9a3c-1f2e3d4c5b6a');
    assert.equal(missing.status, 404);
    const noDeck = await admin('/api/nft/ownership/transfers?deckId=6f1c2a9e-4b7d-4e21-9a3c-1f2e3d4c5b6a');
    assert.equal(noDeck.status, 404);
    const noAuth = await call(`${p.backendUrl}/nft/indexer/status`);
    assert.equal(noAuth.status, 401);
  });

  test('§4.4: apps, owner tokens, app tokens, mints', async () => {
    const apps = await backend('/api/apps');
    assert.equal(apps.status, 200);
    assert.deepEqual(
      apps.body.data.map((a: { address: string }) => a.address),
      [c2, c1],
    );
    const a1 = await backend(`/api/apps/${c1}`);
    assert.equal(a1.body.data.totalMinted, 3);
    assert.equal(a1.body.data.owner, owner.account.address);
    assert.equal(a1.body.data.collection_id, collectionId);
    assert.equal((await backend(`/api/apps/0x${'1'.repeat(40)}`)).status, 404);
    assert.equal((await backend('/api/apps/not-an-address')).status, 400);

    const ot = await backend('/api/owner-tokens');
    assert.deepEqual(
      ot.body.data.map((t: { id: string }) => t.id),
      [c2, c1],
    );
    const one = await backend(`/api/owner-tokens/${c1}`);
    assert.equal(one.body.data.owner, owner.account.address);
    assert.equal(one.body.data.transfers[0].from_address, ZERO);
    assert.equal((await backend(`/api/owner-tokens/0x${'2'.repeat(40)}`)).status, 404);

    const toks = await backend(`/api/app-tokens/${c1}`);
    assert.deepEqual(
      toks.body.data.map((t: { token_id: string; owner: string }) => [t.token_id, t.owner]),
      [
        ['1', bob.account.address],
        ['2', alice.account.address],
        ['3', alice.account.address],
      ],
    );
    assert.equal((await backend('/api/app-tokens')).body.data.length, 5);

    const mints = await backend('/api/app-token-mints');
    assert.deepEqual(
      mints.body.data.map((m: { app_address: string; start_token_id: string; quantity: number }) => [
        m.app_address,
        m.start_token_id,
        m.quantity,
      ]),
      [
        [c2, '1', 2],
        [c1, '1', 3],
      ],
    );
    assert.equal((await backend(`/api/app-token-mints/${c2}`)).body.data.length, 1);
  });

  test('§4.4 read and contract-info: result as string; 400, 404; a revert or a wrong address is a 400, not a 500', async () => {
    const ok = await backend(`/api/read/Collection/ownerOf?address=${c1}&args=${encodeURIComponent('["1"]')}`);
    assert.equal(ok.status, 200);
    assert.equal(ok.body.data.result, bob.account.address);
    const supply = await backend(`/api/read/Collection/totalSupply?address=${c1}`);
    assert.equal(supply.body.data.result, '3');
    const noAddress = await backend('/api/read/Collection/totalSupply');
    assert.equal(noAddress.status, 400);
    assert.match(noAddress.body.error, /address/);
    const badArgs = await backend(`/api/read/Collection/ownerOf?address=${c1}&args=oops`);
    assert.equal(badArgs.status, 400);
    assert.match(badArgs.body.error, /args/);
    assert.equal((await backend(`/api/read/Nope/totalSupply?address=${c1}`)).status, 404);
    assert.equal((await backend(`/api/read/Collection/noSuchFunction?address=${c1}`)).status, 404);
    const failed = await backend(`/api/read/Collection/ownerOf?address=${c1}&args=${encodeURIComponent('["999"]')}`);
    assert.equal(failed.status, 400);
    assert.match(
      failed.body.error,
      /^read reverted: Collection\.ownerOf at 0x[0-9a-fA-F]{40} on chain \d+ reverted \(ERC721NonexistentToken\)/,
    );
    // An address with no code (an account) returns no data; a contract of another kind reverts.
    const account = await backend(`/api/read/Collection/totalSupply?address=${bob.account.address}`);
    assert.equal(account.status, 400, JSON.stringify(account.body));
    assert.match(account.body.error, /^query\.address: 0x[0-9a-fA-F]{40} returned no data for totalSupply\(\)/);
    const factory = await backend(`/api/read/Collection/totalSupply?address=${ctx.deployment.contracts.DiamondFactory}`);
    assert.equal(factory.status, 400, JSON.stringify(factory.body));
    assert.match(factory.body.error, /^read reverted: Collection\.totalSupply at 0x[0-9a-fA-F]{40}/);

    const info = await backend('/api/contract-info/DiamondFactory');
    assert.equal(info.status, 200);
    assert.equal(info.body.data.address, ctx.deployment.contracts.DiamondFactory);
    assert.ok(Array.isArray(info.body.data.abi));
    assert.equal((await backend('/api/contract-info/Nope')).status, 404);
  });

  test('socket.io: a client in a room gets that room’s events and no other room’s', async () => {
    const open = async () => {
      const s = connect(p.backendUrl, { transports: ['websocket'], forceNew: true });
      sockets.push(s);
      await new Promise<void>((resolve, reject) => {
        s.once('connect', () => resolve());
        s.once('connect_error', reject);
      });
      return s;
    };
    const join = (s: Socket, room: string, event = 'subscribe') =>
      new Promise<{ ok: boolean }>((resolve) => s.emit(event, { room }, (r: { ok: boolean }) => resolve(r)));
    const record = (s: Socket) => {
      const got: { name: string; payload: any }[] = [];
      s.onAny((name: string, payload: unknown) => got.push({ name, payload }));
      return got;
    };

    const s1 = await open();
    const s2 = await open();
    const got1 = record(s1);
    const got2 = record(s2);
    assert.deepEqual(await join(s1, `app:${c1}`), { ok: true, room: `app:${c1.toLowerCase()}` });
    assert.equal((await join(s2, `app:${c2.toLowerCase()}`)).ok, true);
    assert.equal((await join(s2, 'lobby')).ok, false);

    await write(ctx, owner, c1, 'mintTo', [alice.account.address, 2n]);
    await write(ctx, alice, c1, 'transferFrom', [alice.account.address, bob.account.address, 4n]);
    await write(ctx, owner, c1, 'transferOwnership', [bob.account.address]);
    const { address: c3 } = await createCollection(
      ctx,
      defaultParams(owner.account.address, owner.account.address, { name: 'Third', symbol: 'THR' }),
    );
    await ix.syncOnce();
    await ix.syncOnce(); // nothing new: nothing emitted twice

    const until = async (cond: () => boolean) => {
      for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
    };
    await until(() => got1.some((e) => e.name === 'emprops:ownerToken:transferred') && got2.some((e) => e.name === 'emprops:app:created'));

    const byName = (got: typeof got1, n: string) => got.filter((e) => e.name === n).map((e) => e.payload);
    assert.deepEqual(byName(got1, 'emprops:appToken:minted'), [
      {
        appAddress: c1,
        to: alice.account.address,
        startTokenId: '4',
        quantity: 2,
        txHash: byName(got1, 'emprops:appToken:minted')[0]?.txHash,
      },
    ]);
    const moved = byName(got1, 'emprops:appToken:transferred');
    assert.equal(moved.length, 1);
    assert.deepEqual(
      { ...moved[0], txHash: undefined },
      { tokenId: '4', appAddress: c1, from: alice.account.address, to: bob.account.address, txHash: undefined },
    );
    assert.deepEqual(byName(got1, 'emprops:ownerToken:transferred'), [
      { tokenId: c1, from: owner.account.address, to: bob.account.address, contractAddress: c1 },
    ]);
    // app:created goes to everyone; the new collection's own events go to its room (nobody's).
    for (const got of [got1, got2]) {
      const created = byName(got, 'emprops:app:created');
      assert.equal(created.length, 1);
      assert.equal(created[0].appAddress, c3);
      assert.equal(created[0].ownerTokenId, c3);
    }
    assert.equal(byName(got1, 'emprops:ownerToken:minted').length, 0);
    assert.equal(byName(got1, 'emprops:contract:upgraded').length, 0);
    // Nothing of c1 reached the c2 room.
    assert.deepEqual(
      got2.filter((e) => e.name !== 'emprops:app:created'),
      [],
    );

    // Leave the room: no more events.
    assert.equal((await join(s1, `app:${c1}`, 'unsubscribe')).ok, true);
    const count = got1.length;
    await write(ctx, owner, c2, 'mintTo', [bob.account.address, 1n]);
    await write(ctx, owner, c1, 'mintTo', [bob.account.address, 1n]);
    await ix.syncOnce();
    await until(() => got2.some((e) => e.name === 'emprops:appToken:minted'));
    assert.equal(byName(got2, 'emprops:appToken:minted').length, 1);
    assert.equal(byName(got2, 'emprops:appToken:minted')[0].appAddress, c2);
    assert.equal(got1.length, count);
  });
});

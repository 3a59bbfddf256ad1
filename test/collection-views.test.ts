/**
 * The console's views of collections (docs/collections.md "Console views") on a whole
 * platform (real anvil with the platform contracts, both apps, the ownership indexer): two users
 * and the operator list collections, deploy by id alone, read the overview against the contract,
 * mint tokens with traits, filter them, read rarity, one token and the activity, and set a cover.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { getAddress } from 'viem';
import { startIndexer, type RunningIndexer } from '../src/indexer/service.ts';
import { bearer, userToken } from './helpers/content.ts';
import { startWalkPlatform, type WalkPlatform } from './helpers/inject-platform.ts';
import { SERVICE_KEY } from './helpers/kit.ts';
import { walletFor } from './helpers/kit.ts';
import { collectionAbi } from '../contracts/abi/index.ts';

const RECIPIENT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const OTHER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const PNG_1x1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const operator = { 'x-api-key': SERVICE_KEY };

/** A collection whose one trait (Color) takes the value the mint's variables give. */
const traitData = {
  version: 'v2',
  variables: [
    {
      name: 'color',
      is_feature: true,
      value: [
        { value: 'Red', weight: 1 },
        { value: 'Blue', weight: 1 },
      ],
    },
  ],
  steps: [{ id: 1, nodeName: 'image', nodePayload: { intent: 'a $color fox' } }],
};

let p: WalkPlatform;
let indexer: RunningIndexer | undefined;
let alice: Record<string, string>;
let bob: Record<string, string>;

async function req(headers: Record<string, string>, method: string, url: string, body?: unknown) {
  const res = await p.backend.inject({
    method: method as 'GET',
    url,
    headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  });
  return { status: res.statusCode, body: res.json() as any };
}

const waitFor = async <T>(what: string, probe: () => Promise<T | undefined>, ms = 60_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
};

before(async () => {
  p = await startWalkPlatform();
  alice = bearer(await userToken('views-alice'));
  bob = bearer(await userToken('views-bob'));
  const factory = (await p.chain.deploymentStatus(31337)).factoryAddress;
  indexer = await startIndexer({
    config: p.config,
    database: p.database,
    target: { chainId: 31337, rpcUrl: p.anvil.rpcUrl, factoryAddress: factory, startBlock: 0 },
    options: { pollIntervalMs: 200 },
  });
});
after(async () => {
  await indexer?.stop();
  await p?.close();
});

describe('collections list', () => {
  test('a user lists only their own collections; the operator lists all; cursor pages; q filters', async () => {
    for (const title of ['Alice One', 'Alice Two', 'Alice Three'])
      assert.equal((await req(alice, 'POST', '/nft/collections', { title, data: { version: 'v2' } })).status, 201);
    assert.equal((await req(bob, 'POST', '/nft/collections', { title: 'Bob Only', data: { version: 'v2' } })).status, 201);

    const mine = await req(alice, 'GET', '/nft/collections?limit=100');
    assert.equal(mine.status, 200, JSON.stringify(mine.body));
    const titles = mine.body.data.collections.map((c: { title: string }) => c.title);
    assert.ok(titles.includes('Alice One') && !titles.includes('Bob Only'), titles.join());
    assert.deepEqual(titles.slice(0, 3), ['Alice Three', 'Alice Two', 'Alice One'], 'newest first');

    const first = await req(alice, 'GET', '/nft/collections?limit=2');
    assert.equal(first.body.data.collections.length, 2);
    assert.ok(first.body.data.next_cursor);
    const second = await req(alice, 'GET', `/nft/collections?limit=2&cursor=${first.body.data.next_cursor}`);
    const paged = [...first.body.data.collections, ...second.body.data.collections].map((c: { id: string }) => c.id);
    assert.equal(new Set(paged).size, paged.length, 'no collection on two pages');
    assert.ok(second.body.data.collections.some((c: { title: string }) => c.title === 'Alice One'));

    const all = await req(operator, 'GET', '/nft/collections?limit=100');
    const allTitles = all.body.data.collections.map((c: { title: string }) => c.title);
    assert.ok(allTitles.includes('Bob Only') && allTitles.includes('Alice One'));

    const search = await req(alice, 'GET', '/nft/collections?q=two');
    assert.deepEqual(
      search.body.data.collections.map((c: { title: string }) => c.title),
      ['Alice Two'],
    );
  });

  test('bad query values are 400 naming the field', async () => {
    const bad = await req(alice, 'GET', '/nft/collections?cursor=not-a-cursor');
    assert.equal(bad.status, 400);
    assert.match(JSON.stringify(bad.body), /cursor/);
    // Cursors that decode but were never ours: a 400, never a failed cast in the database.
    const forged = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    for (const cursor of [forged({ c: '1', i: 'x' }), forged({ c: '2026-01-01T00:00:00.000000Z', i: "x' or 1=1" })]) {
      const r = await req(alice, 'GET', `/nft/collections?cursor=${cursor}`);
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.match(r.body.error, /query\.cursor/);
    }
    const limit = await req(alice, 'GET', '/nft/collections?limit=0');
    assert.equal(limit.status, 400);
    assert.match(JSON.stringify(limit.body), /limit/);
    const other = await req(alice, 'GET', '/nft/collections?user_id=views-bob');
    assert.equal(other.status, 400);
    const anonymous = await req({}, 'GET', '/nft/collections');
    assert.equal(anonymous.status, 401);
  });
});

describe('a deployed collection seen by the console', () => {
  let id: string;
  let address: string;

  test('deploy by id alone: defaults from contractParams; the record says deployed with its max_supply', async () => {
    const created = await req(alice, 'POST', '/nft/collections', { title: 'Fox Views', editions: 25, data: traitData });
    id = created.body.data.collection.id;
    assert.equal((await req(bob, 'POST', `/nft/collections/${id}/deploy`)).status, 403, "Bob cannot deploy Alice's collection");
    const deployed = await req(alice, 'POST', `/nft/collections/${id}/deploy`);
    assert.equal(deployed.status, 200, JSON.stringify(deployed.body));
    address = deployed.body.data.contract_address;
    const record = deployed.body.data.collection;
    assert.equal(record.status, 'deployed');
    assert.equal(record.max_supply, 25);

    const overview = await req(bob, 'GET', `/nft/collections/${id}/overview`);
    assert.equal(overview.status, 200, JSON.stringify(overview.body));
    const chain = overview.body.data.chain;
    assert.equal(chain.maxSupply, '25');
    assert.equal(chain.totalSupply, '0');
    assert.equal(chain.address, address);
    assert.equal(chain.symbol, created.body.data.contractParams.symbol);
    const onChainMax = await p.chain
      .client(31337)
      .readContract({ address: address as `0x${string}`, abi: collectionAbi, functionName: 'maxSupply' as never });
    assert.equal(String(onChainMax), chain.maxSupply);
    assert.equal(overview.body.data.collection.status, 'deployed');
  });

  test('tokens with traits, a trait filter, rarity shares, one token in full, activity', async () => {
    for (const color of ['Red', 'Red', 'Blue']) {
      const m = await req(alice, 'POST', `/nft/collections/${id}/mint-and-generate`, { recipient: RECIPIENT, variables: { color } });
      assert.equal(m.status, 201, JSON.stringify(m.body));
    }
    const page = await req(bob, 'GET', `/nft/collections/${id}/tokens`);
    assert.equal(page.status, 200, JSON.stringify(page.body));
    assert.equal(page.body.data.total, 3);
    const first = page.body.data.tokens[0];
    assert.equal(first.token_id, 1);
    assert.deepEqual(first.traits, [{ trait_type: 'color', value: 'Red' }]);
    assert.ok(['queued', 'generating', 'completed'].includes(first.generation.state), first.generation.state);
    assert.ok(first.generation.job_id);

    const red = await req(bob, 'GET', `/nft/collections/${id}/tokens?trait=color:Red`);
    assert.deepEqual(
      red.body.data.tokens.map((t: { token_id: number }) => t.token_id),
      [1, 2],
    );
    const none = await req(bob, 'GET', `/nft/collections/${id}/tokens?trait=color:Red&trait=color:Blue`);
    assert.equal(none.body.data.total, 0, 'every filter must hold');
    const badTrait = await req(bob, 'GET', `/nft/collections/${id}/tokens?trait=nocolon`);
    assert.equal(badTrait.status, 400);
    assert.match(JSON.stringify(badTrait.body), /query\.trait/);

    const rarity = await req(bob, 'GET', `/nft/collections/${id}/rarity`);
    assert.equal(rarity.body.data.minted, 3);
    const color = rarity.body.data.traits.find((t: { trait_type: string }) => t.trait_type === 'color');
    assert.deepEqual(color.values, [
      { value: 'Red', count: 2, share: 2 / 3 },
      { value: 'Blue', count: 1, share: 1 / 3 },
    ]);

    // The indexer sees the three mints; then a transfer by the holder shows as activity and on the token.
    await waitFor('three mints indexed', async () => {
      const a = await req(bob, 'GET', `/nft/collections/${id}/activity`);
      return a.body.data.events.length >= 3 ? a : undefined;
    });
    const holder = walletFor(p.anvil.rpcUrl, 1);
    const hash = await holder.writeContract({
      address: address as `0x${string}`,
      abi: collectionAbi,
      functionName: 'transferFrom' as never,
      args: [getAddress(RECIPIENT), getAddress(OTHER), 2n] as never,
    } as never);
    const activity = await waitFor('the transfer indexed', async () => {
      const a = await req(bob, 'GET', `/nft/collections/${id}/activity?limit=2`);
      return a.body.data.events[0]?.kind === 'transfer' ? a : undefined;
    });
    const [latest] = activity.body.data.events;
    assert.equal(latest.tx_hash, hash);
    assert.equal(latest.token_id, 2);
    assert.equal(getAddress(latest.to), getAddress(OTHER));
    assert.ok(activity.body.data.next_cursor, 'four events, two per page');
    const hugeBlock = Buffer.from(JSON.stringify({ b: 1e300, l: 0 })).toString('base64url');
    assert.equal((await req(bob, 'GET', `/nft/collections/${id}/activity?cursor=${hugeBlock}`)).status, 400);
    const older = await req(bob, 'GET', `/nft/collections/${id}/activity?limit=2&cursor=${activity.body.data.next_cursor}`);
    assert.equal(older.body.data.events.length, 2);
    assert.ok(older.body.data.events.every((e: { kind: string }) => e.kind === 'mint'));

    const token = await req(bob, 'GET', `/nft/collections/${id}/tokens/2`);
    assert.equal(token.status, 200, JSON.stringify(token.body));
    assert.equal(token.body.data.metadata.name, 'Fox Views #2');
    assert.deepEqual(
      token.body.data.transfers.map((t: { kind: string }) => t.kind),
      ['transfer', 'mint'],
    );
    assert.ok(token.body.data.transactions.some((t: { kind: string; status: string }) => t.kind === 'mint' && t.status === 'mined'));
    await waitFor('the owner indexed', async () => {
      const t = await req(bob, 'GET', `/nft/collections/${id}/tokens/2`);
      return t.body.data.owner && getAddress(t.body.data.owner) === getAddress(OTHER) ? t : undefined;
    });
    assert.equal((await req(bob, 'GET', `/nft/collections/${id}/tokens/9`)).status, 404);
  });

  test('the cover image becomes the ERC-7572 image; only the owner or the operator sets it', async () => {
    assert.equal((await req(bob, 'PUT', `/nft/collections/${id}/cover`, { base64Data: PNG_1x1 })).status, 403);
    const wrongType = await req(alice, 'PUT', `/nft/collections/${id}/cover`, {
      base64Data: Buffer.from('not an image').toString('base64'),
    });
    assert.equal(wrongType.status, 400);
    const set = await req(alice, 'PUT', `/nft/collections/${id}/cover`, { base64Data: PNG_1x1 });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const url = set.body.data.collection.cover_image_url;
    assert.match(url, /collection-covers\/.+\.png$/);
    const doc = await p.backend.inject({ method: 'GET', url: `/collections/${id}/metadata.json` });
    assert.equal(doc.json().image, url);
  });

  test('the admin proxy forwards the views', async () => {
    const list = await p.admin.inject({ method: 'GET', url: '/api/nft/collections/list?q=Fox', headers: operator });
    assert.equal(list.statusCode, 200, list.body);
    assert.equal(list.json().collections[0].id, id);
    const tokens = await p.admin.inject({ method: 'GET', url: `/api/nft/tokens?collectionId=${id}&trait=color:Blue`, headers: operator });
    assert.deepEqual(
      tokens.json().tokens.map((t: { token_id: number }) => t.token_id),
      [3],
    );
    const token = await p.admin.inject({ method: 'GET', url: `/api/nft/token?collectionId=${id}&tokenId=1`, headers: operator });
    assert.equal(token.json().token_id, 1);
    const overview = await p.admin.inject({ method: 'GET', url: `/api/nft/collections/overview?collectionId=${id}`, headers: operator });
    assert.equal(overview.json().chain.maxSupply, '25');
  });
});

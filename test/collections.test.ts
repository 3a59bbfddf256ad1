/** Collection records through both apps: envelope and success shapes, validation, 404, reset. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { collections, decks } from '../src/db/schema/index.ts';
import { asService, call, sampleData, startTestPlatform, type TestPlatform } from './helpers/platform.ts';

let p: TestPlatform;
before(async () => {
  p = await startTestPlatform({}, {}, { listen: false }); // no sockets: both apps through inject()
});
after(() => p.close());

const admin = (path: string, opts: Parameters<typeof call>[1] = {}) =>
  p.request('admin', path, { ...opts, headers: asService(opts.headers) });
const backend = (path: string, opts: Parameters<typeof call>[1] = {}) =>
  p.request('backend', path, { ...opts, headers: asService(opts.headers) });

describe('create', () => {
  test('admin create returns success, the normalized record and contractParams', async () => {
    const res = await admin('/api/nft/collections/create', {
      body: { title: 'Neon Dreams', description: 'glow', editions: 25, price: 0.05, blockchain: 'BASE', data: sampleData() },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.success, true);
    const { collection, contractParams } = res.body;
    assert.match(collection.id, /^[0-9a-f-]{36}$/);
    assert.equal(collection.title, 'Neon Dreams');
    assert.equal(collection.editions, 25);
    assert.equal(collection.price, 0.05);
    assert.equal(collection.blockchain, 'BASE');
    assert.equal(collection.contract_address, null);
    assert.equal(collection.mint_status, 'draft');
    assert.equal(collection.tokens_minted, 0);
    assert.deepEqual(contractParams, {
      name: 'Neon Dreams',
      symbol: 'NEONDREA',
      baseURI: `http://meta.test/collections/${collection.id}/tokens/`,
      contractURI: `http://meta.test/collections/${collection.id}/metadata.json`,
      maxSupply: 25,
    });
    // Both variable forms normalized to option lists; placeholders added.
    const vars = collection.data.variables as Array<{ name: string; value: unknown; is_user_customizable: boolean }>;
    assert.deepEqual(vars.find((v) => v.name === 'animal')!.value, [
      { value: 'cat', display_name: 'Cat', weight: 1 },
      { value: 'fox', display_name: 'Fox', weight: 1 },
    ]);
    const pfp = vars.find((v) => v.name === 'social_pfp')!;
    assert.equal(pfp.is_user_customizable, true);
    for (let i = 1; i <= 5; i++) assert.ok(vars.some((v) => v.name === `ref_image_${i}`));
  });

  test('backend create answers 201 with the {data, error} envelope', async () => {
    const res = await backend('/nft/collections', { body: { title: 'Plain', data: { version: 'v2' } } });
    assert.equal(res.status, 201);
    assert.equal(res.body.error, null);
    assert.equal(res.body.data.collection.blockchain, 'ARBITRUM');
    assert.equal(res.body.data.collection.editions, 1);
  });

  test('data is optional like the other fields but the title (§4.1 create): an empty v2 definition', async () => {
    const res = await admin('/api/nft/collections/create', {
      body: { title: 'No Data Yet', description: 'to be designed', editions: 10, price: 0, blockchain: 'ETHEREUM' },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const { data } = res.body.collection;
    assert.equal(data.version, 'v2');
    assert.deepEqual(data.steps, []);
    assert.deepEqual(data.generations, { hashes: [], generations: 0, use_custom_hashes: false });
    // §2.3 rules 2 and 3: social_pfp and ref_image_1..5 are always there.
    assert.deepEqual(
      data.variables.map((v: { name: string }) => v.name),
      ['social_pfp', 'ref_image_1', 'ref_image_2', 'ref_image_3', 'ref_image_4', 'ref_image_5'],
    );
    assert.equal(res.body.contractParams.maxSupply, 10);
    const bad = await backend('/nft/collections', { body: { title: 'Bad Data', data: { version: 'v1' } } });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /^body\.data\.version/);
  });

  test('custodial create links a social identity, reused on the second create', async () => {
    const body = { title: 'Held', data: { version: 'v2' }, social_org: 'social_b', social_identifier: '12345' };
    const a = await backend('/nft/collections', { body });
    const b = await backend('/nft/collections', { body });
    assert.equal(a.body.data.collection.is_custodial, true);
    assert.ok(a.body.data.collection.custodied_for);
    assert.equal(a.body.data.collection.custodied_for, b.body.data.collection.custodied_for);
  });

  const bad: Array<[string, Record<string, unknown>, RegExp]> = [
    ['title missing', { data: { version: 'v2' } }, /body\.title/],
    ['title of wrong type', { title: 5, data: { version: 'v2' } }, /body\.title/],
    ['empty title', { title: '   ', data: { version: 'v2' } }, /body\.title/],
    ['editions not an integer', { title: 'x', editions: 1.5, data: { version: 'v2' } }, /body\.editions/],
    ['editions zero', { title: 'x', editions: 0, data: { version: 'v2' } }, /body\.editions/],
    ['negative price', { title: 'x', price: -1, data: { version: 'v2' } }, /body\.price/],
    ['unknown blockchain', { title: 'x', blockchain: 'SOLANA', data: { version: 'v2' } }, /body\.blockchain/],
    ['wrong data version', { title: 'x', data: { version: 'v1' } }, /body\.data\.version/],
    ['malformed project_id', { title: 'x', project_id: 'nope', data: { version: 'v2' } }, /body\.project_id/],
    [
      'variable weights of the wrong length',
      { title: 'x', data: { version: 'v2', variables: [{ name: 'c', value: { values: ['a', 'b'], weights: [1] } }] } },
      /body\.data\.variables\.0\.value/,
    ],
    [
      'bad variable name',
      { title: 'x', data: { version: 'v2', variables: [{ name: '1 bad', value: [] }] } },
      /body\.data\.variables\.0\.name/,
    ],
    ['negative weight', { title: 'x', data: { version: 'v2', variables: [{ name: 'c', value: [{ value: 'a', weight: -1 }] }] } }, /weight/],
    ['duplicate variable', { title: 'x', data: { version: 'v2', variables: [{ name: 'c' }, { name: 'c' }] } }, /defined twice/],
    ['social_org without identifier', { title: 'x', social_org: 'social_a', data: { version: 'v2' } }, /social/],
    ['unknown social_org', { title: 'x', social_org: 'myspace', social_identifier: '1', data: { version: 'v2' } }, /social_org/],
  ];
  for (const [name, body, message] of bad) {
    test(`400 on ${name}`, async () => {
      const res = await backend('/nft/collections', { body });
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.data, null);
      assert.match(res.body.error, message);
      const viaAdmin = await admin('/api/nft/collections/create', { body });
      assert.equal(viaAdmin.status, 400);
      assert.equal(viaAdmin.body.success, false);
      assert.match(viaAdmin.body.error, message);
    });
  }

  test('400 on malformed JSON, never 500', async () => {
    const res = await backend('/nft/collections', { raw: '{"title": ' });
    assert.equal(res.status, 400);
    assert.equal(res.body.data, null);
    assert.equal(typeof res.body.error, 'string');
  });
});

describe('lookup, update, reset', () => {
  let id: string;
  before(async () => {
    const res = await admin('/api/nft/collections/create', { body: { title: 'Lookup Me', editions: 3, data: sampleData() } });
    id = res.body.collection.id;
  });

  test('lookup through the admin proxy', async () => {
    const res = await admin(`/api/nft/collections/lookup?collectionId=${id}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.success, true);
    assert.equal(res.body.collection.id, id);
    assert.equal(res.body.collection.deployed, false);
    assert.equal(res.body.contractParams.maxSupply, 3);
  });

  test('malformed uuid is 400, unknown collection is 404', async () => {
    const a = await admin('/api/nft/collections/lookup?collectionId=abc');
    assert.equal(a.status, 400);
    assert.match(a.body.error, /query\.collectionId/);
    const b = await backend('/nft/collections/not-a-uuid');
    assert.equal(b.status, 400);
    assert.match(b.body.error, /path\.collectionId/);
    const missing = '00000000-0000-4000-8000-000000000000';
    const c = await admin(`/api/nft/collections/lookup?collectionId=${missing}`);
    assert.equal(c.status, 404);
    assert.equal(c.body.success, false);
    assert.match(c.body.error, /not found/);
    const d = await backend(`/nft/collections/${missing}`);
    assert.equal(d.status, 404);
    assert.deepEqual(Object.keys(d.body).sort(), ['data', 'error']);
    const e = await admin('/api/nft/collections/update', { method: 'PUT', body: { collectionId: missing, title: 'x' } });
    assert.equal(e.status, 404);
    const f = await admin('/api/nft/collections/reset', { body: { collectionId: missing } });
    assert.equal(f.status, 404);
  });

  test('update changes the given fields and contractParams follow', async () => {
    const res = await admin('/api/nft/collections/update', {
      method: 'PUT',
      body: { collectionId: id, title: 'Renamed Thing Here', editions: 9 },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.success, true);
    assert.equal(res.body.collection.title, 'Renamed Thing Here');
    assert.equal(res.body.collection.editions, 9);
    assert.equal(res.body.contractParams.symbol, 'RTH');
    assert.equal(res.body.contractParams.maxSupply, 9);
    const again = await backend(`/nft/collections/${id}`);
    assert.equal(again.body.data.collection.title, 'Renamed Thing Here');
  });

  test('update validates its fields and refuses an empty body', async () => {
    const a = await admin('/api/nft/collections/update', { method: 'PUT', body: { collectionId: id, editions: 'ten' } });
    assert.equal(a.status, 400);
    assert.match(a.body.error, /editions/);
    const b = await backend(`/nft/collections/${id}`, { method: 'PUT', body: {} });
    assert.equal(b.status, 400);
    assert.match(b.body.error, /at least one/);
    const c = await admin('/api/nft/collections/update', { method: 'PUT', body: { title: 'x' } });
    assert.equal(c.status, 400);
    assert.match(c.body.error, /collectionId/);
  });

  test('reset clears deployment fields and every deck mint state', async () => {
    const { db } = p.database;
    await db
      .update(collections)
      .set({
        contract_address: '0x1111111111111111111111111111111111111111',
        chain_id: 31337,
        deploy_tx_hash: `0x${'ab'.repeat(32)}`,
        base_token_uri: 'http://meta.test/x/',
        mint_status: 'deployed',
        tokens_minted: 1,
      })
      .where(eq(collections.id, id));
    await db.insert(decks).values({
      collection_id: id,
      name: 'token 1',
      token_id: 1,
      mint_status: 'minted',
      mint_tx_hash: `0x${'cd'.repeat(32)}`,
      mint_recipient: '0x2222222222222222222222222222222222222222',
      current_owner: '0x2222222222222222222222222222222222222222',
      minted_at: new Date(),
    });
    const res = await admin('/api/nft/collections/reset', { body: { collectionId: id } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.success, true);
    const c = res.body.collection;
    assert.equal(c.contract_address, null);
    assert.equal(c.chain_id, null);
    assert.equal(c.deploy_tx_hash, null);
    assert.equal(c.base_token_uri, null);
    assert.equal(c.tokens_minted, 0);
    const [deck] = await db.select().from(decks).where(eq(decks.collection_id, id));
    assert.equal(deck!.token_id, null);
    assert.equal(deck!.mint_status, null);
    assert.equal(deck!.mint_tx_hash, null);
    assert.equal(deck!.current_owner, null);
  });

  test('editions cannot change while deployed', async () => {
    const { db } = p.database;
    await db
      .update(collections)
      .set({ contract_address: '0x1111111111111111111111111111111111111111', chain_id: 31337 })
      .where(eq(collections.id, id));
    const res = await backend(`/nft/collections/${id}`, { method: 'PUT', body: { editions: 100 } });
    assert.equal(res.status, 409);
    assert.match(res.body.error, /after deployment/);
  });
});

test('admin routes answer "BACKEND_API_URL is not configured" when it is unset', async () => {
  const { buildAdmin } = await import('../src/processes/admin.ts');
  const app = await buildAdmin({ ...p.config, BACKEND_API_URL: undefined });
  const res = await app.inject({
    method: 'GET',
    url: '/api/nft/collections/lookup?collectionId=00000000-0000-4000-8000-000000000000',
    headers: asService(),
  });
  assert.equal(res.statusCode, 503);
  assert.deepEqual(res.json(), { success: false, error: 'BACKEND_API_URL is not configured' });
  await app.close();
});

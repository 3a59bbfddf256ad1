/**
 * Every number and length a client sends is bounded where it is parsed (docs/minting.md "Mint
 * policy", docs/contracts.md "URI limits", docs/chain-operations.md): out of range is a 400 naming
 * the field, on the backend and through the admin proxy, and nothing is stored or sent. Then the
 * worst values the schemas allow are written — a collection at every maximum, deployed by both
 * deploy paths at the contract's limits — and every view of those records reads with 2xx.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { count, eq } from 'drizzle-orm';
import { privateKeyToAccount } from 'viem/accounts';
import { ANVIL_PRIVATE_KEYS } from '../src/chain/anvil.ts';
import { chainTransactions, collections } from '../src/db/schema/index.ts';
import { MAX_CONTRACT_SUPPLY, MAX_URI_BYTES } from '../src/domain/contract-limits.ts';
import { MAX_PRICE, merkleRoot } from '../src/domain/mint-policy.ts';
import { adminCall, backendCall, collectionParams, deployFactory, startChainPlatform, type ChainPlatform } from './chain-ops/helpers.ts';
import { sampleData } from './helpers/platform.ts';

/** `bytes` bytes of UTF-8 made of two-byte characters after an ASCII prefix (limits count bytes, not characters). */
const utf8Of = (bytes: number, prefix = 'https://m.example/') =>
  prefix + 'é'.repeat((bytes - prefix.length) >> 1) + 'a'.repeat((bytes - prefix.length) & 1);
const addressOf = (i: number) => `0x${i.toString(16).padStart(40, '0')}`;

describe('numbers and lengths are bounded where parsed; worst accepted values read back', { timeout: 240_000 }, () => {
  let p: ChainPlatform;
  const svc = () => ({ 'x-api-key': p.config.API_KEY! });
  const collectionCount = async () => (await p.database.db.select({ n: count() }).from(collections))[0]!.n;
  const txCount = async () => (await p.database.db.select({ n: count() }).from(chainTransactions))[0]!.n;
  const admin = (route: string, body: unknown, method = 'POST') =>
    fetch(`${p.adminUrl}${route}`, { method, headers: { ...svc(), 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(
      async (r) => ({ status: r.status, body: await r.json() }),
    );

  before(async () => {
    p = await startChainPlatform();
    await deployFactory(p);
  });
  after(() => p?.close());

  test('price above MAX_PRICE (1e303 included): 400 naming price on every route, nothing stored', async () => {
    const existing = await backendCall(p, '/nft/collections', { title: 'Priced', price: 2 });
    assert.equal(existing.status, 201, JSON.stringify(existing.body));
    const id = existing.body.data.collection.id;
    const before = await collectionCount();
    for (const price of [1e303, MAX_PRICE * 1.5, Number.MAX_VALUE]) {
      const cases = [
        ['backend create', await backendCall(p, '/nft/collections', { title: 'Too dear', price })],
        ['backend update', await backendCall(p, `/nft/collections/${id}`, { price }, svc()).catch(() => null)],
        ['admin create', await admin('/api/nft/collections/create', { title: 'Too dear', price })],
        ['admin update', await admin('/api/nft/collections/update', { collectionId: id, price }, 'PUT')],
        [
          'custodial',
          await backendCall(p, '/api/workflows/create-simple-collection', {
            collection_details: { title: 'Too dear', social_org: 'social_a', social_identifier: 'dear', price },
            job_type: 'pfp',
            template_json: 'x',
          }),
        ],
      ] as const;
      for (const [name, r] of cases) {
        if (name === 'backend update') continue; // PUT below (backendCall posts)
        assert.equal(r!.status, 400, `${name} ${price}: ${JSON.stringify(r!.body)}`);
        assert.match(JSON.stringify(r!.body), /price/, name);
      }
      const put = await fetch(`${p.backendUrl}/nft/collections/${id}`, {
        method: 'PUT',
        headers: { ...svc(), 'content-type': 'application/json' },
        body: JSON.stringify({ price }),
      });
      assert.equal(put.status, 400, `backend update ${price}`);
      assert.match(await put.text(), /body\.price/);
    }
    assert.equal(await collectionCount(), before, 'nothing stored');
    const [row] = await p.database.db.select().from(collections).where(eq(collections.id, id));
    assert.equal(row!.price, 2, 'the record keeps its price');
  });

  test('contract limits: maxSupply, URIs and names in bytes are 400 naming the field before anything is sent', async () => {
    const sent = await txCount();
    const over = [
      ['maxSupply', { maxSupply: String(MAX_CONTRACT_SUPPLY + 1) }],
      ['baseURI', { baseURI: utf8Of(MAX_URI_BYTES + 1) }],
      ['contractURI', { contractURI: utf8Of(MAX_URI_BYTES + 1) }],
      ['baseURI', { baseURI: utf8Of(30_000) }],
      ['name', { name: 'é'.repeat(128) }], // 128 characters, 256 bytes
      ['symbol', { symbol: 'ü'.repeat(200) }],
      ['royaltyBps', { royaltyBps: 10_001, royaltyReceiver: addressOf(5) }],
    ] as const;
    for (const [field, extra] of over) {
      const r = await adminCall(p, '/api/nft/collections', collectionParams(40, extra));
      assert.equal(r.status, 400, `${field}: ${JSON.stringify(r.body).slice(0, 300)}`);
      assert.match(r.body.error, new RegExp(field), field);
    }
    const c = await adminCall(p, '/api/nft/collections', collectionParams(41));
    assert.equal(c.status, 200, JSON.stringify(c.body));
    const address = c.body.collection.address;
    const afterDeploy = await txCount();
    for (const [action, value] of [
      ['setBaseURI', utf8Of(MAX_URI_BYTES + 1)],
      ['setContractURI', utf8Of(MAX_URI_BYTES + 1)],
      ['setMaxSupply', String(MAX_CONTRACT_SUPPLY + 1)],
      ['setMaxSupply', ((1n << 256n) - 1n).toString()],
    ] as const) {
      const r = await adminCall(p, '/api/nft/admin', { chainId: 31337, collectionAddress: address, action, value });
      assert.equal(r.status, 400, `${action}: ${JSON.stringify(r.body).slice(0, 300)}`);
      assert.match(r.body.error, /body\.value/, action);
    }
    const design = await backendCall(p, '/nft/collections', { title: 'Long name' });
    const named = await backendCall(p, `/nft/collections/${design.body.data.collection.id}/deploy`, { name: 'é'.repeat(128) });
    assert.equal(named.status, 400, JSON.stringify(named.body));
    assert.match(named.body.error, /body\.name/);
    assert.equal(await txCount(), afterDeploy, 'no transaction for a refused request');
    assert.equal(afterDeploy, sent + 1, 'only the valid deploy was sent');
    // At the limits the admin actions go through.
    for (const [action, value] of [
      ['setBaseURI', utf8Of(MAX_URI_BYTES)],
      ['setMaxSupply', String(MAX_CONTRACT_SUPPLY)],
    ] as const) {
      const r = await adminCall(p, '/api/nft/admin', { chainId: 31337, collectionAddress: address, action, value });
      assert.equal(r.status, 200, `${action}: ${JSON.stringify(r.body).slice(0, 300)}`);
    }
  });

  test('the worst values the schemas allow: stored, deployed by both paths, every view reads 2xx', async () => {
    const allowlist = Array.from({ length: 5000 }, (_, i) => addressOf(i + 1));
    const worst = {
      title: 'ü'.repeat(200),
      description: '€'.repeat(10_000),
      editions: 1_000_000,
      price: MAX_PRICE,
      data: sampleData(),
    };
    const policy = {
      mint_access: 'public',
      mint_price: '9'.repeat(60),
      payout_address: privateKeyToAccount(ANVIL_PRIVATE_KEYS[4]).address,
      max_per_wallet: 1_000_000,
      mint_allowlist: allowlist,
      mint_merkle_root: merkleRoot(allowlist.slice(0, 10)),
      mint_start: '1970-01-01T00:00:00Z',
      mint_end: '9999-12-31T23:59:59.999Z',
    };
    const ids: string[] = [];
    for (const route of ['backend', 'admin'] as const) {
      const created =
        route === 'backend'
          ? await backendCall(p, '/nft/collections', worst)
          : await admin('/api/nft/collections/create', worst).then((r) => ({ status: r.status, body: { data: r.body } }));
      assert.equal(created.status, route === 'backend' ? 201 : 200, `${route}: ${JSON.stringify(created.body).slice(0, 300)}`);
      const id = (created.body.data.collection ?? created.body.data.data?.collection ?? created.body.data).id as string;
      assert.ok(id, JSON.stringify(created.body).slice(0, 300));
      const updated = await admin('/api/nft/collections/update', { collectionId: id, ...policy }, 'PUT');
      assert.equal(updated.status, 200, JSON.stringify(updated.body).slice(0, 300));
      ids.push(id);
    }
    // Only the default price (no mint_price) shows price × 10^6 exactly.
    const plain = await backendCall(p, '/nft/collections', { title: 'Max price', price: MAX_PRICE });
    assert.equal(plain.body.data.collection.mint_policy.price, String(10n ** 15n));
    ids.push(plain.body.data.collection.id);

    // Deployed at the contract's limits: the design deploy (largest supply the record holds, 100%
    // royalty, a 255-byte name) and the admin proxy's raw deploy of a record (255-byte name and
    // symbol, both URIs of MAX_URI_BYTES, maxSupply 2^40 - 2).
    const design = await backendCall(p, `/nft/collections/${ids[0]}/deploy`, {
      max_supply: 2 ** 31 - 1,
      royalty_bps: 10_000,
      royalty_receiver: addressOf(9),
      name: 'é'.repeat(127) + 'n',
    });
    assert.equal(design.status, 200, JSON.stringify(design.body).slice(0, 300));
    const raw = await adminCall(
      p,
      '/api/nft/collections',
      collectionParams(42, {
        platformCollectionId: ids[1],
        name: 'é'.repeat(127) + 'n',
        symbol: 's'.repeat(255),
        baseURI: utf8Of(MAX_URI_BYTES),
        contractURI: utf8Of(MAX_URI_BYTES, 'ipfs://'),
        maxSupply: String(MAX_CONTRACT_SUPPLY),
        royaltyReceiver: addressOf(9),
        royaltyBps: 10_000,
      }),
    );
    assert.equal(raw.status, 200, JSON.stringify(raw.body).slice(0, 300));
    const minted = await backendCall(p, `/nft/collections/${ids[0]}/mint`, { recipient: addressOf(7), quantity: 100 });
    assert.equal(minted.status, 201, JSON.stringify(minted.body).slice(0, 300));

    for (const id of ids) {
      const views = [
        `/nft/collections/${id}`,
        `/nft/collections?limit=100`,
        `/nft/collections/${id}/overview`,
        `/nft/collections/${id}/rarity`,
        `/nft/collections/${id}/activity`,
        `/nft/collections/${id}/tokens`,
        `/nft/collections/${id}/mints`,
        `/nft/collections/${id}/ownership`,
        `/collections/${id}/metadata.json`,
        `/nft/metadata/${id}/collection.json`,
      ];
      for (const view of views) {
        const r = await backendCall(p, view);
        assert.ok(r.status >= 200 && r.status < 300, `backend ${view}: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
      }
      const q = `collectionId=${id}`;
      for (const view of [
        `/api/nft/collections/lookup?${q}`,
        `/api/nft/collections/list`,
        `/api/nft/collections/overview?${q}`,
        `/api/nft/collections/rarity?${q}`,
        `/api/nft/collections/activity?${q}`,
        `/api/nft/tokens?${q}`,
        `/api/nft/mint?${q}`,
        `/api/nft/ownership?${q}`,
      ]) {
        const r = await adminCall(p, view);
        assert.ok(r.status >= 200 && r.status < 300, `admin ${view}: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
      }
    }
    // The first collection's tokens read one by one, on both apps.
    for (const tokenId of [1, 100]) {
      for (const [name, r] of [
        ['token', await backendCall(p, `/nft/collections/${ids[0]}/tokens/${tokenId}`)],
        ['metadata', await backendCall(p, `/collections/${ids[0]}/tokens/${tokenId}`)],
        ['admin token', await adminCall(p, `/api/nft/token?collectionId=${ids[0]}&tokenId=${tokenId}`)],
      ] as const) {
        assert.ok(r.status >= 200 && r.status < 300, `${name} ${tokenId}: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
      }
    }
    const record = (await backendCall(p, `/nft/collections/${ids[1]}`)).body.data.collection;
    assert.equal(record.base_token_uri, utf8Of(MAX_URI_BYTES), 'the deployed baseURI written back whole');
  });
});

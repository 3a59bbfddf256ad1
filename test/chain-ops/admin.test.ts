/**
 * Collections on chain through the admin proxy: reads of valid and invalid addresses, every admin
 * action (and its refusal for a wrong value type and when the platform wallet is not the owner),
 * the metadata proxy for contract, token and tokens, and the design-stage deploy route.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { encodeFunctionData, type Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { collectionAbi } from '../../contracts/abi/index.ts';
import { ANVIL_PRIVATE_KEYS } from '../../src/chain/anvil.ts';
import { deployCollection } from '../../src/chain/factory.ts';
import { deployKey } from '../../src/services/deploy.ts';
import { deployServiceOf } from '../../src/services/wire-nft.ts';
import { DEV_ADDRESS } from '../../src/chain/wallet.ts';
import { chainTransactions, collections } from '../../src/db/schema/index.ts';
import { sampleData } from '../helpers/platform.ts';
import {
  adminCall,
  backendCall,
  collectionParams,
  deployFactory,
  METADATA_BASE,
  startChainPlatform,
  type ChainPlatform,
} from './helpers.ts';

const OTHER = privateKeyToAccount(ANVIL_PRIVATE_KEYS[1]).address;
const THIRD = privateKeyToAccount(ANVIL_PRIVATE_KEYS[2]).address;
const CID = '00000000-0000-4000-8000-000000000001';

describe('collections on chain, admin actions, metadata proxy', { timeout: 90_000 }, () => {
  let p: ChainPlatform;
  let meta: http.Server;
  let metaUrl: string;
  let collection: Address;
  const served: string[] = [];

  before(async () => {
    // Stands in for our own metadata host (http://meta.test is not resolvable): the proxy rewrites it.
    meta = http.createServer((req, res) => {
      served.push(req.url!);
      const token = /^\/collections\/([^/]+)\/tokens\/(\d+)$/.exec(req.url!);
      if (req.url === `/collections/${CID}/metadata.json`) {
        res.setHeader('content-type', 'application/json');
        return res.end(JSON.stringify({ name: 'Test Collection 1', description: 'd', image: 'http://x/i.png', external_link: 'http://x' }));
      }
      if (token) {
        res.setHeader('content-type', 'application/json');
        return res.end(JSON.stringify({ name: `Token #${token[2]}`, description: 'd', image: 'http://x/t.png', attributes: [] }));
      }
      if (req.url === '/big') {
        res.setHeader('content-type', 'application/json');
        return res.end(`"${'x'.repeat(2 * 1024 * 1024)}"`);
      }
      res.statusCode = 404;
      res.end('{}');
    });
    await new Promise<void>((r) => meta.listen(0, '127.0.0.1', r));
    metaUrl = `http://127.0.0.1:${(meta.address() as AddressInfo).port}`;
    p = await startChainPlatform({ metadataRewrites: [{ from: 'http://meta.test', to: metaUrl }] });
    await deployFactory(p);
    const r = await adminCall(p, '/api/nft/collections', collectionParams(1));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    collection = r.body.collection.address;
  });
  after(async () => {
    await p?.close();
    await new Promise((r) => meta?.close(r));
  });

  const readOne = async (addr: string) => {
    const r = await adminCall(p, `/api/nft/collections?chainId=31337&addresses=${addr}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.collections[0];
  };

  test('POST /api/nft/collections validates its body', async () => {
    for (const [body, field] of [
      [{ ...collectionParams(5), maxSupply: 10 }, 'maxSupply'],
      [{ ...collectionParams(5), maxSupply: '0' }, 'maxSupply'],
      [{ ...collectionParams(5), name: '' }, 'name'],
      [{ ...collectionParams(5), platformCollectionId: 'nope' }, 'platformCollectionId'],
      [{ ...collectionParams(5), owner: '0x1' }, 'owner'],
    ] as const) {
      const r = await adminCall(p, '/api/nft/collections', body);
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.match(r.body.error, new RegExp(field));
    }
    const unknownRecord = await adminCall(p, '/api/nft/collections', { ...collectionParams(5), platformCollectionId: CID });
    assert.equal(unknownRecord.status, 404);
  });

  test('GET /api/nft/collections: valid addresses read (§2.6), the rest in invalidAddresses', async () => {
    const r = await adminCall(
      p,
      `/api/nft/collections?addresses=${collection},0x123,${DEV_ADDRESS},${p.chain.deployment(31337)!.contracts.MintFacet}`,
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.collections.length, 1);
    const c = r.body.collections[0];
    assert.deepEqual(Object.keys(c).sort(), [
      'address',
      'collectionId',
      'contractURI',
      'maxSupply',
      'mintActive',
      'minter',
      'name',
      'owner',
      'symbol',
      'totalSupply',
    ]);
    assert.equal(c.address, collection);
    assert.equal(c.name, 'Test Collection 1');
    assert.equal(c.symbol, 'TC1');
    assert.equal(c.owner, DEV_ADDRESS);
    assert.equal(c.minter, DEV_ADDRESS);
    assert.equal(c.totalSupply, '0');
    assert.equal(c.maxSupply, '1000');
    assert.equal(c.mintActive, true);
    assert.equal(c.collectionId, CID);
    // malformed, no code (a wallet), code that is not a collection (a facet)
    assert.equal(r.body.invalidAddresses.length, 3);
    assert.ok(r.body.invalidAddresses.includes('0x123'));
    assert.ok(r.body.invalidAddresses.includes(DEV_ADDRESS));
    const missing = await adminCall(p, '/api/nft/collections');
    assert.equal(missing.status, 400);
    assert.match(missing.body.error, /addresses/);
  });

  test('every admin action lands and changes the collection', async () => {
    const act = (action: string, value: unknown) =>
      adminCall(p, '/api/nft/admin', { chainId: 31337, collectionAddress: collection, action, value });
    let r = await act('setMintActive', false);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.success, true);
    assert.match(r.body.txHash, /^0x[0-9a-f]{64}$/);
    assert.equal(r.body.action, 'setMintActive');
    assert.equal(r.body.value, false);
    assert.equal((await readOne(collection)).mintActive, false);
    r = await act('setMintActive', true);
    assert.equal((await readOne(collection)).mintActive, true);

    r = await act('setMinter', THIRD);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal((await readOne(collection)).minter, THIRD);
    await act('setMinter', DEV_ADDRESS);

    r = await act('setMaxSupply', '2500');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal((await readOne(collection)).maxSupply, '2500');

    r = await act('setContractURI', `${'http://meta.test'}/collections/${CID}/metadata.json?v=2`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.match((await readOne(collection)).contractURI, /\?v=2$/);
    await act('setContractURI', `http://meta.test/collections/${CID}/metadata.json`);

    r = await act('setBaseURI', `http://meta.test/collections/${CID}/tokens/`);
    assert.equal(r.status, 200, JSON.stringify(r.body));

    // Beyond the contract's 40 bits (docs/contracts.md): refused where parsed, nothing sent.
    r = await act('setMaxSupply', '1099511627775'); // 2^40 - 1
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.match(r.body.error, /body\.value/);

    // A revert the contract reports is a 409 with the decoded reason, never a 500: below totalSupply.
    const minted = (await adminCall(p, '/api/nft/collections', collectionParams(8))).body.collection.address as Address;
    const mint = await p.chain.sender(31337).send({
      purpose: 'test-mint',
      to: minted,
      data: encodeFunctionData({ abi: collectionAbi, functionName: 'mintTo', args: [OTHER, 2n] }),
    });
    assert.equal(mint.status, 'mined');
    r = await adminCall(p, '/api/nft/admin', { chainId: 31337, collectionAddress: minted, action: 'setMaxSupply', value: '1' });
    assert.equal(r.status, 409, JSON.stringify(r.body));
    assert.match(r.body.error, /InvalidMaxSupply/);
  });

  test('a wrong value type is a 400 naming value and the expected type', async () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ['setMintActive', 'true', /boolean/],
      ['setMintActive', 1, /boolean/],
      ['setMinter', '0x12', /address/],
      ['setMinter', true, /address/],
      ['freezeUpgrades', false, /true/],
      ['transferOwnership', 'alice', /address/],
      ['transferOwnership', `0x${'0'.repeat(40)}`, /zero address/],
      ['setMinter', `0x${'0'.repeat(40)}`, /zero address/],
      ['setMaxSupply', 100, /unsigned integer/],
      ['setMaxSupply', '-1', /unsigned integer/],
      ['setMaxSupply', '1.5', /unsigned integer/],
      ['setMaxSupply', (1n << 256n).toString(), /unsigned integer/],
      ['setBaseURI', 'not a url', /URL/],
      ['setBaseURI', 42, /URL/],
      ['setContractURI', 'javascript:alert(1)', /URL/],
    ];
    for (const [action, value, expected] of cases) {
      const r = await adminCall(p, '/api/nft/admin', { chainId: 31337, collectionAddress: collection, action, value });
      assert.equal(r.status, 400, `${action} ${JSON.stringify(value)}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.error, /value/);
      assert.match(r.body.error, expected);
    }
    const unknown = await adminCall(p, '/api/nft/admin', {
      chainId: 31337,
      collectionAddress: collection,
      action: 'selfDestruct',
      value: 1,
    });
    assert.equal(unknown.status, 400);
    assert.match(unknown.body.error, /action/);
    const noContract = await adminCall(p, '/api/nft/admin', {
      chainId: 31337,
      collectionAddress: THIRD,
      action: 'setMintActive',
      value: true,
    });
    assert.equal(noContract.status, 404);
  });

  test('the platform wallet is refused when it is not the owner (created for another owner, or after transferOwnership)', async () => {
    const foreign = await adminCall(p, '/api/nft/collections', collectionParams(7, { owner: OTHER }));
    assert.equal(foreign.status, 200, JSON.stringify(foreign.body));
    assert.equal(foreign.body.collection.owner, OTHER);
    const addr = foreign.body.collection.address;
    const sentBefore = (await p.database.db.select().from(chainTransactions)).length;
    for (const [action, value] of [
      ['setMintActive', false],
      ['setMinter', THIRD],
      ['setMaxSupply', '5'],
      ['setBaseURI', 'https://example.com/t/'],
      ['setContractURI', 'https://example.com/c.json'],
      ['transferOwnership', THIRD],
    ] as const) {
      const r = await adminCall(p, '/api/nft/admin', { chainId: 31337, collectionAddress: addr, action, value });
      assert.equal(r.status, 409, `${action}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.success, false);
      // Refused before anything is sent: the message names the owner and the call they make themselves.
      assert.match(r.body.error, new RegExp(`owned by ${OTHER}`));
      assert.match(r.body.error, /cast send .* --account <owner>/);
      assert.match(r.body.error, /Owning your collection/);
      assert.equal(r.body.owner, OTHER);
    }
    assert.equal((await p.database.db.select().from(chainTransactions)).length, sentBefore, 'no transaction was sent');
    // transferOwnership away from the platform wallet, then the wallet is refused.
    const own = await adminCall(p, '/api/nft/collections', collectionParams(8));
    const a2 = own.body.collection.address;
    const t = await adminCall(p, '/api/nft/admin', { chainId: 31337, collectionAddress: a2, action: 'transferOwnership', value: OTHER });
    assert.equal(t.status, 200, JSON.stringify(t.body));
    assert.equal((await readOne(a2)).owner, OTHER);
    const refused = await adminCall(p, '/api/nft/admin', { chainId: 31337, collectionAddress: a2, action: 'setMintActive', value: false });
    assert.equal(refused.status, 409);
    assert.match(refused.body.error, new RegExp(`owned by ${OTHER}`));
  });

  test('metadata proxy: contract, token and tokens, fetched server-side', async () => {
    // Mint three tokens (the platform wallet is the minter) through the sender.
    const sender = p.chain.sender(31337);
    const mint = await sender.send({
      purpose: 'test-mint',
      to: collection,
      data: encodeFunctionData({ abi: collectionAbi, functionName: 'mintTo', args: [OTHER, 3n] }),
    });
    assert.equal(mint.status, 'mined');
    served.length = 0;

    const c = await adminCall(p, `/api/nft/metadata?chainId=31337&address=${collection}&type=contract`);
    assert.equal(c.status, 200, JSON.stringify(c.body));
    assert.equal(c.body.uri, `http://meta.test/collections/${CID}/metadata.json`);
    assert.equal(c.body.metadata.name, 'Test Collection 1');
    assert.ok(served.includes(`/collections/${CID}/metadata.json`), 'the proxy fetched it from our host');

    const t = await adminCall(p, `/api/nft/metadata?address=${collection}&type=token&tokenId=2`);
    assert.equal(t.status, 200, JSON.stringify(t.body));
    assert.equal(t.body.uri, `http://meta.test/collections/${CID}/tokens/2`);
    assert.equal(t.body.owner, OTHER);
    assert.equal(t.body.metadata.name, 'Token #2');

    const all = await adminCall(p, `/api/nft/metadata?address=${collection}&type=tokens`);
    assert.equal(all.status, 200, JSON.stringify(all.body));
    assert.equal(all.body.totalSupply, '3');
    assert.deepEqual(
      all.body.tokens.map((x: any) => [x.tokenId, x.uri, x.owner]),
      [1, 2, 3].map((i) => [String(i), `http://meta.test/collections/${CID}/tokens/${i}`, OTHER]),
    );

    const noId = await adminCall(p, `/api/nft/metadata?address=${collection}&type=token`);
    assert.equal(noId.status, 400);
    assert.match(noId.body.error, /tokenId/);
    const absent = await adminCall(p, `/api/nft/metadata?address=${collection}&type=token&tokenId=9`);
    assert.equal(absent.status, 404);
    const badType = await adminCall(p, `/api/nft/metadata?address=${collection}&type=everything`);
    assert.equal(badType.status, 400);
    assert.match(badType.body.error, /type/);

    // A URI that does not resolve: the document is null with the reason, the chain data still answers.
    const set = await adminCall(p, '/api/nft/admin', {
      chainId: 31337,
      collectionAddress: collection,
      action: 'setContractURI',
      value: `${metaUrl}/big`,
    });
    assert.equal(set.status, 200);
    const big = await adminCall(p, `/api/nft/metadata?address=${collection}&type=contract`);
    assert.equal(big.status, 200);
    assert.equal(big.body.metadata, null);
    assert.match(big.body.metadataError, /larger than/);
  });

  test('an address that is not the kind of contract asked for is a 400 naming the field, not a 502', async () => {
    const factory = (await p.chain.deploymentStatus(31337)).factoryAddress;
    for (const type of ['contract', 'token&tokenId=1', 'tokens']) {
      const r = await adminCall(p, `/api/nft/metadata?address=${factory}&type=${type}`);
      assert.equal(r.status, 400, `${type}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.error, /^query\.address: 0x[0-9a-fA-F]{40} is not a collection contract on chain 31337 \(\w+\(\) reverted\)$/);
    }
    const notFactory = await adminCall(p, `/api/nft/factory?factoryAddress=${collection}`);
    assert.equal(notFactory.status, 400, JSON.stringify(notFactory.body));
    assert.match(notFactory.body.error, /^query\.factoryAddress: .* is not a collection factory/);
  });

  test('tokens enumeration is capped at 100', async () => {
    const r = await adminCall(p, '/api/nft/collections', collectionParams(11));
    const addr = r.body.collection.address as Address;
    const sender = p.chain.sender(31337);
    for (let i = 0; i < 11; i++) {
      const m = await sender.send({
        purpose: 'test-mint',
        to: addr,
        data: encodeFunctionData({ abi: collectionAbi, functionName: 'mintTo', args: [THIRD, 10n] }),
      });
      assert.equal(m.status, 'mined');
    }
    const all = await adminCall(p, `/api/nft/metadata?address=${addr}&type=tokens`);
    assert.equal(all.status, 200, JSON.stringify(all.body));
    assert.equal(all.body.totalSupply, '110');
    assert.equal(all.body.tokens.length, 100);
    assert.equal(all.body.capped, true);
  });

  test('design-stage deploy: the whole deployment in one call', async () => {
    const created = await adminCall(p, '/api/nft/collections/create', {
      title: 'Design Stage',
      description: '',
      editions: 10,
      data: sampleData(),
    });
    const id = created.body.collection.id;
    const bad = await backendCall(p, `/nft/collections/${id}/deploy`, { max_supply: 10, royalty_bps: 20_000, royalty_receiver: OTHER });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /royalty_bps/);
    const r = await backendCall(p, `/nft/collections/${id}/deploy`, { max_supply: 10, royalty_bps: 500, royalty_receiver: OTHER });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.error, null);
    const d = r.body.data;
    assert.match(d.contract_address, /^0x[0-9a-fA-F]{40}$/);
    assert.match(d.tx_hash, /^0x[0-9a-f]{64}$/);
    assert.equal(d.base_token_uri, `http://meta.test/collections/${id}/tokens/`);
    assert.equal(d.collection.max_supply, 10);
    assert.equal(d.collection.royalty_bps, 500);
    assert.equal(d.collection.royalty_receiver, OTHER);
    assert.equal(d.collection.blockchain, 'ARBITRUM');
    assert.equal(d.collection.mint_status, 'deployed');
    const onChain = await readOne(d.contract_address);
    assert.equal(onChain.maxSupply, '10');
    assert.equal(onChain.collectionId, id);
    const royalty = (await p.chain.client(31337).readContract({
      address: d.contract_address,
      abi: collectionAbi,
      functionName: 'royaltyInfo',
      args: [1n, 10_000n],
    })) as readonly [string, bigint];
    assert.equal(royalty[0], OTHER);
    assert.equal(royalty[1], 500n);
    const again = await backendCall(p, `/nft/collections/${id}/deploy`, { max_supply: 10, royalty_bps: 500, royalty_receiver: OTHER });
    assert.equal(again.status, 409);
  });

  test('design-stage deploy after a crash: a later call finishes the claim from its transaction, or releases it', async () => {
    const db = p.database.db;
    const create = async (title: string) =>
      (await adminCall(p, '/api/nft/collections/create', { title, description: '', editions: 10, data: sampleData() })).body.collection
        .id as string;
    const claim = (id: string, at = sql`now()`) =>
      db.update(collections).set({ mint_status: 'deploying', updated_at: at }).where(eq(collections.id, id)).returning();
    const body = { max_supply: 10, royalty_bps: 500, royalty_receiver: OTHER };

    // Crash after the createCollection was mined, before the record was written.
    const a = await create('Crash After Send');
    const [claimed] = await claim(a);
    const factory = (await p.chain.deploymentStatus(31337)).factoryAddress;
    const sent = await deployCollection({
      client: p.chain.client(31337),
      sender: p.chain.sender(31337),
      factory,
      params: {
        name: 'Crash After Send',
        symbol: 'CAS',
        baseURI: `http://meta.test/collections/${a}/tokens/`,
        contractURI: `http://meta.test/collections/${a}/metadata.json`,
        maxSupply: 7n,
        royaltyReceiver: THIRD,
        royaltyBps: 250,
        owner: DEV_ADDRESS,
        minter: DEV_ADDRESS,
      },
      idempotencyKey: deployKey(a, claimed!.updated_at.toISOString()),
    });
    const r = await backendCall(p, `/nft/collections/${a}/deploy`, body);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.data.contract_address, sent.address, 'the contract deployed before the crash, not a second one');
    assert.equal(r.body.data.tx_hash, sent.txHash.toLowerCase());
    assert.equal(r.body.data.collection.mint_status, 'deployed');
    assert.equal(r.body.data.collection.max_supply, 7, 'parameters from the transaction');
    assert.equal(r.body.data.collection.royalty_receiver, THIRD);
    assert.equal((await backendCall(p, `/nft/collections/${a}/deploy`, body)).status, 409);

    // Crash before anything was sent: a young claim is respected, an old one is released.
    const b = await create('Crash Before Send');
    await claim(b);
    const busy = await backendCall(p, `/nft/collections/${b}/deploy`, body);
    assert.equal(busy.status, 409, JSON.stringify(busy.body));
    assert.match(busy.body.error, /being deployed/);
    await claim(b, sql`now() - interval '10 minutes'`);
    const rb = await backendCall(p, `/nft/collections/${b}/deploy`, body);
    assert.equal(rb.status, 200, JSON.stringify(rb.body));
    assert.equal(rb.body.data.collection.mint_status, 'deployed');
    assert.equal(rb.body.data.collection.max_supply, 10);

    // Its transaction failed: released at once (the background pass does the same).
    const c = await create('Crash After Failure');
    const [cc] = await claim(c);
    await db.insert(chainTransactions).values({
      purpose: 'create-collection',
      chain_id: 31337,
      from_address: DEV_ADDRESS,
      idempotency_key: deployKey(c, cc!.updated_at.toISOString()),
      status: 'failed',
      error: 'test: nothing reached the chain',
    });
    // The repair pass (what src/duties/nft.ts runs every 5 s).
    const repair = deployServiceOf(db, { chainId: p.config.NFT_CHAIN_ID, metadataBaseUrl: METADATA_BASE, chain: p.chain });
    assert.deepEqual(await repair.recoverAll(), { finished: 0, released: 1 });
    const [after_] = await db.select().from(collections).where(eq(collections.id, c));
    assert.equal(after_!.mint_status, 'draft');
    assert.equal(after_!.contract_address, null);
    const rc = await backendCall(p, `/nft/collections/${c}/deploy`, body);
    assert.equal(rc.status, 200, JSON.stringify(rc.body));
  });
});

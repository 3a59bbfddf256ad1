/**
 * Platform deployment through the admin proxy on a real anvil: first deploy, record and state,
 * stale detection after the chain restarts without its state, collection deploy with write-back,
 * reset refused while the contract exists and accepted after the chain reset, redeploy after the
 * reset (the sender starts nonces again), missing artifacts.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { createChainServices } from '../../src/chain/platform-chain.ts';
import { DEV_ADDRESS } from '../../src/chain/wallet.ts';
import { chainTransactions, collections } from '../../src/db/schema/index.ts';
import { buildAdmin } from '../../src/processes/admin.ts';
import { asService, sampleData } from '../helpers/platform.ts';
import { adminCall, backendCall, collectionParams, startChainPlatform, type ChainPlatform } from './helpers.ts';

const RECORD_KEYS = [
  'DiamondCutFacet',
  'DiamondLoupeFacet',
  'OwnershipFacet',
  'ERC721Facet',
  'MintFacet',
  'ContractURIFacet',
  'CollectionInit',
  'DiamondFactory',
  'MetadataUpdateFacet',
  'RoyaltyFacet',
  'DiamondRouter',
];

describe('platform deployment, stale detection, reset', { timeout: 90_000 }, () => {
  let p: ChainPlatform;
  before(async () => {
    // The restart below wipes the chain for good (restoreMaxTxs 0: the sender does not replay the lost
    // transactions), as a node without its state would be; a chain that only lost its last blocks is
    // restored instead (test/crash-kill9.test.ts, test/chain/tx-sender-restore.test.ts).
    p = await startChainPlatform({
      env: { LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent' },
      services: { senderOptions: { restoreMaxTxs: 0 } },
    });
  });
  after(async () => {
    await p?.close();
  });

  let factory: string;
  let collectionId: string;
  let contract: string;

  test('GET /api/nft/deploy without a record: 404 that says how to deploy', async () => {
    const r = await adminCall(p, '/api/nft/deploy?chainId=31337');
    assert.equal(r.status, 404);
    assert.equal(r.body.success, false);
    assert.match(r.body.error, /POST \/api\/nft\/deploy/);
    const bad = await adminCall(p, '/api/nft/deploy?chainId=abc');
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /chainId/);
    const unknown = await adminCall(p, '/api/nft/deploy', { chainId: 999 });
    assert.equal(unknown.status, 400);
    assert.match(unknown.body.error, /unsupported chain id 999/);
  });

  test('POST /api/nft/deploy deploys the platform through the tx sender and records it', async () => {
    const r = await adminCall(p, '/api/nft/deploy', { chainId: 31337 });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.success, true);
    assert.equal(r.body.deployed, true);
    assert.equal(r.body.stale, false);
    const d = r.body.deployment;
    assert.equal(d.chainId, 31337);
    assert.equal(d.deployer, DEV_ADDRESS);
    for (const k of RECORD_KEYS) assert.match(d.contracts[k], /^0x[0-9a-fA-F]{40}$/, k);
    factory = d.contracts.DiamondFactory;
    const file = JSON.parse(fs.readFileSync(path.join(p.deploymentsDir, '31337.json'), 'utf8'));
    assert.equal(file.contracts.DiamondFactory, factory);
    // Every creation went through the sender: twelve rows (ten facets, CollectionInit, the factory), mined, contiguous nonces.
    const rows = (await p.database.db.select().from(chainTransactions)).filter((x) => x.purpose.startsWith('deploy-platform:'));
    assert.equal(rows.length, 12);
    assert.ok(rows.every((x) => x.status === 'mined'));
    assert.deepEqual(
      rows.map((x) => x.nonce).sort((a, b) => a! - b!),
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
    );

    const again = await adminCall(p, '/api/nft/deploy', { chainId: 31337 });
    assert.equal(again.status, 200);
    assert.equal(again.body.deployed, false, 'a live deployment is not redeployed without force');
    assert.equal(again.body.deployment.contracts.DiamondFactory, factory);
    // No body at all: chainId defaults to 31337 (§8), as it does in the query of GET.
    const bare = await fetch(`${p.adminUrl}/api/nft/deploy`, { method: 'POST', headers: asService() });
    const bareBody = (await bare.json()) as { deployed: boolean; deployment: { chainId: number } };
    assert.equal(bare.status, 200, JSON.stringify(bareBody));
    assert.equal(bareBody.deployed, false);
    assert.equal(bareBody.deployment.chainId, 31337);

    const get = await adminCall(p, '/api/nft/deploy');
    assert.equal(get.status, 200);
    assert.equal(get.body.stale, false);
    assert.equal(get.body.error, undefined);
    assert.equal(get.body.deployment.contracts.DiamondFactory, factory);
  });

  test('GET /api/nft/factory reads the factory state (§2.8)', async () => {
    const r = await adminCall(p, '/api/nft/factory?chainId=31337');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.stale, false);
    const f = r.body.factory;
    assert.equal(f.address, factory);
    assert.equal(f.collectionCount, '0');
    assert.equal(f.owner, DEV_ADDRESS);
    const rec = (await adminCall(p, '/api/nft/deploy')).body.deployment.contracts;
    assert.equal(f.facets.diamondCutFacet, rec.DiamondCutFacet);
    assert.equal(f.facets.diamondLoupeFacet, rec.DiamondLoupeFacet);
    assert.equal(f.facets.ownershipFacet, rec.OwnershipFacet);
    assert.equal(f.facets.erc721Facet, rec.ERC721Facet);
    assert.equal(f.facets.mintFacet, rec.MintFacet);
    assert.equal(f.facets.collectionInit, rec.CollectionInit);
    const other = await adminCall(p, `/api/nft/factory?factoryAddress=${DEV_ADDRESS}`);
    assert.equal(other.status, 200);
    assert.equal(other.body.stale, true, 'an address without code is stale');
    assert.equal((await adminCall(p, '/api/nft/factory?factoryAddress=0x12')).status, 400);
  });

  test('collection deploy with platformCollectionId writes the address back', async () => {
    const created = await adminCall(p, '/api/nft/collections/create', {
      title: 'Reset Me',
      description: 'x',
      editions: 50,
      data: sampleData(),
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    collectionId = created.body.collection.id;
    const params = created.body.contractParams;
    const r = await adminCall(p, '/api/nft/collections', {
      chainId: 31337,
      name: params.name,
      symbol: params.symbol,
      baseURI: params.baseURI,
      contractURI: params.contractURI,
      maxSupply: String(params.maxSupply),
      platformCollectionId: collectionId,
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    contract = r.body.collection.address;
    assert.equal(r.body.collection.maxSupply, '50');
    assert.equal(r.body.collection.totalSupply, '0');
    assert.equal(r.body.collection.mintActive, true);
    assert.equal(r.body.collection.owner, DEV_ADDRESS);
    assert.equal(r.body.predictedAddress, contract, 'nothing else landed first: the prediction holds');
    assert.match(r.body.salt, /^0x[0-9a-f]{64}$/);
    const look = await adminCall(p, `/api/nft/collections/lookup?collectionId=${collectionId}`);
    const c = look.body.collection;
    assert.equal(c.contract_address, contract);
    assert.equal(c.chain_id, 31337);
    assert.equal(c.deploy_tx_hash, r.body.txHash);
    assert.equal(c.base_token_uri, params.baseURI);
    assert.equal(c.mint_status, 'deployed');
    // The on-chain read finds the collection id in contractURI.
    const read = await adminCall(p, `/api/nft/collections?addresses=${contract}`);
    assert.equal(read.body.collections[0].collectionId, collectionId);
    // A second deploy of the same record is refused before any gas is spent.
    const twice = await adminCall(p, '/api/nft/collections', { ...collectionParams(9), platformCollectionId: collectionId });
    assert.equal(twice.status, 409);
    assert.match(twice.body.error, /already deployed/);
  });

  test('reset is refused while the contract exists on chain', async () => {
    const r = await adminCall(p, '/api/nft/collections/reset', { collectionId });
    assert.equal(r.status, 409, JSON.stringify(r.body));
    assert.match(r.body.error, /still exists/);
  });

  test('after a chain restart without state: stale deployment, reset accepted, redeploy works', async () => {
    await p.resetChain();
    const d = await adminCall(p, '/api/nft/deploy?chainId=31337');
    assert.equal(d.status, 200);
    assert.equal(d.body.stale, true);
    assert.match(d.body.error, /no code/);
    assert.equal(d.body.deployment.contracts.DiamondFactory, factory);
    const f = await adminCall(p, '/api/nft/factory');
    assert.equal(f.body.stale, true);
    assert.match(f.body.error, /no code/);
    // Deploying a collection against a stale factory is a 409 naming the problem.
    const dep = await adminCall(p, '/api/nft/collections', collectionParams(2));
    assert.equal(dep.status, 409);
    assert.match(dep.body.error, /no code/);

    const reset = await adminCall(p, '/api/nft/collections/reset', { collectionId });
    assert.equal(reset.status, 200, JSON.stringify(reset.body));
    const [row] = await p.database.db.select().from(collections).where(eq(collections.id, collectionId));
    assert.equal(row!.contract_address, null);
    assert.equal(row!.chain_id, null);
    assert.equal(row!.deploy_tx_hash, null);
    assert.equal(row!.base_token_uri, null);
    assert.notEqual(row!.mint_status, 'deployed');

    // Recovery (§7.1): redeploy the platform, then the collection. The sender sees the reset
    // chain and starts nonces from the chain again instead of leaving a gap.
    const again = await adminCall(p, '/api/nft/deploy', { chainId: 31337 });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.deployed, true);
    assert.equal((await adminCall(p, '/api/nft/deploy')).body.stale, false);
    const params = (await adminCall(p, `/api/nft/collections/lookup?collectionId=${collectionId}`)).body.contractParams;
    const redeployed = await adminCall(p, '/api/nft/collections', {
      chainId: 31337,
      name: params.name,
      symbol: params.symbol,
      baseURI: params.baseURI,
      contractURI: params.contractURI,
      maxSupply: String(params.maxSupply),
      platformCollectionId: collectionId,
    });
    assert.equal(redeployed.status, 200, JSON.stringify(redeployed.body));
    assert.equal(redeployed.body.platformCollection.mint_status, 'deployed');
  });

  test('missing contract artifacts: 503 naming the command that rebuilds them', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-no-artifacts-'));
    const chain = createChainServices({
      config: p.config,
      db: p.database.db,
      deploymentsDir: empty,
      committedDeploymentsDir: empty,
      artifactsDir: empty,
    });
    const app = await buildAdmin({ ...p.config, BACKEND_API_URL: p.backendUrl }, { chain });
    try {
      const r = await app.inject({
        method: 'POST',
        url: '/api/nft/deploy',
        headers: asService(),
        payload: { chainId: 31337, force: true },
      });
      assert.equal(r.statusCode, 503);
      const body = r.json();
      assert.equal(body.success, false);
      assert.match(body.error, /npm run contracts:build/);
    } finally {
      await app.close();
      await chain.close();
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });

  test('deploy-status: service key only, validated, checked on chain', async () => {
    const created = await adminCall(p, '/api/nft/collections/create', {
      title: 'Status',
      description: '',
      editions: 5,
      data: sampleData(),
    });
    const id = created.body.collection.id;
    const dep = await adminCall(p, '/api/nft/collections', collectionParams(3));
    assert.equal(dep.status, 200, JSON.stringify(dep.body));
    const good = { contract_address: dep.body.collection.address, chain_id: 31337, deploy_tx_hash: dep.body.txHash };
    const missing = await backendCall(p, `/nft/collections/${id}/deploy-status`, { chain_id: 31337, deploy_tx_hash: dep.body.txHash });
    assert.equal(missing.status, 400);
    assert.match(missing.body.error, /contract_address/);
    const noCode = await backendCall(p, `/nft/collections/${id}/deploy-status`, { ...good, contract_address: DEV_ADDRESS });
    assert.equal(noCode.status, 400);
    assert.match(noCode.body.error, /contract_address: no contract code/);
    // A contract with code but not created by the factory in that tx (the factory itself).
    const notCreated = await backendCall(p, `/nft/collections/${id}/deploy-status`, {
      ...good,
      contract_address: (await adminCall(p, '/api/nft/deploy')).body.deployment.contracts.DiamondFactory,
    });
    assert.equal(notCreated.status, 400);
    assert.match(notCreated.body.error, /was not created by the platform factory/);
    const badTx = await backendCall(p, `/nft/collections/${id}/deploy-status`, { ...good, deploy_tx_hash: `0x${'ab'.repeat(32)}` });
    assert.equal(badTx.status, 400);
    assert.match(badTx.body.error, /deploy_tx_hash/);
    const nf = await backendCall(p, `/nft/collections/00000000-0000-4000-8000-000000000000/deploy-status`, good);
    assert.equal(nf.status, 404);
    const ok = await backendCall(p, `/nft/collections/${id}/deploy-status`, good);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.data.collection.mint_status, 'deployed');
    assert.equal(ok.body.data.collection.base_token_uri, `http://meta.test/collections/${id}/tokens/`);
    const same = await backendCall(p, `/nft/collections/${id}/deploy-status`, good);
    assert.equal(same.status, 200, 'the same write again is accepted');
    const other = await adminCall(p, '/api/nft/collections', collectionParams(4));
    const conflictR = await backendCall(p, `/nft/collections/${id}/deploy-status`, {
      contract_address: other.body.collection.address,
      chain_id: 31337,
      deploy_tx_hash: other.body.txHash,
    });
    assert.equal(conflictR.status, 409);
  });

  test('deploy-status with the contract address alone (§4.2 "carries at least the contract address")', async () => {
    const created = await adminCall(p, '/api/nft/collections/create', { title: 'Address only', editions: 9, data: sampleData() });
    const id = created.body.collection.id;
    const dep = await adminCall(p, '/api/nft/collections', collectionParams(5, { maxSupply: '9' }));
    assert.equal(dep.status, 200, JSON.stringify(dep.body));
    // Not a collection of the factory (the factory itself has code): refused, naming the address.
    const factoryAddress = (await adminCall(p, '/api/nft/deploy')).body.deployment.contracts.DiamondFactory;
    const notCreated = await backendCall(p, `/nft/collections/${id}/deploy-status`, { contract_address: factoryAddress });
    assert.equal(notCreated.status, 400);
    assert.match(notCreated.body.error, /contract_address: .* was not created by the platform factory/);
    // The chain is the backend's (31337), the transaction the factory's CollectionCreated of the address.
    const ok = await backendCall(p, `/nft/collections/${id}/deploy-status`, { contract_address: dep.body.collection.address });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const c = ok.body.data.collection;
    assert.equal(c.contract_address, dep.body.collection.address);
    assert.equal(c.chain_id, 31337);
    assert.equal(c.deploy_tx_hash, dep.body.txHash.toLowerCase());
    assert.equal(c.mint_status, 'deployed');
    assert.equal(c.max_supply, 9, "the contract's maxSupply");
    assert.equal(c.base_token_uri, `http://meta.test/collections/${id}/tokens/`);
  });
});

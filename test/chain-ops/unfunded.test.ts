/**
 * An unfunded platform wallet is the operator's problem, not the client's: deploys and mints answer
 * 503 with a message naming the wallet and its balance, on both apps (docs/security.md "No 5xx from any client input").
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DEV_ADDRESS } from '../../src/chain/wallet.ts';
import { asService, sampleData } from '../helpers/platform.ts';
import { adminCall, backendCall, collectionParams, deployFactory, startChainPlatform, type ChainPlatform } from './helpers.ts';

const rpc = async (url: string, method: string, params: unknown[]) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { error?: { message: string } };
  if (body.error) throw new Error(body.error.message);
};

const DESIGN_DEPLOY = { max_supply: 10, royalty_bps: 0, royalty_receiver: DEV_ADDRESS };

describe('unfunded platform wallet', { timeout: 90_000 }, () => {
  let p: ChainPlatform;
  let collectionId: string;
  let deployedId: string;
  before(async () => {
    p = await startChainPlatform();
    await deployFactory(p);
    const c = await backendCall(p, '/nft/collections', { title: 'broke', data: sampleData() }, asService({ user_id: 'u1' }));
    collectionId = c.body.data.collection.id;
    // One collection deployed while the wallet still has funds, to mint from afterwards.
    const d = await backendCall(p, '/nft/collections', { title: 'deployed', data: sampleData() }, asService({ user_id: 'u1' }));
    deployedId = d.body.data.collection.id;
    const dep = await backendCall(p, `/nft/collections/${deployedId}/deploy`, DESIGN_DEPLOY, asService({ user_id: 'u1' }));
    assert.equal(dep.status, 200, JSON.stringify(dep.body));
    // The wallet spends its last wei elsewhere.
    await rpc(p.anvil.rpcUrl, 'anvil_setBalance', [DEV_ADDRESS, '0x0']);
  });
  after(() => p?.close());

  test('admin collection deploy: 503 naming the wallet and saying it has no funds', async () => {
    const r = await adminCall(p, '/api/nft/collections', collectionParams(7));
    assert.equal(r.status, 503, JSON.stringify(r.body));
    assert.match(r.body.error, new RegExp(`platform wallet ${DEV_ADDRESS} has insufficient funds to pay for gas on chain 31337`));
  });

  test('backend collection deploy: 503 naming the wallet', async () => {
    const r = await backendCall(p, `/nft/collections/${collectionId}/deploy`, DESIGN_DEPLOY, asService({ user_id: 'u1' }));
    assert.equal(r.status, 503, JSON.stringify(r.body));
    assert.match(r.body.error, new RegExp(`platform wallet ${DEV_ADDRESS} has insufficient funds to pay for gas on chain 31337`));
  });

  test('mint: 503 naming the wallet, and no token is recorded', async () => {
    const r = await backendCall(p, `/nft/collections/${deployedId}/mint`, { recipient: DEV_ADDRESS }, asService({ user_id: 'u1' }));
    assert.equal(r.status, 503, JSON.stringify(r.body));
    assert.match(r.body.error, new RegExp(`platform wallet ${DEV_ADDRESS} has insufficient funds`));
    const mints = await backendCall(p, `/nft/collections/${deployedId}/mints`, undefined, asService({ user_id: 'u1' }));
    assert.equal(mints.status, 200);
    assert.deepEqual(mints.body.data.mints, [], 'no deck was given a token');
  });
});

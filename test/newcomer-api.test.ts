/**
 * What a newcomer hits through the API (docs/security.md "Addresses", docs/collections.md "Global
 * collections are tools", docs/chain.md "Chain names"), on a real anvil with the backend and the
 * admin proxy:
 *
 * - every address field, on both apps, takes lower case, upper case and a correct EIP-55
 *   checksum, and refuses a mixed-case address whose checksum is wrong with 400 naming the field
 *   and the checksummed form ("checksum mismatch: did you mean 0x…?");
 * - the built-in global collections (Animate, Variation) refuse deploy and mint with 409;
 * - records name their chain, a new collection's blockchain is the platform chain's family, and
 *   the admin session says which chain the platform deploys to;
 * - a trait keeps the case of the variable's name.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getAddress } from 'viem';
import { testConfig } from '../src/config.ts';
import { BUILTIN_GLOBAL_COLLECTIONS, seedBuiltinGlobalCollections } from '../src/db/global-collections.ts';
import { normalizeGenerationData } from '../src/domain/generation-data.ts';
import { createJobQueue } from '../src/generation/runtime.ts';
import type { StepPayload } from '../src/generation/pipeline.ts';
import type { WorkQueue } from '../src/queue/index.ts';
import { adminCall, backendCall, deployFactory, startChainPlatform, type ChainPlatform } from './chain-ops/helpers.ts';
import { asService, call, sampleData } from './helpers/platform.ts';

/** anvil account #1, checksummed; its last digit mistyped keeps the mixed case (wrong checksum). */
const GOOD = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const TYPO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C9';
const FORMS = { checksummed: GOOD, lower: GOOD.toLowerCase(), upper: `0x${GOOD.slice(2).toUpperCase()}` };
const MISMATCH = new RegExp(`checksum mismatch: did you mean ${getAddress(TYPO.toLowerCase())}\\?`);

describe('the newcomer through the API', { timeout: 300_000 }, () => {
  let p: ChainPlatform;
  let queue: WorkQueue<StepPayload> | undefined;
  let id = '';
  before(async () => {
    // A job queue (no worker): the mint routes answer only where generation is available.
    queue = createJobQueue(testConfig());
    p = await startChainPlatform({ env: { LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent' }, backend: { jobQueue: queue } });
    await deployFactory(p);
    await seedBuiltinGlobalCollections(p.database.db, normalizeGenerationData);
    const created = await adminCall(p, '/api/nft/collections/create', { title: 'Checked', editions: 5, data: sampleData() });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    id = created.body.collection.id;
  });
  after(async () => {
    await p?.close();
    await queue?.close();
  });

  const put = (url: string, body: unknown) => call(url, { method: 'PUT', headers: asService(), body });

  /** Each address field: how to send one value, on which app. */
  const fields: Array<{ name: string; field: RegExp; send: (a: string) => Promise<{ status: number; body: any }> }> = [
    {
      name: 'admin: update payout_address',
      field: /^body\.payout_address: /,
      send: (a) => put(`${p.adminUrl}/api/nft/collections/update`, { collectionId: id, payout_address: a }),
    },
    {
      name: 'backend: update mint_allowlist',
      field: /^body\.mint_allowlist\.0: /,
      send: (a) => put(`${p.backendUrl}/nft/collections/${id}`, { mint_allowlist: [a] }),
    },
    {
      name: 'admin: sample-status wallet_address (query)',
      field: /^query\.wallet_address: /,
      send: (a) => call(`${p.adminUrl}/api/nft/sample-status?collectionId=${id}&wallet_address=${a}`, { headers: asService() }),
    },
    {
      name: 'backend: collection list contract_address (query)',
      field: /^query\.contract_address: /,
      send: (a) => backendCall(p, `/nft/collections?contract_address=${a}`),
    },
    {
      name: 'admin: SIWE nonce address',
      field: /^body\.address: /,
      send: (a) => call(`${p.adminUrl}/api/nft/auth/siwe/nonce`, { body: { address: a } }),
    },
  ];

  for (const f of fields) {
    test(`${f.name}: lower, upper and checksummed accepted; a wrong checksum is 400 naming the field`, async () => {
      for (const [form, a] of Object.entries(FORMS)) {
        const r = await f.send(a);
        assert.ok(r.status < 300, `${form} ${a}: ${r.status} ${JSON.stringify(r.body)}`);
      }
      const r = await f.send(TYPO);
      assert.equal(r.status, 400, JSON.stringify(r.body));
      const error = String(r.body.error?.message ?? r.body.error);
      assert.match(error, f.field);
      assert.match(error, MISMATCH);
    });
  }

  test('mint, deploy and admin-action addresses: a wrong checksum is refused before anything is sent', async () => {
    const mint = await adminCall(p, '/api/nft/mint', { collectionId: id, recipient: TYPO });
    assert.equal(mint.status, 400);
    assert.match(mint.body.error, /^body\.recipient: checksum mismatch: did you mean 0x/);
    const backendMint = await backendCall(p, `/nft/collections/${id}/mint`, { recipient: TYPO });
    assert.equal(backendMint.status, 400);
    assert.match(backendMint.body.error.message ?? backendMint.body.error, /recipient: checksum mismatch/);
    const deploy = await adminCall(p, '/api/nft/collections/deploy', { collectionId: id, owner: TYPO });
    assert.equal(deploy.status, 400);
    assert.match(deploy.body.error, /^body\.owner: checksum mismatch/);
    const record = await adminCall(p, `/api/nft/collections/lookup?collectionId=${id}`);
    assert.equal(record.body.collection.status, 'draft', 'nothing was deployed');
    const action = await adminCall(p, '/api/nft/admin', {
      chainId: 31337,
      collectionAddress: GOOD,
      action: 'transferOwnership',
      value: TYPO,
    });
    assert.equal(action.status, 400);
    assert.match(action.body.error, /^body\.value: checksum mismatch/);
    const target = await adminCall(p, '/api/nft/admin', { chainId: 31337, collectionAddress: TYPO, action: 'setMintActive', value: true });
    assert.equal(target.status, 400);
    assert.match(target.body.error, /^body\.collectionAddress: checksum mismatch/);
    // A list of addresses puts a mistyped one among the invalid ones, as given.
    const list = await adminCall(p, `/api/nft/collections?chainId=31337&addresses=${TYPO}`);
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.invalidAddresses, [TYPO]);
  });

  test('the built-in global collections refuse deploy and mint with 409', async () => {
    for (const builtin of BUILTIN_GLOBAL_COLLECTIONS) {
      const deploy = await adminCall(p, '/api/nft/collections/deploy', { collectionId: builtin.id });
      assert.equal(deploy.status, 409, JSON.stringify(deploy.body));
      assert.match(deploy.body.error, new RegExp(`"${builtin.title}" is a global collection, a develop tool .* cannot be deployed`));
      const mint = await adminCall(p, '/api/nft/mint', { collectionId: builtin.id, recipient: GOOD });
      assert.equal(mint.status, 409, JSON.stringify(mint.body));
      assert.match(mint.body.error, /cannot be minted/);
      const viaBackend = await backendCall(p, `/nft/collections/${builtin.id}/deploy`, {});
      assert.equal(viaBackend.status, 409);
      const looked = await adminCall(p, `/api/nft/collections/lookup?collectionId=${builtin.id}`);
      assert.equal(looked.body.collection.is_global, true);
      assert.equal(looked.body.collection.status, 'draft');
    }
    const listed = await adminCall(p, '/api/nft/collections/list');
    const flags = Object.fromEntries(listed.body.collections.map((c: { title: string; is_global: boolean }) => [c.title, c.is_global]));
    assert.deepEqual([flags.Animate, flags.Variation, flags.Checked], [true, true, false]);
  });

  test('chains by name: the session names the platform chain, a new collection gets its family, a deployed one its name', async () => {
    const session = await adminCall(p, '/api/nft/session');
    assert.deepEqual(session.body.platform, { chain_id: 31337, chain_name: 'Local dev chain (31337)', blockchain: 'ARBITRUM' });
    const fresh = await adminCall(p, `/api/nft/collections/lookup?collectionId=${id}`);
    assert.equal(fresh.body.collection.blockchain, 'ARBITRUM');
    assert.equal(fresh.body.collection.chain_name, null, 'not deployed: no chain yet');
    const deployed = await adminCall(p, '/api/nft/collections/deploy', { collectionId: id });
    assert.equal(deployed.status, 200, JSON.stringify(deployed.body));
    const overview = await adminCall(p, `/api/nft/collections/overview?collectionId=${id}`);
    assert.equal(overview.body.collection.chain_name, 'Local dev chain (31337)');
    assert.equal(overview.body.chain.chain_id, overview.body.collection.chain_id);
    const listed = await adminCall(p, '/api/nft/collections/list?q=Checked');
    assert.equal(listed.body.collections[0].chain_name, 'Local dev chain (31337)');
  });

  test('a trait keeps the case the creator typed', async () => {
    const data = {
      version: 'v2',
      variables: [{ name: 'color', is_feature: true, value: [{ value: 'red', weight: 1 }] }],
      steps: [{ id: 1, nodeName: 'image', nodePayload: { intent: 'a $color cat' } }],
    };
    const created = await adminCall(p, '/api/nft/collections/create', { title: 'Lower', data });
    const variable = created.body.collection.data.variables.find((v: { name: string }) => v.name === 'color');
    assert.equal(variable.feature_name, 'color');
  });
});

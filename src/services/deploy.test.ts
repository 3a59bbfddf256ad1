import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getAddress, type Address } from 'viem';
import type { CollectionRow } from '../db/collections.ts';
import type { DeployTransaction } from '../db/deploy-claims.ts';
import { AppError, notFound } from '../domain/errors.ts';
import { createDeployService, DeployPending, deployKey, type DeployChain, type DeployStore } from './deploy.ts';
import { ALICE, BOB, OPERATOR, collectionRow } from '../../test/helpers/service-records.ts';

const FACTORY = getAddress('0x00000000000000000000000000000000000000fa');
const WALLET = getAddress('0x00000000000000000000000000000000000000aa');
const DIAMOND = getAddress('0x00000000000000000000000000000000000000d1');
const RECEIVER = getAddress('0x00000000000000000000000000000000000000b0');

/** The collections table and chain_transactions in memory, with the conditions of db/deploy-claims.ts. */
function memoryStore(rows: CollectionRow[], txs: DeployTransaction[] = []) {
  let clock = Date.parse('2025-01-01T00:00:00.000Z');
  const byId = new Map(rows.map((r) => [r.id, r]));
  const touch = (r: CollectionRow, f: Partial<CollectionRow>) => {
    clock += 1000;
    const next = { ...r, ...f, updated_at: new Date(clock) };
    byId.set(r.id, next);
    return next;
  };
  const store: DeployStore = {
    async linkedWalletOf() {
      return null;
    },
    async getCollection(id) {
      const r = byId.get(id);
      if (!r) throw notFound(`collection ${id}`);
      return r;
    },
    async claimDeploy(id) {
      const r = byId.get(id);
      if (!r || r.contract_address || r.mint_status === 'deploying') return undefined;
      return touch(r, { mint_status: 'deploying' });
    },
    async finishDeploy(id, write, condition) {
      const r = byId.get(id);
      if (!r || r.contract_address || (condition === 'claimed' && r.mint_status !== 'deploying')) return undefined;
      return touch(r, { ...write, mint_status: 'deployed' });
    },
    async releaseDeploy(id, claimedAt) {
      const r = byId.get(id);
      if (!r || r.mint_status !== 'deploying' || r.contract_address || r.updated_at.toISOString() !== claimedAt) return false;
      touch(r, { mint_status: 'draft' });
      return true;
    },
    async deployingCollections() {
      return [...byId.values()].filter((r) => r.mint_status === 'deploying' && !r.contract_address).map((r) => r.id);
    },
    async latestTransactionByKeyPrefix(prefixes) {
      return txs.filter((t) => prefixes.some((p) => t.idempotency_key?.startsWith(p))).at(-1);
    },
  };
  return { store, get: (id: string) => byId.get(id)!, txs };
}

function fakeChain(opts: { fail?: Error; stale?: boolean } = {}) {
  const sent: Array<{ key: string | undefined; maxSupply: bigint; owner: Address }> = [];
  const chain: DeployChain = {
    async factory() {
      return { factoryAddress: FACTORY, stale: opts.stale ?? false, ...(opts.stale ? { error: 'factory has no code' } : {}) };
    },
    walletAddress: () => WALLET,
    async deploy(_chainId, _factory, params, key) {
      sent.push({ key, maxSupply: params.maxSupply, owner: params.owner });
      if (opts.fail) throw opts.fail;
      return { address: DIAMOND, txHash: `0x${'AB'.repeat(32)}`, salt: '0x01', predictedAddress: DIAMOND };
    },
    async verifyCreated(_chainId, _contract, txHash) {
      return { txHash: txHash ?? `0x${'CD'.repeat(32)}`, maxSupply: undefined };
    },
    deploymentOf: (tx) =>
      tx.status === 'mined'
        ? {
            address: DIAMOND,
            chainId: tx.chain_id,
            txHash: tx.hash!,
            baseURI: 'http://meta/tokens/',
            maxSupply: 7,
            royaltyBps: 250,
            royaltyReceiver: RECEIVER,
          }
        : undefined,
  };
  return { chain, sent };
}

const body = { max_supply: 10, royalty_bps: 500, royalty_receiver: RECEIVER };
const service = (store: DeployStore, chain: DeployChain, now?: () => number) =>
  createDeployService({ store, chain, metadataBaseUrl: 'http://meta', chainId: 31337, now });

test('design deploy: claim, deploy under the claim key, write back; the platform wallet owns and mints', async () => {
  const c = collectionRow({ user_id: 'alice', title: 'Neon Dreams' });
  const { store, get } = memoryStore([c]);
  const { chain, sent } = fakeChain();
  const row = await service(store, chain).deployDesign(ALICE, c.id, body);
  assert.equal(row.contract_address, DIAMOND);
  assert.equal(row.mint_status, 'deployed');
  assert.equal(row.deploy_tx_hash, `0x${'ab'.repeat(32)}`);
  assert.equal(row.max_supply, 10);
  assert.equal(row.base_token_uri, `http://meta/collections/${c.id}/tokens/`);
  assert.equal(sent.length, 1);
  assert.match(sent[0]!.key!, new RegExp(`^deploy:${c.id}:\\d{4}-`));
  assert.equal(sent[0]!.owner, WALLET);
  assert.equal(get(c.id).mint_status, 'deployed');
});

test("design deploy: owner() is the owner given, else the creator's linked wallet, else the platform wallet", async () => {
  const linked = '0x00000000000000000000000000000000000000Cc' as Address;
  const chosen = '0x00000000000000000000000000000000000000dd' as Address;
  const [a, b, platform] = [collectionRow({ user_id: 'alice' }), collectionRow({ user_id: 'alice' }), collectionRow({ user_id: null })];
  const { store } = memoryStore([a, b, platform]);
  const asked: string[] = [];
  store.linkedWalletOf = async (userId) => {
    asked.push(userId);
    return linked;
  };
  const { chain, sent } = fakeChain();
  const svc = service(store, chain);
  await svc.deployDesign(ALICE, a.id, body);
  await svc.deployDesign(ALICE, b.id, { ...body, owner: chosen });
  await svc.deployDesign(OPERATOR, platform.id, body);
  assert.deepEqual(
    sent.map((s) => s.owner),
    [getAddress(linked), getAddress(chosen), WALLET],
  );
  assert.deepEqual(asked, ['alice'], 'a platform record has no creator to ask about');
});

test('policy: a platform record is deployed by the operator only; a user deploys their own', async () => {
  const platform = collectionRow({ user_id: null });
  const alices = collectionRow({ user_id: 'alice' });
  const { store } = memoryStore([platform, alices]);
  const { chain, sent } = fakeChain();
  const svc = service(store, chain);
  await assert.rejects(svc.deployDesign(ALICE, platform.id, body), (e) => e instanceof AppError && e.kind === 'forbidden');
  await assert.rejects(svc.deployDesign(BOB, alices.id, body), (e) => e instanceof AppError && e.kind === 'forbidden');
  assert.equal(sent.length, 0, 'nothing reached the chain');
  await svc.deployDesign(OPERATOR, platform.id, body);
  assert.equal(sent.length, 1);
});

test('a deployed record and a record being deployed are refused before the chain', async () => {
  const deployed = collectionRow({ contract_address: DIAMOND, chain_id: 31337, mint_status: 'deployed' });
  const { store } = memoryStore([deployed]);
  const { chain, sent } = fakeChain();
  await assert.rejects(service(store, chain).deployDesign(OPERATOR, deployed.id, body), /already deployed/);
  // A young claim with nothing sent: another request may still be at work.
  const busy = collectionRow({ mint_status: 'deploying', updated_at: new Date() });
  const second = memoryStore([busy]);
  await assert.rejects(service(second.store, chain).deployDesign(OPERATOR, busy.id, body), /being deployed/);
  assert.equal(sent.length, 0);
});

test('a refused deployment gives the claim back; a send not mined yet keeps it (503)', async () => {
  const a = collectionRow();
  const { store, get } = memoryStore([a]);
  await assert.rejects(
    service(store, fakeChain({ fail: new AppError('conflict', 'InvalidCollectionParams') }).chain).deployDesign(OPERATOR, a.id, body),
  );
  assert.equal(get(a.id).mint_status, 'draft');
  await assert.rejects(
    service(store, fakeChain({ fail: new DeployPending('0xfeed') }).chain).deployDesign(OPERATOR, a.id, body),
    (e) => e instanceof AppError && e.kind === 'unavailable' && /0xfeed/.test(e.message),
  );
  assert.equal(get(a.id).mint_status, 'deploying');
});

test('a stale factory is 503 before the claim', async () => {
  const a = collectionRow();
  const { store, get } = memoryStore([a]);
  await assert.rejects(
    service(store, fakeChain({ stale: true }).chain).deployDesign(OPERATOR, a.id, body),
    (e) => e instanceof AppError && e.kind === 'unavailable',
  );
  assert.equal(get(a.id).mint_status, 'draft');
});

test('recover: a mined transaction of the claim finishes the record from the chain, once', async () => {
  const claimedAt = new Date('2025-01-01T00:00:00.000Z');
  const c = collectionRow({ mint_status: 'deploying', updated_at: claimedAt });
  const tx: DeployTransaction = {
    idempotency_key: deployKey(c.id, claimedAt.toISOString()),
    status: 'mined',
    chain_id: 31337,
    hash: '0xaa',
    to_address: FACTORY,
    data: '0x',
    receipt: {},
  };
  const { store, get } = memoryStore([c], [tx]);
  const svc = service(store, fakeChain().chain);
  // A later deploy of the record answers the deployment that happened, not a second one.
  const row = await svc.deployDesign(OPERATOR, c.id, body);
  assert.equal(row.contract_address, DIAMOND);
  assert.equal(row.max_supply, 7, 'parameters from the transaction');
  assert.equal(get(c.id).royalty_receiver, RECEIVER);
  assert.equal(await svc.recover(c.id), 'none');
});

test('recover: a failed transaction releases at once; no transaction only after the grace period', async () => {
  const claimedAt = new Date('2025-01-01T00:00:00.000Z');
  const failed = collectionRow({ mint_status: 'deploying', updated_at: claimedAt });
  const silent = collectionRow({ mint_status: 'deploying', updated_at: claimedAt });
  const txs: DeployTransaction[] = [
    {
      idempotency_key: deployKey(failed.id, claimedAt.toISOString()),
      status: 'failed',
      chain_id: 31337,
      hash: null,
      to_address: null,
      data: null,
      receipt: null,
    },
  ];
  const { store, get } = memoryStore([failed, silent], txs);
  let now = claimedAt.getTime() + 60_000;
  const svc = service(store, fakeChain().chain, () => now);
  assert.deepEqual(await svc.recoverAll(), { finished: 0, released: 1 });
  assert.equal(get(failed.id).mint_status, 'draft');
  assert.equal(get(silent.id).mint_status, 'deploying', 'young claim left alone');
  now = claimedAt.getTime() + 600_000;
  assert.deepEqual(await svc.recoverAll(), { finished: 0, released: 1 });
  assert.equal(get(silent.id).mint_status, 'draft');
});

test('recover: a mined deployment of an earlier claim (the record was reset since) never finishes a new claim', async () => {
  const firstClaim = new Date('2025-01-01T00:00:00.000Z');
  const secondClaim = new Date('2025-01-02T00:00:00.000Z');
  const c = collectionRow({ mint_status: 'deploying', updated_at: secondClaim });
  const old: DeployTransaction = {
    idempotency_key: deployKey(c.id, firstClaim.toISOString()),
    status: 'mined',
    chain_id: 31337,
    hash: '0xaa',
    to_address: FACTORY,
    data: '0x',
    receipt: {},
  };
  const { store, get } = memoryStore([c], [old]);
  let now = secondClaim.getTime() + 1000;
  const svc = service(store, fakeChain().chain, () => now);
  assert.equal(await svc.recover(c.id), 'pending', 'a young claim: its request may still be sending');
  assert.equal(get(c.id).contract_address, null, 'the vanished contract is not written back');
  now = secondClaim.getTime() + 600_000;
  assert.equal(await svc.recover(c.id), 'released');
  assert.equal(get(c.id).mint_status, 'draft');
});

test('deploy-status: claim, release and write-back are the operator’s; the same write again is accepted', async () => {
  const c = collectionRow({ user_id: 'alice' });
  const { store, get } = memoryStore([c]);
  // A minute after the fake store's clock: the claim is young.
  const svc = service(store, fakeChain().chain, () => Date.parse('2025-01-01T00:01:00.000Z'));
  await assert.rejects(svc.updateStatus(ALICE, c.id, { status: 'deploying' }), (e) => e instanceof AppError && e.kind === 'forbidden');
  const { claimedAt } = await svc.updateStatus(OPERATOR, c.id, { status: 'deploying' });
  assert.equal(get(c.id).mint_status, 'deploying');
  await assert.rejects(svc.updateStatus(OPERATOR, c.id, { status: 'deploying' }), /being deployed/);
  await svc.updateStatus(OPERATOR, c.id, { status: 'draft', claimed_at: claimedAt! });
  assert.equal(get(c.id).mint_status, 'draft');
  const write = { status: 'deployed' as const, contract_address: DIAMOND, chain_id: 31337, deploy_tx_hash: '0xAB' };
  const { row } = await svc.updateStatus(OPERATOR, c.id, write);
  assert.equal(row.deploy_tx_hash, '0xab');
  assert.equal(row.base_token_uri, `http://meta/collections/${c.id}/tokens/`);
  assert.equal((await svc.updateStatus(OPERATOR, c.id, write)).row.contract_address, DIAMOND);
  await assert.rejects(
    svc.updateStatus(OPERATOR, c.id, { ...write, contract_address: RECEIVER }),
    (e) => e instanceof AppError && e.kind === 'conflict',
  );
});

/**
 * Freezing's decisions (docs/permanence.md "Freezing") over fake ports, for the cases the
 * anvil test cannot stage: a contract frozen at other URIs, and a concurrent request freezing it
 * between the read and the send.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../domain/errors.ts';
import { createFreezeService, type FreezeChain, type FreezeStore } from './freeze.ts';
import type { ExportCollection } from './permanence.ts';

const ROOT = 'bafybeihkoviema7g3gxyt6la7vd5ho32ictqbilu3wnlo3rs7ewhnp7lly';
const CONTRACT = `0x${'ab'.repeat(20)}`;
const PLATFORM = `0x${'cd'.repeat(20)}`;
const operator = { kind: 'service' as const, userId: null };

const collection: ExportCollection = {
  id: '00000000-0000-4000-8000-000000000001',
  user_id: null,
  title: 'T',
  description: '',
  editions: 2,
  tokens_minted: 2,
  mint_status: 'deployed',
  contract_address: CONTRACT,
  chain_id: 31337,
  frozen_at: null,
};

const OLDER = 'bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi';

function setup(chain: Partial<FreezeChain>, opts: { minted?: number[]; pinTarget?: boolean; pinStatus?: string } = {}) {
  const recorded: Array<{ rootCid: string }> = [];
  const claims: { holder?: string } = {};
  const ready = {
    id: 'e1',
    collection_id: collection.id,
    status: 'ready',
    closed_reason: 'sold_out',
    root_cid: ROOT,
    images_cid: ROOT,
    car_key: 'k',
    car_bytes: 1,
    token_count: 2,
    error: null,
    created_at: new Date(),
    finished_at: new Date(),
    pin_status: opts.pinStatus ?? 'none',
    pin_error: null,
  };
  const older = { ...ready, id: 'e0', root_cid: OLDER };
  const store = {
    getCollection: async () => collection,
    mintedTokenIds: async () => opts.minted ?? [1, 2],
    readyExportByCid: async (cid: string) => (cid === ROOT ? ready : cid === OLDER ? older : undefined),
    latestReadyExport: async () => ready,
    latestExport: async () => ready,
    recordFrozen: async (w: { rootCid: string }) => {
      recorded.push(w);
      return { frozen_at: new Date() };
    },
    claimFreeze: async (_id: string, holder: string) => {
      if (claims.holder) return false;
      claims.holder = holder;
      return true;
    },
    releaseFreeze: async (_id: string, holder: string) => {
      if (claims.holder === holder) claims.holder = undefined;
    },
  } as unknown as FreezeStore;
  const freezeChain: FreezeChain = {
    owner: async () => PLATFORM,
    platformWallet: () => PLATFORM,
    metadataFrozen: async () => false,
    tokenURI: async () => '',
    contractURI: async () => '',
    supply: async () => ({ total: 2, max: 2 }),
    send: async () => ({ txHash: `0x${'11'.repeat(32)}` }),
    encode: () => '0x',
    ...chain,
  };
  const service = createFreezeService({ store, freezeChain, pinRequired: Boolean(opts.pinTarget) });
  return { service, recorded, claims };
}

const conflictCode = (code: string, message: RegExp) => (e: unknown) =>
  e instanceof AppError && e.kind === 'conflict' && e.extra?.code === code && message.test(e.message);

test('a contract already frozen at other URIs is 409 ALREADY_FROZEN naming what the chain holds; nothing is recorded', async () => {
  const { service, recorded } = setup({
    metadataFrozen: async () => true,
    tokenURI: async () => 'https://elsewhere.example/1',
    contractURI: async () => 'https://elsewhere.example/c.json',
  });
  await assert.rejects(
    service.freeze(operator, collection.id),
    conflictCode('ALREADY_FROZEN', /not at a bundle of this collection.*tokenURI\(1\) is https:\/\/elsewhere\.example\/1/),
  );
  assert.deepEqual(recorded, []);
});

test('a contract frozen at this bundle (by its owner, or before a crash) is recorded without a transaction', async () => {
  const sent: string[] = [];
  const { service, recorded } = setup({
    metadataFrozen: async () => true,
    tokenURI: async () => `ipfs://${ROOT}/metadata/1`,
    contractURI: async () => `ipfs://${ROOT}/contract.json`,
    send: async (_c, _a, action) => {
      sent.push(action);
      return { txHash: '0x' };
    },
  });
  const v = await service.freeze(operator, collection.id);
  assert.equal(v.tx_hash, null);
  assert.deepEqual(v.transactions, []);
  assert.deepEqual(sent, []);
  assert.equal(recorded.length, 1);
});

test('a request that finds the contract frozen by another at its freezeMetadata send is 409 ALREADY_FROZEN', async () => {
  const { service, recorded } = setup({
    send: async (_c, _a, action) => {
      if (action === 'freezeMetadata') {
        throw new AppError('conflict', 'freezeMetadata refused by the contract: MetadataIsFrozen()', {
          revert: { name: 'MetadataIsFrozen', args: [], reason: null },
        });
      }
      return { txHash: `0x${'22'.repeat(32)}` };
    },
  });
  await assert.rejects(service.freeze(operator, collection.id), conflictCode('ALREADY_FROZEN', /frozen meanwhile/));
  assert.deepEqual(recorded, []);
});

test('a contract frozen at an older export of this collection (a request cut off, then exported again) is recorded at that root', async () => {
  const { service, recorded } = setup({
    metadataFrozen: async () => true,
    tokenURI: async () => `ipfs://${OLDER}/metadata/1`,
    contractURI: async () => `ipfs://${OLDER}/contract.json`,
  });
  const v = await service.freeze(operator, collection.id);
  assert.equal(v.root_cid, OLDER);
  assert.deepEqual(
    recorded.map((r) => r.rootCid),
    [OLDER],
  );
});

test('an export made before later mints is 409 EXPORT_STALE; nothing is sent', async () => {
  const sent: string[] = [];
  const { service, recorded } = setup(
    {
      send: async (_c, _a, action) => {
        sent.push(action);
        return { txHash: '0x' };
      },
    },
    { minted: [1, 2, 3] },
  );
  await assert.rejects(service.freeze(operator, collection.id), conflictCode('EXPORT_STALE', /holds 2 tokens but 3 are minted/));
  assert.deepEqual(sent, []);
  assert.deepEqual(recorded, []);
});

test('with a pin target, an export not pinned yet is 409 NOT_PINNED; once pinned it freezes', async () => {
  await assert.rejects(
    setup({}, { pinTarget: true, pinStatus: 'failed' }).service.freeze(operator, collection.id),
    conflictCode('NOT_PINNED', /not pinned yet \(pin_status failed/),
  );
  const ok = await setup({}, { pinTarget: true, pinStatus: 'pinned' }).service.freeze(operator, collection.id);
  assert.equal(ok.root_cid, ROOT);
});

test('a second request while one is sending is 409 FREEZE_IN_PROGRESS; the claim is given back after success and after failure', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const sent: string[] = [];
  const { service, claims } = setup({
    send: async (_c, _a, action) => {
      sent.push(action);
      if (action === 'setBaseURI') await gate;
      return { txHash: `0x${'33'.repeat(32)}` };
    },
  });
  const first = service.freeze(operator, collection.id);
  while (sent.length === 0) await new Promise((r) => setImmediate(r));
  await assert.rejects(service.freeze(operator, collection.id), conflictCode('FREEZE_IN_PROGRESS', /being frozen by another request/));
  assert.deepEqual(sent, ['setBaseURI'], 'the refused request sent nothing');
  release();
  assert.equal((await first).transactions.length, 3);
  assert.equal(claims.holder, undefined, 'released after success');

  const failing = setup({
    send: async () => {
      throw new AppError('upstream', 'the node went away');
    },
  });
  await assert.rejects(failing.service.freeze(operator, collection.id), /the node went away/);
  assert.equal(failing.claims.holder, undefined, 'released after a failure');
});

test('a contract that could mint more gets setMaxSupply(totalSupply) first; a contract with tokens the export lacks is 409 EXPORT_STALE', async () => {
  const sent: Array<[string, unknown]> = [];
  const { service } = setup({
    supply: async () => ({ total: 2, max: 10 }),
    send: async (_c, _a, action, value) => {
      sent.push([action, value]);
      return { txHash: `0x${'44'.repeat(32)}` };
    },
  });
  const v = await service.freeze(operator, collection.id);
  assert.deepEqual(
    sent.map(([a]) => a),
    ['setMaxSupply', 'setBaseURI', 'setContractURI', 'freezeMetadata'],
  );
  assert.deepEqual(sent[0], ['setMaxSupply', '2']);
  assert.equal(v.tx_hash, v.transactions.at(-1)!.tx_hash, "tx_hash is freezeMetadata's");

  const owned = setup({ supply: async () => ({ total: 2, max: 10 }), owner: async () => `0x${'ef'.repeat(20)}` });
  await assert.rejects(owned.service.freeze(operator, collection.id), (e: unknown) => {
    const calls = (e as AppError).extra?.calls as Array<{ function: string }>;
    return (
      (e as AppError).extra?.code === 'OWNER_MUST_SIGN' && calls.map((c) => c.function)[0] === 'setMaxSupply(uint256)' && calls.length === 4
    );
  });

  const behind = setup({
    supply: async () => ({ total: 3, max: 3 }),
    send: async (_c, _a, action) => (sent.push([action, 'x']), { txHash: '0x' }),
  });
  sent.length = 0;
  await assert.rejects(
    behind.service.freeze(operator, collection.id),
    conflictCode('EXPORT_STALE', /has minted 3 tokens but the export holds 2/),
  );
  assert.deepEqual(sent, [], 'nothing sent');
});

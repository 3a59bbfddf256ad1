/**
 * Freezing's decisions (docs/permanence.md "Freezing") over fake ports, for the cases the
 * anvil test cannot stage: a contract frozen at other URIs, and a concurrent request freezing it
 * between the read and the send.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../domain/errors.ts';
import { createPermanenceService, type ExportCollection, type FreezeChain, type PermanenceStore } from './permanence.ts';

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

function setup(chain: Partial<FreezeChain>) {
  const recorded: unknown[] = [];
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
  };
  const store = {
    getCollection: async () => collection,
    mintedTokenIds: async () => [1, 2],
    latestReadyExport: async () => ready,
    latestExport: async () => ready,
    recordFrozen: async (w: unknown) => {
      recorded.push(w);
      return { frozen_at: new Date() };
    },
  } as unknown as PermanenceStore;
  const freezeChain: FreezeChain = {
    owner: async () => PLATFORM,
    platformWallet: () => PLATFORM,
    metadataFrozen: async () => false,
    tokenURI: async () => '',
    contractURI: async () => '',
    send: async () => ({ txHash: `0x${'11'.repeat(32)}` }),
    encode: () => '0x',
    ...chain,
  };
  const service = createPermanenceService({
    store,
    documents: { token: async () => ({ body: '{}' }), collection: async () => ({ body: '{}' }) },
    receipts: { receipt: async () => ({}) as never },
    publicBaseUrl: 'http://b.test',
    freezeChain,
  });
  return { service, recorded };
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
    conflictCode('ALREADY_FROZEN', /not at this collection's bundle.*tokenURI\(1\) is https:\/\/elsewhere\.example\/1/),
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

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CollectionRow } from '../db/collections.ts';
import { AppError, notFound } from '../domain/errors.ts';
import type { GenerationData } from '../domain/generation-data.ts';
import type { ConceptExpander } from '../generation/concept/index.ts';
import { createCollectionService, type CollectionStore } from './collections.ts';
import { ALICE, BOB, OPERATOR, collectionRow } from '../../test/helpers/service-records.ts';

const data: GenerationData = {
  version: 'v2',
  steps: [],
  generations: { hashes: [], generations: 0, use_custom_hashes: false },
  variables: [],
};

function world(rows: CollectionRow[] = [], contractExists?: (chainId: number, address: string) => Promise<boolean>) {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const store: CollectionStore = {
    async createCollection(input) {
      const row = collectionRow({ title: input.title, editions: input.editions, user_id: input.userId, data: input.data });
      byId.set(row.id, row);
      return row;
    },
    async getCollection(id) {
      const r = byId.get(id);
      if (!r) throw notFound(`collection ${id}`);
      return r;
    },
    async updateCollection(id, patch) {
      const r = { ...byId.get(id)!, ...patch };
      byId.set(id, r);
      return r;
    },
    async resetCollection(id) {
      const r = { ...byId.get(id)!, contract_address: null, chain_id: null, mint_status: 'draft', tokens_minted: 0 };
      byId.set(id, r);
      return r;
    },
  };
  const expander: ConceptExpander = {
    kind: 'offline',
    expand: async (req) => ({ title: `About ${req.concept}`, description: 'd', prompt: 'p', variables: [], data }),
  };
  return { svc: createCollectionService({ store, expander, contractExists }), byId };
}

const forbidden = (e: unknown) => e instanceof AppError && e.kind === 'forbidden';
const input = { title: 'T', description: '', editions: 5, price: 0, blockchain: 'ARBITRUM', data };

test('a collection belongs to its creator: the user, the user a service call names, or the platform', async () => {
  const { svc } = world();
  assert.equal((await svc.create(ALICE, input)).user_id, 'alice');
  assert.equal((await svc.create({ kind: 'service', userId: 'carol' }, input)).user_id, 'carol');
  assert.equal((await svc.create(OPERATOR, input)).user_id, null);
  await assert.rejects(svc.create({ kind: 'anonymous' }, input), (e) => e instanceof AppError && e.kind === 'unauthorized');
});

test('update and reset: the owner or the operator; a platform collection only the operator', async () => {
  const alices = collectionRow({ user_id: 'alice' });
  const platform = collectionRow({ user_id: null });
  const { svc } = world([alices, platform]);
  await assert.rejects(svc.update(BOB, alices.id, { title: 'x' }), forbidden);
  await assert.rejects(svc.update(ALICE, platform.id, { title: 'x' }), forbidden);
  await assert.rejects(svc.reset(ALICE, platform.id), forbidden);
  assert.equal((await svc.update(ALICE, alices.id, { title: 'mine' })).title, 'mine');
  assert.equal((await svc.update(OPERATOR, platform.id, { title: 'ours' })).title, 'ours');
  assert.equal((await svc.reset(OPERATOR, platform.id)).mint_status, 'draft');
});

test('update: at least one field; editions fixed once deployed and never below the tokens minted', async () => {
  const deployed = collectionRow({ contract_address: '0x1', chain_id: 31337, editions: 10 });
  const minted = collectionRow({ tokens_minted: 4 });
  const { svc } = world([deployed, minted]);
  await assert.rejects(
    svc.update(OPERATOR, deployed.id, {}),
    (e) => e instanceof AppError && e.kind === 'invalid' && /at least one/.test(e.message),
  );
  await assert.rejects(svc.update(OPERATOR, deployed.id, { editions: 11 }), /setMaxSupply/);
  assert.equal((await svc.update(OPERATOR, deployed.id, { editions: 10, title: 'same editions' })).title, 'same editions');
  await assert.rejects(svc.update(OPERATOR, minted.id, { editions: 3 }), /below the 4 tokens/);
});

test('reset is refused while the contract still has code; allowed once it is gone', async () => {
  const c = collectionRow({ contract_address: '0xabc', chain_id: 31337, mint_status: 'deployed' });
  let exists = true;
  const { svc } = world([c], async () => exists);
  await assert.rejects(svc.reset(OPERATOR, c.id), (e) => e instanceof AppError && e.kind === 'conflict' && /still exists/.test(e.message));
  exists = false;
  assert.equal((await svc.reset(OPERATOR, c.id)).contract_address, null);
});

test('generate: the definition alone, or saved as a collection of the caller', async () => {
  const { svc, byId } = world();
  const only = await svc.generate(ALICE, { concept: 'cats', save: false, blockchain: 'ARBITRUM' });
  assert.equal(only.generated.title, 'About cats');
  assert.equal(only.collection, undefined);
  assert.equal(byId.size, 0);
  const saved = await svc.generate(ALICE, { concept: 'dogs', save: true, blockchain: 'BASE' });
  assert.equal(saved.collection?.user_id, 'alice');
  assert.equal(saved.collection?.editions, 100);
  assert.deepEqual(await svc.setup('birds'), data);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DeckDetail, DeckRow } from '../db/decks.ts';
import { AppError } from '../domain/errors.ts';
import type { Caller } from '../domain/policy.ts';
import { createDeckService, type DeckPorts } from './decks.ts';

const alice: Caller = { kind: 'user', userId: 'alice' };
const bob: Caller = { kind: 'user', userId: 'bob' };
const carol: Caller = { kind: 'user', userId: 'carol' }; // owns the collection
const operator: Caller = { kind: 'service', userId: null };

function fakes() {
  const decks = new Map<string, DeckRow & { collection_owner_id: string | null }>([
    [
      'd-alice',
      { id: 'd-alice', user_id: 'alice', status: 'active', collection_owner_id: 'carol' } as DeckRow & { collection_owner_id: string },
    ],
    [
      'd-platform',
      { id: 'd-platform', user_id: null, status: 'active', collection_owner_id: 'carol' } as DeckRow & { collection_owner_id: string },
    ],
  ]);
  const writes: string[] = [];
  const change = (what: string) => async (id: string) => {
    writes.push(`${what} ${id}`);
    return decks.get(id)!;
  };
  const ports: DeckPorts = {
    get: async (id) => {
      const d = decks.get(id);
      if (!d) throw new AppError('not_found', `deck ${id} not found`);
      return d;
    },
    detail: async (id) => ({ deck: decks.get(id)!, collection: { id: 'c', title: 'C', cover_image_url: null }, outputs: [] }) as DeckDetail,
    create: async (input) => {
      writes.push(`create ${input.userId}`);
      return { id: 'new', user_id: input.userId } as DeckRow;
    },
    update: async (id, patch) => {
      writes.push(`update ${id} ${JSON.stringify(patch)}`);
      return decks.get(id)!;
    },
    archive: change('archive'),
    publish: change('publish'),
    lock: change('lock'),
    stats: async () => ({ byStatus: { completed: 0, pending: 0, failed: 0, processing: 0 } }),
    listForCollection: async () => [],
    listForUser: async (userId) => {
      writes.push(`list ${userId}`);
      return [];
    },
  };
  return { service: createDeckService(ports), writes };
}

const forbidden = (p: Promise<unknown>) => assert.rejects(p, (e: unknown) => e instanceof AppError && e.kind === 'forbidden');

test("the deck's owner, the collection's owner and the operator change a deck; others get 403", async () => {
  const { service, writes } = fakes();
  await service.update(alice, 'd-alice', { name: 'mine' });
  await service.publish(carol, 'd-alice');
  await service.lock(operator, 'd-alice');
  await forbidden(service.archive(bob, 'd-alice'));
  await forbidden(service.update(bob, 'd-alice', { status: 'locked' }));
  assert.deepEqual(writes, ['update d-alice {"name":"mine"}', 'publish d-alice', 'lock d-alice']);
});

test('a platform deck (no owner) is changed by the operator only, not even by the collection’s owner', async () => {
  const { service, writes } = fakes();
  await forbidden(service.update(carol, 'd-platform', { name: 'x' }));
  await forbidden(service.archive(alice, 'd-platform'));
  await service.archive(operator, 'd-platform');
  assert.deepEqual(writes, ['archive d-platform']);
});

test('an empty patch is a 400 before any lookup; an unknown deck is 404', async () => {
  const { service, writes } = fakes();
  await assert.rejects(
    service.update(alice, 'nope', {}),
    (e: unknown) => e instanceof AppError && e.kind === 'invalid' && /^body: /.test(e.message),
  );
  await assert.rejects(service.update(alice, 'nope', { name: 'x' }), (e: unknown) => e instanceof AppError && e.kind === 'not_found');
  assert.deepEqual(writes, []);
});

test('a new deck and "my decks" are the caller’s, or the user a service call names; nobody named is 401', async () => {
  const { service, writes } = fakes();
  await service.create(bob, { collection_id: 'c' });
  await service.create({ kind: 'service', userId: 'dora' }, { collection_id: 'c' });
  await service.mine(alice, {});
  await assert.rejects(service.mine(operator, {}), (e: unknown) => e instanceof AppError && e.kind === 'unauthorized');
  assert.deepEqual(writes, ['create bob', 'create dora', 'list alice']);
});

test("a minted deck's new cover drops the token's document from the metadata caches; other changes do not", async () => {
  const changed: string[] = [];
  const rows: Record<string, DeckRow & { collection_owner_id: string | null }> = {
    minted: {
      id: 'minted',
      user_id: 'alice',
      collection_id: 'c1',
      token_id: 7,
      status: 'active',
      collection_owner_id: 'alice',
    } as DeckRow & {
      collection_owner_id: string;
    },
    plain: {
      id: 'plain',
      user_id: 'alice',
      collection_id: 'c1',
      token_id: null,
      status: 'active',
      collection_owner_id: 'alice',
    } as DeckRow & {
      collection_owner_id: string;
    },
  };
  const ports: Pick<DeckPorts, 'get' | 'update' | 'tokenChanged'> = {
    get: async (id) => rows[id]!,
    update: async (id) => rows[id]!,
    tokenChanged: (collectionId, tokenId) => changed.push(`${collectionId}:${tokenId}`),
  };
  const service = createDeckService(ports as DeckPorts);
  await service.update(alice, 'minted', { name: 'renamed' });
  assert.deepEqual(changed, [], 'a new name leaves the document as it was');
  await service.update(alice, 'plain', { cover_output_id: 'o2' });
  assert.deepEqual(changed, [], 'a deck that is not a token has no document');
  await service.update(alice, 'minted', { cover_output_id: 'o2' });
  assert.deepEqual(changed, ['c1:7']);
});

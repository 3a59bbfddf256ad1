import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { DeckRow } from '../db/decks.ts';
import type { OutputDetail, OutputRow } from '../db/outputs.ts';
import { AppError } from '../domain/errors.ts';
import type { Caller } from '../domain/policy.ts';
import { createOutputService, type OutputPorts } from './outputs.ts';

const operator: Caller = { kind: 'service', userId: 'alice' };
const alice: Caller = { kind: 'user', userId: 'alice' };
const bob: Caller = { kind: 'user', userId: 'bob' };
const carol: Caller = { kind: 'user', userId: 'carol' }; // owns the collection

type Owned<T> = T & { collection_owner_id: string | null };

const output = (id: string, user_id: string | null, over: Partial<OutputRow> = {}): Owned<OutputRow> =>
  ({
    id,
    user_id,
    collection_id: 'col',
    status: 'pending',
    url: null,
    thumbnail_url: null,
    mime_type: null,
    deck_id: null,
    collection_owner_id: 'carol',
    ...over,
  }) as Owned<OutputRow>;

const deck = (id: string, user_id: string | null, over: Partial<DeckRow> = {}): Owned<DeckRow> =>
  ({ id, user_id, collection_id: 'col', status: 'active', collection_owner_id: 'carol', ...over }) as Owned<DeckRow>;

/** In-memory outputs and decks; every write is recorded. */
function fakes(opts: { thumbnails?: OutputPorts['thumbnails'] } = {}) {
  const outputs = new Map<string, Owned<OutputRow>>([
    ['o-alice', output('o-alice', 'alice')],
    ['o-platform', output('o-platform', null)],
    ['o-hidden', output('o-hidden', 'alice', { status: 'hidden' })],
  ]);
  const decks = new Map<string, Owned<DeckRow>>([
    ['d-alice', deck('d-alice', 'alice')],
    ['d-platform', deck('d-platform', null)],
    ['d-elsewhere', deck('d-elsewhere', 'alice', { collection_id: 'other' })],
  ]);
  const writes: string[] = [];
  const logs: string[] = [];
  const find = (id: string) => {
    const o = outputs.get(id);
    if (!o) throw new AppError('not_found', `output ${id} not found`);
    return o;
  };
  const write = (what: string, id: string, change: Partial<OutputRow>) => {
    writes.push(`${what} ${id}`);
    const row = { ...find(id), ...change };
    outputs.set(id, row);
    return row;
  };
  const ports: OutputPorts = {
    outputs: {
      get: async (id) => find(id),
      detail: async (id) => {
        const o = find(id);
        return { output: o, deck: null, collection: { id: 'col', title: 'C' }, collectionOwnerId: o.collection_owner_id } as OutputDetail;
      },
      create: async (input) => {
        writes.push(`create ${input.userId} ${input.deck_id ?? '-'}`);
        return output('new', input.userId);
      },
      complete: async (id, c) => write('complete', id, { status: 'completed', url: c.url, mime_type: c.mime_type ?? null }),
      fail: async (id) => write('fail', id, { status: 'failed' }),
      hide: async (id) => write('hide', id, { status: 'hidden' }),
      move: async (id, deckId) => write('move', id, { deck_id: deckId }),
      setThumbnail: async (id, url) => void write('thumbnail', id, { thumbnail_url: url }),
      list: async () => [],
      stats: async () => ({ total: 0, byStatus: { completed: 0, pending: 0, failed: 0, hidden: 0, processing: 0 } }),
    },
    decks: {
      get: async (id) => {
        const d = decks.get(id);
        if (!d) throw new AppError('not_found', `deck ${id} not found`);
        return d;
      },
    },
    ...(opts.thumbnails ? { thumbnails: opts.thumbnails } : {}),
    log: (msg) => void logs.push(msg),
  };
  return { service: createOutputService(ports), writes, logs };
}

async function rejectsWith(p: Promise<unknown>, kind: string, message?: RegExp) {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof AppError, String(e));
    assert.equal(e.kind, kind, e.message);
    if (message) assert.match(e.message, message);
    return true;
  });
}

describe('who changes an output', () => {
  test("the owner, the collection's owner and the operator; anyone else 403 and nothing is written", async () => {
    const { service, writes } = fakes();
    await service.fail(alice, 'o-alice', 'x');
    await service.hide(carol, 'o-alice');
    await service.hide(operator, 'o-alice');
    await rejectsWith(service.hide(bob, 'o-alice'), 'forbidden', /only the owner/);
    assert.deepEqual(writes, ['fail o-alice', 'hide o-alice', 'hide o-alice']);
  });

  test('a platform output (no owner) is the operator’s only: no user may complete, fail, hide or move it', async () => {
    const { service, writes } = fakes();
    for (const user of [alice, carol]) {
      await rejectsWith(service.complete(user, 'o-platform', { url: 'https://x/y.png' }), 'forbidden', /belongs to the platform/);
      await rejectsWith(service.fail(user, 'o-platform', undefined), 'forbidden');
      await rejectsWith(service.hide(user, 'o-platform'), 'forbidden');
      await rejectsWith(service.move(user, 'o-platform', null), 'forbidden');
    }
    assert.deepEqual(writes, []);
    await service.hide(operator, 'o-platform');
    assert.deepEqual(writes, ['hide o-platform']);
  });

  test('a missing output is 404 before any permission question', async () => {
    const { service } = fakes();
    await rejectsWith(service.hide(bob, 'nope'), 'not_found');
  });
});

describe('create and move', () => {
  test('an output is the caller’s (or the named user’s); a service call naming nobody is 401', async () => {
    const { service, writes } = fakes();
    await service.create(bob, { collection_id: 'col', auto_create_deck: true });
    await service.create(operator, { collection_id: 'col', auto_create_deck: true });
    await rejectsWith(
      service.create({ kind: 'service', userId: null }, { collection_id: 'col', auto_create_deck: true }),
      'unauthorized',
      /user_id required/,
    );
    assert.deepEqual(writes, ['create bob -', 'create alice -']);
  });

  test('into a given deck only for whoever may add to it', async () => {
    const { service, writes } = fakes();
    await service.create(alice, { collection_id: 'col', auto_create_deck: true, deck_id: 'd-alice' });
    await rejectsWith(service.create(bob, { collection_id: 'col', auto_create_deck: true, deck_id: 'd-alice' }), 'forbidden');
    await rejectsWith(service.create(alice, { collection_id: 'col', auto_create_deck: true, deck_id: 'd-platform' }), 'forbidden');
    assert.deepEqual(writes, ['create alice d-alice']);
  });

  test('a move needs the output and the target deck; another collection’s deck is a 400 naming body.deck_id', async () => {
    const { service, writes } = fakes();
    await service.move(alice, 'o-alice', 'd-alice');
    await rejectsWith(service.move(alice, 'o-alice', 'd-elsewhere'), 'invalid', /^body\.deck_id: /);
    await rejectsWith(service.move(alice, 'o-alice', 'd-platform'), 'forbidden');
    await service.move(alice, 'o-alice', null);
    assert.deepEqual(writes, ['move o-alice', 'move o-alice']);
  });
});

describe('reads and thumbnails', () => {
  test('a hidden output is 404 except for whoever may change it', async () => {
    const { service } = fakes();
    await rejectsWith(service.get(bob, 'o-hidden'), 'not_found');
    assert.equal((await service.get(alice, 'o-hidden')).output.id, 'o-hidden');
    assert.equal((await service.get(carol, 'o-hidden')).output.id, 'o-hidden');
    assert.equal((await service.get(bob, 'o-alice')).output.id, 'o-alice', 'visible outputs are open to anyone signed in');
  });

  test('completion makes a thumbnail when none was given; its failure is logged and the completion stands', async () => {
    const made = fakes({ thumbnails: async (id) => `thumbnails/${id}.webp` });
    const row = await made.service.complete(alice, 'o-alice', { url: 'generations/a.png' });
    assert.equal(row.thumbnail_url, 'thumbnails/o-alice.webp');
    assert.deepEqual(made.writes, ['complete o-alice', 'thumbnail o-alice']);

    const broken = fakes({
      thumbnails: async () => {
        throw new Error('not an image');
      },
    });
    const r = await broken.service.complete(alice, 'o-alice', { url: 'generations/a.png' });
    assert.equal(r.status, 'completed');
    assert.equal(r.thumbnail_url, null);
    assert.deepEqual(broken.logs, ['thumbnail failed']);
  });
});

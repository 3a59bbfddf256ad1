import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from './errors.ts';
import { ACTIONS, actorOf, authorize, can, type Caller, ownerFor, POLICY } from './policy.ts';

const operator: Caller = { kind: 'service', userId: null };
const alice: Caller = { kind: 'user', userId: 'alice' };
const bob: Caller = { kind: 'user', userId: 'bob' };
const anonymous: Caller = { kind: 'anonymous' };

test('actorOf: operator, owner, collection owner, other user, public', () => {
  assert.equal(actorOf(operator, { ownerId: 'alice' }), 'operator');
  assert.equal(actorOf(alice, { ownerId: 'alice' }), 'owner');
  assert.equal(actorOf(alice, { ownerId: 'bob', collectionOwnerId: 'alice' }), 'collection_owner');
  assert.equal(actorOf(bob, { ownerId: 'alice', collectionOwnerId: 'alice' }), 'user');
  assert.equal(actorOf(anonymous, { ownerId: 'alice' }), 'public');
  assert.equal(actorOf(alice), 'user');
});

test('a platform record (owner null) is changed by the operator only, never by a user', () => {
  const platform = { ownerId: null, collectionOwnerId: null };
  for (const action of ['collection.update', 'collection.reset', 'deck.update', 'output.complete', 'job.retry'] as const) {
    assert.equal(can(operator, action, platform), true, action);
    assert.equal(can(alice, action, platform), false, action);
  }
  // A null owner never matches a user whose id is missing either.
  assert.equal(actorOf({ kind: 'user', userId: '' }, platform), 'user');
});

test('owners change their records; other users do not; the collection owner curates decks and outputs', () => {
  const aliceCollection = { ownerId: 'alice' };
  assert.equal(can(alice, 'collection.update', aliceCollection), true);
  assert.equal(can(bob, 'collection.update', aliceCollection), false);
  const bobsDeckInAlicesCollection = { ownerId: 'bob', collectionOwnerId: 'alice' };
  assert.equal(can(bob, 'deck.update', bobsDeckInAlicesCollection), true);
  assert.equal(can(alice, 'deck.update', bobsDeckInAlicesCollection), true);
  assert.equal(can({ kind: 'user', userId: 'carol' }, 'deck.update', bobsDeckInAlicesCollection), false);
  // The collection owner may not change someone's collection-level record through a deck.
  assert.equal(can(alice, 'collection.update', { ownerId: 'bob', collectionOwnerId: 'alice' }), false);
});

test('operator-only actions refuse every user, even the owner', () => {
  for (const action of ACTIONS.filter((a) => POLICY[a].length === 1)) {
    assert.deepEqual(POLICY[action], ['operator'], action);
    assert.equal(can(alice, action, { ownerId: 'alice' }), false, action);
    assert.equal(can(operator, action, { ownerId: 'alice' }), true, action);
  }
  assert.ok(ACTIONS.includes('token.set_mint_state'));
});

test('authorize: 401 for the public, 403 naming the rule for a user', () => {
  assert.doesNotThrow(() => authorize(alice, 'collection.update', { ownerId: 'alice' }));
  assert.throws(
    () => authorize(anonymous, 'collection.update', { ownerId: 'alice' }),
    (e: unknown) => e instanceof AppError && e.kind === 'unauthorized',
  );
  assert.throws(
    () => authorize(bob, 'collection.update', { ownerId: 'alice' }),
    (e: unknown) => e instanceof AppError && e.kind === 'forbidden' && /owner/.test(e.message),
  );
  assert.throws(
    () => authorize(bob, 'collection.update', { ownerId: null }),
    (e: unknown) => e instanceof AppError && e.kind === 'forbidden' && /platform/.test(e.message),
  );
  assert.throws(
    () => authorize(alice, 'workflow.create'),
    (e: unknown) => e instanceof AppError && e.kind === 'forbidden' && /operator/.test(e.message),
  );
});

test('metadata is public; every action admits the operator', () => {
  assert.equal(can(anonymous, 'metadata.read'), true);
  for (const action of ACTIONS) assert.ok((POLICY[action] as readonly string[]).includes('operator'), action);
});

test('ownerFor: a new record belongs to the caller, the user a service call names, or the platform', () => {
  assert.equal(ownerFor(alice), 'alice');
  assert.equal(ownerFor({ kind: 'service', userId: 'carol' }), 'carol');
  assert.equal(ownerFor(operator), null);
  assert.equal(ownerFor(anonymous), null);
});

test('wallets and payments: any signed-in user links a wallet; requester wallets are the collection owner’s', () => {
  assert.equal(can(alice, 'wallet.link'), true);
  assert.equal(can(operator, 'wallet.link'), true);
  assert.equal(can(anonymous, 'wallet.link'), false);
  const alicesCollection = { ownerId: 'alice' };
  assert.equal(can(alice, 'collection.read_sample_wallets', alicesCollection), true);
  assert.equal(can(bob, 'collection.read_sample_wallets', alicesCollection), false);
  assert.equal(can(operator, 'collection.read_sample_wallets', alicesCollection), true);
  assert.equal(can(bob, 'collection.read_sample_wallets', { ownerId: null }), false, 'a platform collection: the operator only');
  // Minting stays the owner's; a public mint is the collection's mint policy, applied by services/mint-gate.ts.
  assert.equal(can(bob, 'collection.mint', alicesCollection), false);
  assert.equal(can(alice, 'collection.mint', alicesCollection), true);
});

test('ownerFor with owner_user_id: the operator names anyone, a user only themselves', () => {
  assert.equal(ownerFor(operator, 'dave'), 'dave');
  assert.equal(ownerFor({ kind: 'service', userId: 'carol' }, 'dave'), 'dave', 'the field wins over the header');
  assert.equal(ownerFor(alice, 'alice'), 'alice');
  assert.throws(
    () => ownerFor(alice, 'dave'),
    (e: unknown) => e instanceof AppError && e.kind === 'forbidden' && /owner_user_id/.test(e.message),
  );
  assert.throws(
    () => ownerFor(anonymous, 'dave'),
    (e: unknown) => e instanceof AppError && e.kind === 'unauthorized',
  );
});

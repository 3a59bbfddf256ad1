import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../domain/errors.ts';
import type { Caller } from '../domain/policy.ts';
import { authorizeAdminAction, type ContractRecords } from './chain-admin.ts';

const A = '00000000-0000-4000-8000-0000000000a1';
const B = '00000000-0000-4000-8000-0000000000b2';
const CONTRACT = `0x${'ab'.repeat(20)}`;
const req = { chainId: 31337, collectionAddress: CONTRACT, action: 'setMintActive' as const, value: false };
/** The collection records naming the contract, by owner (null: the platform's). */
const records = (owners: Array<string | null>): ContractRecords => ({ ownersOf: async () => owners });
const user = (userId: string): Caller => ({ kind: 'user', userId });
const refusal = (pattern: RegExp) => (e: unknown) => e instanceof AppError && e.kind === 'forbidden' && pattern.test(e.message);

test('a user acts on a contract every record of which is theirs', async () => {
  await authorizeAdminAction(user(A), req, records([A]));
  await authorizeAdminAction(user(A), req, records([A, A]));
  await authorizeAdminAction({ kind: 'service', userId: null }, req, records([A, B, null]));
});

test('each refusal says why: no record, a platform record, another owner, records of two owners', async () => {
  await assert.rejects(authorizeAdminAction(user(A), req, records([])), refusal(/no collection record names/));
  await assert.rejects(authorizeAdminAction(user(A), req, records([null])), refusal(/platform collection/));
  await assert.rejects(authorizeAdminAction(user(A), req, records([B])), refusal(/only the owner of the collection/));
  // A chain reset let two collections get one address: neither owner acts alone, and the answer says so.
  await assert.rejects(authorizeAdminAction(user(A), req, records([A, B])), refusal(/more than one owner/));
  await assert.rejects(authorizeAdminAction(user(A), req, records([A, null])), refusal(/more than one owner/));
  await assert.rejects(
    authorizeAdminAction({ kind: 'anonymous' }, req, records([A])),
    (e) => e instanceof AppError && e.kind === 'unauthorized',
  );
});

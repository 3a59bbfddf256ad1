/** Zod pieces shared by route schemas. Messages name what is expected. */
import { z } from 'zod';
import { ADDRESS_FORM, ADDRESS_RE, checksumProblem } from '../../domain/address.ts';
import { utf8Bytes } from '../../domain/contract-limits.ts';
import { EXAMPLE_ID, withExample } from './examples.ts';

export const uuid = z.uuid({ message: 'expected a UUID' });
/** Any 8-4-4-4-12 hex id (looser than `uuid`, which also checks the version and variant). */
export { UUID_RE } from '../../domain/ids.ts';
/**
 * An address: lower case, upper case or a correct EIP-55 checksum; a mixed-case one with a wrong
 * checksum is refused naming the address it would be (domain/address.ts, docs/security.md).
 */
export const address = z
  .string()
  .regex(ADDRESS_RE, ADDRESS_FORM)
  .superRefine((value, ctx) => {
    const problem = ADDRESS_RE.test(value) ? checksumProblem(value) : null;
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
export const txHash = z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'expected a 0x-prefixed 32-byte hex transaction hash');
export { BLOCKCHAIN_FAMILIES as BLOCKCHAINS } from '../../domain/chain-names.ts';
import { BLOCKCHAIN_FAMILIES } from '../../domain/chain-names.ts';
export const blockchain = z.enum(BLOCKCHAIN_FAMILIES);
export const socialOrg = z.enum(['social_a', 'social_b']);

/** `.refine(...socialPair)`: a custodial identity needs both social_org and social_identifier. */
export const socialPair: [(b: { social_org?: unknown; social_identifier?: unknown }) => boolean, { message: string; path: string[] }] = [
  (b) => (b.social_org === undefined) === (b.social_identifier === undefined),
  { message: 'social_org and social_identifier go together', path: ['social_identifier'] },
];

/** Query strings arrive as text: coerce integers explicitly and reject junk. */
export const queryInt = (min: number, max: number) =>
  z
    .string()
    .regex(/^-?\d+$/, 'expected an integer')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

export const queryBool = z.enum(['true', 'false'], { message: 'expected true or false' }).transform((v) => v === 'true');

export const collectionIdParams = z.object({ collectionId: withExample(uuid, EXAMPLE_ID.collection) });
/** `{id}` of one kind of record, documented with that record's example id. */
export const idParamsOf = (example: string) => z.object({ id: withExample(uuid, example) });
/** `{id}` without an example: a route using it is reported by test/openapi-docs.test.ts (use idParamsOf). */
export const idParams = z.object({ id: uuid });
/** `{id}` naming a collection. */
export const collectionAsIdParams = idParamsOf(EXAMPLE_ID.collection);

/** The backend's success envelope. */
export const ok = <T>(data: T) => ({ data, error: null });

/** A string of at most `max` bytes of UTF-8 (what a contract counts), the limit named in the message. */
export const maxBytes = (max: number, what = 'bytes of UTF-8') =>
  z.string().refine((v) => utf8Bytes(v) <= max, { message: `at most ${max.toLocaleString('en-US')} ${what}` });

/** Request and response schemas of identity routes (docs/api/content.md §2.8, §4.8; docs/auth.md). */
import { z } from 'zod';
import { MAX_CREDENTIAL_CHARS } from '../../domain/credentials.ts';
import { address, idParamsOf, uuid } from './common.ts';
import { envelope } from './envelope.ts';
import { EXAMPLE_CHAIN, EXAMPLE_ID, EXAMPLE_TIME, withExample } from './examples.ts';

const b64url = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
/** An identity provider's token (HS256 here): its sub, email and profile become the user. */
const ACCESS_TOKEN_EXAMPLE = [
  b64url({ alg: 'HS256', typ: 'JWT' }),
  b64url({
    sub: 'auth0|6651f0c2a8e4b91d3f0a7c55',
    email: 'mira@example.com',
    email_verified: true,
    name: 'Mira Lind',
    iat: 1748855643,
    exp: 1748859243,
  }),
  'kR3v0mXq8yWcT1u5nB7dJ2sLh9aF4eGzP6oQiNxVYtE',
].join('.');
const PROVIDER_USER = 'auth0|6651f0c2a8e4b91d3f0a7c55';

export const resolveBody = withExample(z.object({ access_token: z.string().min(1, 'access_token is required').max(10_000) }), {
  access_token: ACCESS_TOKEN_EXAMPLE,
});
export const mergeBody = withExample(z.object({ primary_user_id: uuid, secondary_user_id: uuid }), {
  primary_user_id: EXAMPLE_ID.user,
  secondary_user_id: EXAMPLE_ID.otherUser,
});
export const createKeyBody = withExample(z.object({ name: z.string().trim().min(1).max(100) }), { name: 'ci-deploy' });
/** `{id}` of an API key. */
export const apiKeyParams = idParamsOf(EXAMPLE_ID.apiKey);

const ts = z.string().nullable();
export const resolveResponse = envelope(
  withExample(z.object({ user_id: z.string(), provider: z.string(), provider_user_id: z.string() }), {
    user_id: EXAMPLE_ID.user,
    provider: 'jwt',
    provider_user_id: PROVIDER_USER,
  }),
);
/** PATCH /api/me: the caller's display name and avatar; null clears one. */
export const updateMeBody = z
  .object({
    display_name: z.string().trim().min(1).max(100).nullable().optional(),
    avatar_url: z
      .string()
      .trim()
      .max(2048)
      .url('expected an http(s) URL')
      .refine((u) => /^https?:\/\//i.test(u), 'expected an http(s) URL')
      .nullable()
      .optional(),
  })
  .strict()
  .meta({ example: { display_name: 'Mira Lind', avatar_url: 'https://avatars.example.com/mira.png' } });

export const profileResponse = envelope(
  withExample(
    z.object({
      id: z.string(),
      email: z.string().nullable(),
      display_name: z.string().nullable(),
      avatar_url: z.string().nullable(),
      created_at: z.string(),
      updated_at: z.string(),
      last_login_at: ts,
      is_active: z.boolean(),
      is_blocked: z.boolean(),
      identities: z.array(
        z.object({
          id: z.string(),
          provider: z.string(),
          provider_user_id: z.string(),
          provider_email: z.string().nullable(),
          linked_at: z.string(),
          last_used_at: ts,
        }),
      ),
    }),
    {
      id: EXAMPLE_ID.user,
      email: 'mira@example.com',
      display_name: 'Mira Lind',
      avatar_url: 'https://avatars.example.com/mira.png',
      created_at: EXAMPLE_TIME.created,
      updated_at: EXAMPLE_TIME.updated,
      last_login_at: EXAMPLE_TIME.transferred,
      is_active: true,
      is_blocked: false,
      identities: [
        {
          id: EXAMPLE_ID.identity,
          provider: 'jwt',
          provider_user_id: PROVIDER_USER,
          provider_email: 'mira@example.com',
          linked_at: EXAMPLE_TIME.created,
          last_used_at: EXAMPLE_TIME.transferred,
        },
      ],
    },
  ),
);
export const mergeResponse = envelope(
  withExample(
    z.object({
      primary_user_id: z.string(),
      merged_user_id: z.string(),
      identities_moved: z.number().int(),
      records_moved: z.record(z.string(), z.number().int()),
    }),
    {
      primary_user_id: EXAMPLE_ID.user,
      merged_user_id: EXAMPLE_ID.otherUser,
      identities_moved: 1,
      records_moved: { collections: 2, decks: 3, outputs: 5, jobs: 5 },
    },
  ),
);
const apiKey = z.object({ id: z.string(), name: z.string(), key_prefix: z.string(), created_at: z.string() });
const KEY = { id: EXAMPLE_ID.apiKey, name: 'ci-deploy', key_prefix: 'atk_d3XPq3lY', created_at: EXAMPLE_TIME.updated };
export const createdKeyResponse = envelope(
  withExample(apiKey.extend({ key: z.string().describe('shown once') }), { ...KEY, key: 'atk_d3XPq3lYYb4kr5nFGQfqT3my1y_R3sS4' }),
);
export const keyListResponse = envelope(
  z.array(
    withExample(apiKey.extend({ last_used_at: ts, revoked_at: ts }), { ...KEY, last_used_at: EXAMPLE_TIME.deployed, revoked_at: null }),
  ),
);
export const revokedKeyResponse = envelope(
  withExample(z.object({ id: z.string(), revoked: z.literal(true) }), { id: EXAMPLE_ID.apiKey, revoked: true }),
);

// Wallets proven by Sign-In with Ethereum (docs/auth.md "Wallets").
export const walletNonceBody = z
  .object({
    address: address.optional().describe('when given, the answer carries the exact EIP-4361 message to sign'),
    chain_id: z.number().int().positive().optional().describe('chain of the message; default NFT_CHAIN_ID'),
  })
  .meta({ example: { address: EXAMPLE_CHAIN.creatorWallet, chain_id: EXAMPLE_CHAIN.chainId } })
  .default({});

const NONCE = '972c3ca8fdb0ec4b72ef05c09aaa7ced';
/** The EIP-4361 message the nonce example answers, which the wallet signs. */
const SIWE_MESSAGE = [
  'localhost:3000 wants you to sign in with your Ethereum account:',
  EXAMPLE_CHAIN.creatorWallet,
  '',
  'Link this wallet to my Atelier account.',
  '',
  'URI: http://localhost:3000',
  'Version: 1',
  `Chain ID: ${EXAMPLE_CHAIN.chainId}`,
  `Nonce: ${NONCE}`,
  'Issued At: 2025-06-02T09:25:00.000Z',
  'Expiration Time: 2025-06-02T09:35:00.000Z',
].join('\n');

export const walletNonceResponse = envelope(
  withExample(
    z.object({
      nonce: z.string(),
      expires_at: z.string(),
      domain: z.string().describe('the domain the message must name'),
      uri: z.string(),
      chain_id: z.number().int(),
      statement: z.string(),
      message: z.string().nullable().describe('the EIP-4361 message to sign (when address was sent)'),
    }),
    {
      nonce: NONCE,
      expires_at: '2025-06-02T09:35:00.000Z',
      domain: 'localhost:3000',
      uri: 'http://localhost:3000',
      chain_id: EXAMPLE_CHAIN.chainId,
      statement: 'Link this wallet to my Atelier account.',
      message: SIWE_MESSAGE,
    },
  ),
);
export const walletVerifyBody = withExample(
  z.object({
    message: z.string().min(1, 'message is required').max(4000),
    signature: z
      .string()
      .regex(/^0x[0-9a-fA-F]+$/, 'expected a 0x-prefixed hex signature')
      .max(20_000),
  }),
  {
    message: SIWE_MESSAGE,
    signature:
      '0x8d2c1f4e6b0a9d3c5e7f1a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e2f4a6b8c0d1e3f5a7b9c1d3e5f7a9b1c3d5e7f9a1b3c5d7e9f0a2b4c6d8e0f2a4b6c8d1b',
  },
);
const WALLET = { address: EXAMPLE_CHAIN.creatorWallet, linked_at: '2025-06-02T09:25:07.000Z' };
export const walletVerifyResponse = envelope(
  withExample(
    z.object({
      address: z.string(),
      chain_id: z.number().int(),
      newly_linked: z.boolean(),
      linked_at: z.string(),
      provider: z.literal('wallet'),
    }),
    { ...WALLET, chain_id: EXAMPLE_CHAIN.chainId, newly_linked: true, provider: 'wallet' },
  ),
);
export const walletListResponse = envelope(
  z.array(
    withExample(z.object({ address: z.string(), linked_at: z.string(), last_used_at: ts }), {
      ...WALLET,
      last_used_at: EXAMPLE_TIME.deployed,
    }),
  ),
);
// The admin proxy's question about a user credential (docs/auth.md "The admin proxy").
export const introspectBody = withExample(
  z.object({
    credential: z
      .string()
      .trim()
      .min(1, 'credential is required')
      .max(MAX_CREDENTIAL_CHARS)
      .describe('a JWT, a user API key or a session token'),
  }),
  { credential: 'ats_Qm7c2Vx9LpR4tW8zK1nB5yH3dF6gJ0sA2eU4iO7pX9c' },
);
export const introspectResponse = envelope(
  withExample(
    z.discriminatedUnion('active', [
      z.object({ active: z.literal(true), user_id: z.string(), kind: z.enum(['jwt', 'api_key', 'session']) }),
      z.object({
        active: z.literal(false),
        reason: z.string().describe('why the credential names no user (what the middleware would answer)'),
      }),
    ]),
    { active: true, user_id: EXAMPLE_ID.user, kind: 'session' },
  ),
);

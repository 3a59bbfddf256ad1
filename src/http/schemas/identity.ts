/** Request and response schemas of identity routes (content-service.md §2.8, §4.8; docs/auth.md). */
import { z } from 'zod';
import { uuid } from './common.ts';
import { envelope } from './envelope.ts';

export const resolveBody = z.object({ access_token: z.string().min(1, 'access_token is required').max(10_000) });
export const mergeBody = z.object({ primary_user_id: uuid, secondary_user_id: uuid });
export const createKeyBody = z.object({ name: z.string().trim().min(1).max(100) });

const ts = z.string().nullable();
export const resolveResponse = envelope(z.object({ user_id: z.string(), provider: z.string(), provider_user_id: z.string() }));
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
  .strict();

export const profileResponse = envelope(
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
);
export const mergeResponse = envelope(
  z.object({
    primary_user_id: z.string(),
    merged_user_id: z.string(),
    identities_moved: z.number().int(),
    records_moved: z.record(z.string(), z.number().int()),
  }),
);
const apiKey = z.object({ id: z.string(), name: z.string(), key_prefix: z.string(), created_at: z.string() });
export const createdKeyResponse = envelope(apiKey.extend({ key: z.string().describe('shown once') }));
export const keyListResponse = envelope(z.array(apiKey.extend({ last_used_at: ts, revoked_at: ts })));
export const revokedKeyResponse = envelope(z.object({ id: z.string(), revoked: z.literal(true) }));

// Wallets proven by Sign-In with Ethereum (docs/auth.md "Wallets").
export const walletNonceBody = z
  .object({
    address: z
      .string()
      .regex(/^0x[0-9a-fA-F]{40}$/, 'expected a 0x-prefixed 20-byte hex address')
      .optional()
      .describe('when given, the answer carries the exact EIP-4361 message to sign'),
    chain_id: z.number().int().positive().optional().describe('chain of the message; default NFT_CHAIN_ID'),
  })
  .default({});
export const walletNonceResponse = envelope(
  z.object({
    nonce: z.string(),
    expires_at: z.string(),
    domain: z.string().describe('the domain the message must name'),
    uri: z.string(),
    chain_id: z.number().int(),
    statement: z.string(),
    message: z.string().nullable().describe('the EIP-4361 message to sign (when address was sent)'),
  }),
);
export const walletVerifyBody = z.object({
  message: z.string().min(1, 'message is required').max(4000),
  signature: z
    .string()
    .regex(/^0x[0-9a-fA-F]+$/, 'expected a 0x-prefixed hex signature')
    .max(20_000),
});
export const walletVerifyResponse = envelope(
  z.object({
    address: z.string(),
    chain_id: z.number().int(),
    newly_linked: z.boolean(),
    linked_at: z.string(),
    provider: z.literal('wallet'),
  }),
);
export const walletListResponse = envelope(z.array(z.object({ address: z.string(), linked_at: z.string(), last_used_at: ts })));

// The admin proxy's question about a user credential (docs/auth.md "The admin proxy").
export const introspectBody = z.object({
  credential: z.string().trim().min(1, 'credential is required').max(10_000).describe('a JWT, a user API key or a session token'),
});
export const introspectResponse = envelope(
  z.discriminatedUnion('active', [
    z.object({ active: z.literal(true), user_id: z.string(), kind: z.enum(['jwt', 'api_key', 'session']) }),
    z.object({
      active: z.literal(false),
      reason: z.string().describe('why the credential names no user (what the middleware would answer)'),
    }),
  ]),
);

/**
 * Sign-in (docs/auth.md "Sign in with Ethereum", "Sessions") and the console's caller (docs/admin-ui.md
 * "Signing in"): the shapes shared by the backend routes and the admin proxy's forwards.
 */
import { z } from 'zod';
import { walletVerifyBody } from './identity.ts';

export const siweNonceBody = z.object({
  address: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, 'expected a 0x-prefixed 20-byte hex address')
    .describe('the wallet that will sign in; the answer carries the exact EIP-4361 message it signs'),
  chain_id: z.number().int().positive().optional().describe('chain of the message; default NFT_CHAIN_ID'),
});

export const siweNonce = z.object({
  nonce: z.string(),
  expires_at: z.string().describe('the nonce (and the message) can be used until then'),
  domain: z.string().describe('the domain the message names'),
  uri: z.string(),
  chain_id: z.number().int(),
  statement: z.string(),
  message: z.string().describe('the EIP-4361 message to sign (personal_sign), exactly as given'),
});

/** The signed message, as for a wallet link. */
export const siweLoginBody = walletVerifyBody;

export const siweSession = z.object({
  token: z.string().describe('the session token (ats_…): send it as Authorization: Bearer; shown once'),
  expires_at: z.string().describe('at most JWT_MAX_AGE_SECONDS after the sign-in'),
  user_id: z.string().describe('the user the wallet signs in as (created at its first sign-in)'),
  address: z.string().describe('the wallet, checksummed'),
  chain_id: z.number().int(),
});

export const signedOut = z.object({ signed_out: z.literal(true) });

/** Who the admin proxy sees (GET /api/nft/session). */
export const consoleCaller = z.object({
  kind: z.enum(['operator', 'user']),
  user_id: z.string().nullable().describe('the signed-in user; for the operator, the user_id header it sent, else null'),
  display_name: z.string().nullable(),
  wallets: z.array(z.string()).describe("the user's wallets proven by Sign-In with Ethereum, checksummed"),
});

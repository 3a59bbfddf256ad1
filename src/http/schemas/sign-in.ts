/**
 * Sign-in (docs/auth.md "Sign in with Ethereum", "Sessions") and the console's caller (docs/admin-ui.md
 * "Signing in"): the shapes shared by the backend routes and the admin proxy's forwards.
 */
import { z } from 'zod';
import { address } from './common.ts';
import { EXAMPLE_CHAIN, EXAMPLE_ID, withExample } from './examples.ts';
import { walletVerifyBody } from './identity.ts';

// Examples: the creator's wallet signs in on the dev chain of `npm start`.
const NONCE = '5d1b7e0c93a24f68b1c0e7d2a9f4c3b6';
const EXPIRES = '2025-06-02T09:35:00.000Z';
const SIGN_IN_MESSAGE = [
  'localhost:3000 wants you to sign in with your Ethereum account:',
  EXAMPLE_CHAIN.creatorWallet,
  '',
  'Sign in to Atelier with this wallet.',
  '',
  'URI: http://localhost:3000',
  'Version: 1',
  `Chain ID: ${EXAMPLE_CHAIN.chainId}`,
  `Nonce: ${NONCE}`,
  'Issued At: 2025-06-02T09:25:00.000Z',
  `Expiration Time: ${EXPIRES}`,
].join('\n');

export const siweNonceBody = withExample(
  z.object({
    address: address.describe('the wallet that will sign in; the answer carries the exact EIP-4361 message it signs'),
    chain_id: z.number().int().positive().optional().describe('chain of the message; default NFT_CHAIN_ID'),
  }),
  { address: EXAMPLE_CHAIN.creatorWallet, chain_id: EXAMPLE_CHAIN.chainId },
);

// Field by field: the admin proxy spreads these fields beside `success: true`.
const text = (example: string) => withExample(z.string(), example);
const chainId = withExample(z.number().int(), EXAMPLE_CHAIN.chainId);

export const siweNonce = z.object({
  nonce: text(NONCE),
  expires_at: text(EXPIRES).describe('the nonce (and the message) can be used until then'),
  domain: text('localhost:3000').describe('the domain the message names'),
  uri: text('http://localhost:3000'),
  chain_id: chainId,
  statement: text('Sign in to Atelier with this wallet.'),
  message: text(SIGN_IN_MESSAGE).describe('the EIP-4361 message to sign (personal_sign), exactly as given'),
});

/** The signed message, as for a wallet link. */
export const siweLoginBody = withExample(walletVerifyBody, {
  message: SIGN_IN_MESSAGE,
  signature:
    '0x4f7a2c9e1b3d5f8a0c2e4b6d8f1a3c5e7b9d0f2a4c6e8b1d3f5a7c9e0b2d4f6a8c1e3b5d7f9a0c2e4b6d8f1a3c5e7b9d0f2a4c6e8b1d3f5a7c9e0b2d4f6a81c',
});

export const siweSession = z.object({
  token: text('ats_Qm7c2Vx9LpR4tW8zK1nB5yH3dF6gJ0sA2eU4iO7pX9c').describe(
    'the session token (ats_…): send it as Authorization: Bearer; shown once',
  ),
  expires_at: text('2025-06-02T10:25:07.000Z').describe('at most JWT_MAX_AGE_SECONDS after the sign-in'),
  user_id: text(EXAMPLE_ID.user).describe('the user the wallet signs in as (created at its first sign-in)'),
  address: text(EXAMPLE_CHAIN.creatorWallet).describe('the wallet, checksummed'),
  chain_id: chainId,
});

export const signedOut = z.object({ signed_out: z.literal(true) });

/** Who the admin proxy sees (GET /api/nft/session). */
export const consoleCaller = withExample(
  z.object({
    kind: z.enum(['operator', 'user']),
    user_id: z.string().nullable().describe('the signed-in user; for the operator, the user_id header it sent, else null'),
    display_name: z.string().nullable(),
    wallets: z.array(z.string()).describe("the user's wallets proven by Sign-In with Ethereum, checksummed"),
  }),
  { kind: 'user', user_id: EXAMPLE_ID.user, display_name: 'Mira Lind', wallets: [EXAMPLE_CHAIN.creatorWallet] },
);

/** The chain this platform deploys new collections to (GET /api/nft/session): the console's default. */
export const consolePlatform = withExample(
  z.object({
    chain_id: z.number().describe('NFT_CHAIN_ID: where POST /api/nft/collections/deploy deploys'),
    chain_name: z.string().describe('the chain by name (docs/chain.md "Chain names")'),
    blockchain: z.string().describe("the family a new collection's record gets by default"),
  }),
  { chain_id: EXAMPLE_CHAIN.chainId, chain_name: 'Local dev chain (31337)', blockchain: 'ARBITRUM' },
);

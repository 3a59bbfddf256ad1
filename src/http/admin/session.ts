/**
 * Signing in to the console (docs/admin-ui.md "Signing in", docs/auth.md "The admin proxy"): who
 * is calling (GET /api/nft/session), and the admin proxy's forwards of the backend's Sign-In with
 * Ethereum and sign-out routes, so the console calls its own origin only (CSP connect-src 'self').
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { getAddress } from 'viem';
import type { z } from 'zod';
import { blockchainOf, chainName } from '../../domain/chain-names.ts';
import { AppError } from '../../domain/errors.ts';
import { PUBLIC_BODY_LIMIT, publicRouteLimiter } from '../plugins/public-limit.ts';
import { adminSuccess } from '../schemas/envelope.ts';
import { consoleCaller, consolePlatform, siweLoginBody, siweNonce, siweNonceBody, siweSession, signedOut } from '../schemas/sign-in.ts';
import type { AdminDeps } from './deps.ts';
import { actingAs } from './forward-table.ts';

interface Profile {
  id: string;
  display_name: string | null;
  identities: Array<{ provider: string; provider_user_id: string }>;
}

export async function adminSessionRoutes(app: FastifyInstance, deps: AdminDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['identity'];
  // Per client address, which only the proxy sees (the backend does not count the proxy as one
  // client). Never per wallet: an address is public, and counting it would let anyone lock its
  // owner out of signing in.
  const signInLimit = publicRouteLimiter(app, deps.config, { name: 'admin-siwe', style: 'success' });

  r.get(
    '/api/nft/session',
    {
      schema: {
        operationId: 'adminSession',
        summary: 'Who is signed in',
        description:
          'The caller as the admin proxy sees it: the operator (service key; user_id is the user_id header it sent, else null) or a signed-in user (JWT, user API key or Sign-In with Ethereum session) with their display name and proven wallets. The console asks it after sign-in to decide what to show; `platform` names the chain new collections deploy to; 401 for a credential that is not (or no longer) valid.',
        tags,
        response: { 200: adminSuccess({ caller: consoleCaller, platform: consolePlatform }) },
      },
    },
    async (req) => {
      const chainId = deps.config.NFT_CHAIN_ID;
      const platform = { chain_id: chainId, chain_name: chainName(chainId), blockchain: blockchainOf(chainId) };
      if (req.caller.kind !== 'user') {
        return {
          success: true as const,
          caller: { kind: 'operator' as const, user_id: req.auth.userId, display_name: null, wallets: [] },
          platform,
        };
      }
      let profile: Profile | null = null;
      try {
        profile = await deps.backend.call<Profile>('GET', 'api/me', actingAs(req));
      } catch (err) {
        // A user id the identity model could not resolve (a provider-id fallback) has no profile.
        if (!(err instanceof AppError && err.kind === 'not_found')) throw err;
      }
      return {
        success: true as const,
        caller: {
          kind: 'user' as const,
          user_id: req.caller.userId,
          display_name: profile?.display_name ?? null,
          wallets: (profile?.identities ?? [])
            .filter((i) => i.provider === 'wallet' && /^0x[0-9a-fA-F]{40}$/.test(i.provider_user_id))
            .map((i) => getAddress(i.provider_user_id)),
        },
        platform,
      };
    },
  );

  r.post(
    '/api/nft/auth/siwe/nonce',
    {
      config: { public: true },
      bodyLimit: PUBLIC_BODY_LIMIT,
      preValidation: signInLimit,
      schema: {
        operationId: 'adminSignInNonce',
        summary: 'Start a Sign-In with Ethereum',
        description:
          "Public. Forwarded to POST /api/auth/siwe/nonce with the Origin header: a single-use sign-in nonce and the exact EIP-4361 message the wallet signs (personal_sign), naming the console's host when the console asks; then POST /api/nft/auth/siwe/login. IDENTITY_RATE_LIMIT per window per client address; then 429.",
        tags,
        body: siweNonceBody,
        response: { 201: adminSuccess(siweNonce.shape) },
      },
    },
    async (req, reply) => {
      // With the service key: the backend does not count this proxy's clients as one address (this route counts them).
      // The client's Origin goes along: the message names the console's host when it asks (docs/auth.md "The domain").
      const origin = req.headers.origin;
      const n = await deps.backend.call<z.infer<typeof siweNonce>>('POST', 'api/auth/siwe/nonce', {
        body: req.body,
        ...(typeof origin === 'string' ? { headers: { origin } } : {}),
      });
      return reply.code(201).send({ success: true as const, ...n });
    },
  );

  r.post(
    '/api/nft/auth/siwe/login',
    {
      config: { public: true },
      bodyLimit: PUBLIC_BODY_LIMIT,
      preValidation: signInLimit,
      schema: {
        operationId: 'adminSignIn',
        summary: 'Sign in with a wallet',
        description:
          "Public. Forwarded to POST /api/auth/siwe/login: the signed message is checked (domain, chain, time window, signature — EIP-1271 for contract wallets — and the nonce, once) and a session token for the wallet's user is answered. Send it as Authorization: Bearer to this proxy and to the backend until expires_at or POST /api/nft/auth/logout. 400 naming the failed check.",
        tags,
        body: siweLoginBody,
        response: { 200: adminSuccess(siweSession.shape) },
      },
    },
    async (req) => {
      const s = await deps.backend.call<z.infer<typeof siweSession>>('POST', 'api/auth/siwe/login', { body: req.body });
      return { success: true as const, ...s };
    },
  );

  r.post(
    '/api/nft/auth/logout',
    {
      schema: {
        operationId: 'adminSignOut',
        summary: 'Sign out',
        description:
          "Forwarded to POST /api/auth/logout with the caller's session token: the session ends on every replica (the next request with it is 401 here at once, and on other proxy replicas within their 5 s lookup cache). Any other credential is 400 naming why.",
        tags,
        response: { 200: adminSuccess(signedOut.shape) },
      },
    },
    async (req) => {
      if (req.caller.kind !== 'user') {
        throw new AppError('invalid', 'authorization: the service key is not a session; only a session token (ats_…) is signed out');
      }
      const out = await deps.backend.call<{ signed_out: true }>('POST', 'api/auth/logout', actingAs(req));
      deps.callers?.forget(req.auth.forwardCredential!);
      return { success: true as const, ...out };
    },
  );
}

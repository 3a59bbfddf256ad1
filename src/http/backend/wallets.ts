/**
 * Wallet routes (docs/auth.md "Wallets", "Sign in with Ethereum", "Sessions"): Sign-In with
 * Ethereum (EIP-4361) links a wallet to the signed-in caller — a nonce, then the signed message —
 * or signs a wallet in (public: a nonce, then the signed message, answered with a platform
 * session token); sign-out ends that session; the caller's linked wallets.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { SessionService } from '../../services/sessions.ts';
import type { WalletService } from '../../services/wallets.ts';
import { PUBLIC_BODY_LIMIT, publicRouteLimiter, type PublicLimitSettings } from '../plugins/public-limit.ts';
import { ok } from '../schemas/common.ts';
import { envelope } from '../schemas/envelope.ts';
import { walletListResponse, walletNonceBody, walletNonceResponse, walletVerifyBody, walletVerifyResponse } from '../schemas/identity.ts';
import { siweLoginBody, siweNonce, siweNonceBody, siweSession, signedOut } from '../schemas/sign-in.ts';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The site asking for a message (a browser's Origin header; the admin proxy passes its client's on). */
const originOf = (req: FastifyRequest): string | undefined => {
  const v = req.headers.origin;
  return Array.isArray(v) ? v[0] : v;
};

export interface WalletRoutesOptions {
  wallets: WalletService;
  sessions: SessionService;
  /** The sign-in routes' limit. */
  config: PublicLimitSettings;
}

export const walletRoutes: FastifyPluginAsync<WalletRoutesOptions> = async (app, { wallets, sessions, config }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['identity'];
  // Public and costly (a signature check, a new user): limited per client address like POST
  // /api/auth/resolve (the admin proxy counts its own clients). Not per wallet: an address is
  // public, and counting it would let anyone lock its owner out of signing in.
  const signInLimit = publicRouteLimiter(app, config, { name: 'siwe', style: 'envelope', trustServiceKey: true });

  r.post(
    '/api/auth/wallet/nonce',
    {
      schema: {
        tags,
        operationId: 'createWalletNonce',
        summary: 'A Sign-In with Ethereum nonce',
        description:
          'A single-use nonce for the caller (it expires after SIWE_NONCE_TTL_SECONDS), with the domain, URI and chain the EIP-4361 message must name; with `address`, the exact message to sign.',
        body: walletNonceBody,
        response: { 201: walletNonceResponse },
      },
    },
    async (req, reply) => {
      const n = await wallets.nonce(req.caller, req.body ?? {}, originOf(req));
      return reply.code(201).send(ok({ ...n, expires_at: n.expires_at.toISOString() }));
    },
  );

  r.post(
    '/api/auth/wallet/verify',
    {
      schema: {
        tags,
        operationId: 'verifyWalletSignature',
        summary: 'Link a wallet by its signature',
        description:
          "Checks a signed EIP-4361 message (domain, chain, time window, signature — contract wallets by EIP-1271 — and the caller's unused nonce) and links the wallet to the caller as a `wallet` identity. 400 naming the failed check; 409 when another user holds the wallet.",
        body: walletVerifyBody,
        response: { 200: walletVerifyResponse },
      },
    },
    async (req) => {
      const v = await wallets.verify(req.caller, req.body);
      return ok({ ...v, linked_at: v.linked_at.toISOString(), provider: 'wallet' as const });
    },
  );

  r.post(
    '/api/auth/siwe/nonce',
    {
      config: { public: true },
      bodyLimit: PUBLIC_BODY_LIMIT,
      preValidation: signInLimit,
      schema: {
        tags,
        operationId: 'createSignInNonce',
        summary: 'Start a Sign-In with Ethereum',
        description:
          "Public. A single-use sign-in nonce (SIWE_NONCE_TTL_SECONDS) and the exact EIP-4361 message `address` signs with personal_sign, naming the site that asks (its Origin, when it is one of the platform's domains; 400 naming origin otherwise); then POST /api/auth/siwe/login. A sign-in nonce never links a wallet, nor a link nonce signs in. IDENTITY_RATE_LIMIT requests per window per client address, then 429.",
        body: siweNonceBody,
        response: { 201: envelope(siweNonce) },
      },
    },
    async (req, reply) => {
      const n = await wallets.loginNonce(req.caller, req.body, originOf(req));
      return reply.code(201).send(ok({ ...n, expires_at: n.expires_at.toISOString() }));
    },
  );

  r.post(
    '/api/auth/siwe/login',
    {
      config: { public: true },
      bodyLimit: PUBLIC_BODY_LIMIT,
      preValidation: signInLimit,
      schema: {
        tags,
        operationId: 'signInWithEthereum',
        summary: 'Sign in with a wallet',
        description:
          "Public. Checks the signed EIP-4361 message as a wallet link does (domain, chain, time window, signature — contract wallets by EIP-1271 — and an unused sign-in nonce, used once) and answers a platform session token for the wallet's user (created at the wallet's first sign-in). The token works on the backend and the admin proxy until expires_at (at most JWT_MAX_AGE_SECONDS) or POST /api/auth/logout. 400 naming the failed check (code SIWE_WRONG_DOMAIN, SIWE_EXPIRED, SIWE_BAD_SIGNATURE, SIWE_BAD_NONCE).",
        body: siweLoginBody,
        response: { 200: envelope(siweSession) },
      },
    },
    async (req) => {
      const s = await wallets.login(req.caller, req.body);
      return ok({ ...s, expires_at: s.expires_at.toISOString() });
    },
  );

  r.post(
    '/api/auth/logout',
    {
      schema: {
        tags,
        operationId: 'signOut',
        summary: 'Sign out',
        description:
          'Ends the platform session whose token authenticates this request (on every replica at once: the next request with it is 401). Any other credential is 400: a JWT ends at its exp, a user API key is revoked with DELETE /api/keys/:id.',
        response: { 200: envelope(signedOut) },
      },
    },
    async (req) => ok(await sessions.logout(req.caller, { id: req.auth.sessionId ?? null, method: req.auth.method })),
  );

  r.get(
    '/api/wallets',
    {
      schema: {
        tags,
        operationId: 'listWallets',
        summary: "The caller's linked wallets",
        description: 'Wallets the caller proved with Sign-In with Ethereum, oldest first.',
        response: { 200: walletListResponse },
      },
    },
    async (req) =>
      ok(
        (await wallets.list(req.caller)).map((w) => ({
          address: w.address,
          linked_at: w.linked_at.toISOString(),
          last_used_at: iso(w.last_used_at),
        })),
      ),
  );
};

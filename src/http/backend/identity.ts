/**
 * Identity routes (docs/api/content.md §2.8, §4.8; docs/auth.md): resolve a provider token to the
 * internal user, the caller's profile, user merge (service key only), and user API keys.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { unauthorized } from '../../domain/errors.ts';
import type { CredentialPort } from '../../services/credentials.ts';
import type { IdentityService } from '../../services/identity.ts';
import { AuthFailure, claimsOf, createAuthenticator, profileClaimsOf, type AuthSettings } from '../plugins/auth.ts';
import { PUBLIC_BODY_LIMIT, publicRouteLimiter, type PublicLimitSettings } from '../plugins/public-limit.ts';
import { presentApiKey, presentProfile } from '../present/identity.ts';
import { ok } from '../schemas/common.ts';
import {
  apiKeyParams,
  createdKeyResponse,
  createKeyBody,
  keyListResponse,
  mergeBody,
  mergeResponse,
  profileResponse,
  introspectBody,
  introspectResponse,
  resolveBody,
  resolveResponse,
  revokedKeyResponse,
  updateMeBody,
} from '../schemas/identity.ts';

export interface IdentityRoutesOptions {
  identity: IdentityService;
  /** Token verification (the middleware's settings) and the public route's limit. */
  config: AuthSettings & PublicLimitSettings;
  /** User API keys, sessions and identity resolution, as the middleware checks them (introspection). */
  credentials?: CredentialPort;
}

export const identityRoutes: FastifyPluginAsync<IdentityRoutesOptions> = async (app, { identity, config, credentials }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['identity'];
  // Token verification is authentication: the same verifier as the middleware's.
  const { verifyJwt, canVerifyJwt, userOfCredential } = createAuthenticator({
    config,
    style: 'envelope',
    ...(credentials ? { credentials } : {}),
  });
  // Public and costly (a token check, maybe a JWKS fetch, a new user): limited per address and per token.
  const identityLimit = publicRouteLimiter(app, config, {
    name: 'identity',
    style: 'envelope',
    subjectOf: (req) => {
      const t = (req.body as { access_token?: unknown } | undefined)?.access_token;
      return typeof t === 'string' && t.length > 0 ? t : undefined;
    },
  });

  r.post(
    '/api/auth/resolve',
    {
      config: { public: true },
      bodyLimit: PUBLIC_BODY_LIMIT,
      preValidation: identityLimit,
      schema: {
        tags,
        operationId: 'resolveIdentity',
        summary: 'Resolve a provider token',
        description:
          "Verifies an identity provider's access token like the middleware does and answers the internal user id, creating the user and identity when needed. Public; IDENTITY_RATE_LIMIT requests per RATE_LIMIT_WINDOW_MS per client address and per token, then 429 with Retry-After.",
        body: resolveBody,
        response: { 200: resolveResponse },
      },
    },
    async (req) => {
      if (!canVerifyJwt) throw unauthorized('no identity provider is configured (JWT_SECRET or JWT_JWKS_URL)');
      let claims;
      try {
        const payload = await verifyJwt(req.body.access_token);
        claims = { ...claimsOf(payload, config), ...profileClaimsOf(payload) };
      } catch (err) {
        if (err instanceof AuthFailure) throw unauthorized(err.message);
        throw err;
      }
      return ok(await identity.resolve(claims));
    },
  );

  r.post(
    '/api/auth/introspect',
    {
      schema: {
        tags,
        operationId: 'introspectCredential',
        summary: 'Who a user credential is (the admin proxy)',
        description:
          'The service key only. Verifies a user credential (JWT, user API key or session token) exactly as the middleware does and answers the user it names (active true) or why it names none (active false, reason). The admin proxy asks this for its signed-in callers instead of verifying credentials itself; a refused credential is counted against the proxy\'s client, not against the proxy (docs/auth.md "The admin proxy").',
        body: introspectBody,
        response: { 200: introspectResponse },
      },
    },
    async (req) =>
      ok(
        await identity.introspect(req.caller, async () => {
          try {
            const who = await userOfCredential(req.body.credential, req.log);
            return { active: true as const, user_id: who.userId!, kind: who.method as 'jwt' | 'api_key' | 'session' };
          } catch (err) {
            if (err instanceof AuthFailure) return { active: false as const, reason: err.message };
            throw err;
          }
        }),
      ),
  );

  r.get(
    '/api/me',
    {
      schema: {
        tags,
        operationId: 'getMe',
        summary: "The caller's user",
        description: "The caller's user record with its identities; 404 when the caller is not resolved to an internal user.",
        response: { 200: profileResponse },
      },
    },
    async (req) => ok(presentProfile(await identity.me(req.caller))),
  );

  r.patch(
    '/api/me',
    {
      schema: {
        tags,
        operationId: 'updateMe',
        summary: "Change the caller's display name or avatar",
        description:
          "`display_name` (1–100 characters) and `avatar_url` (http(s) URL); null clears one. They are the creator's name and picture in the feed, and the `social_pfp` of the caller's samples and mints (docs/auth.md \"Profile\"). The caller's own record only; 404 when the caller is not resolved to an internal user.",
        body: updateMeBody,
        response: { 200: profileResponse },
      },
    },
    async (req) =>
      ok(
        presentProfile(
          await identity.updateMe(req.caller, {
            ...(req.body.display_name !== undefined ? { displayName: req.body.display_name } : {}),
            ...(req.body.avatar_url !== undefined ? { avatarUrl: req.body.avatar_url } : {}),
          }),
        ),
      ),
  );

  r.post(
    '/api/users/merge',
    {
      schema: {
        tags,
        operationId: 'mergeUsers',
        summary: 'Merge two users',
        description:
          'Moves every owned record, the identities and the credit balance of the secondary user to the primary and deletes the secondary, in one transaction. The service key only.',
        body: mergeBody,
        response: { 200: mergeResponse },
      },
    },
    async (req) => ok(await identity.merge(req.caller, req.body.primary_user_id, req.body.secondary_user_id)),
  );

  r.post(
    '/api/keys',
    {
      schema: {
        tags,
        operationId: 'createApiKey',
        summary: 'Create an API key',
        description: "A new API key for the caller's user; the key is shown once (only its hash is stored).",
        body: createKeyBody,
        response: { 201: createdKeyResponse },
      },
    },
    async (req, reply) => {
      const key = await identity.createKey(req.caller, req.body.name);
      return reply.code(201).send(ok({ ...presentApiKey({ ...key, last_used_at: null, revoked_at: null }), key: key.key }));
    },
  );

  r.get(
    '/api/keys',
    {
      schema: {
        tags,
        operationId: 'listApiKeys',
        summary: "The caller's API keys",
        description: "The caller's API keys without their secrets.",
        response: { 200: keyListResponse },
      },
    },
    async (req) => ok((await identity.listKeys(req.caller)).map(presentApiKey)),
  );

  r.delete(
    '/api/keys/:id',
    {
      schema: {
        tags,
        operationId: 'revokeApiKey',
        summary: 'Revoke an API key',
        description: "Revokes one of the caller's keys; an unknown, revoked or another user's key is 404.",
        params: apiKeyParams,
        response: { 200: revokedKeyResponse },
      },
    },
    async (req) => ok(await identity.revokeKey(req.caller, req.params.id)),
  );
};

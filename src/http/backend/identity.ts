/**
 * Identity routes (content-service.md §2.8, §4.8): resolve a provider token to the internal user,
 * the caller's profile, user merge (service key only), and user API keys.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createApiKey, listApiKeys, revokeApiKey } from '../../db/api-keys.ts';
import { resolveUser } from '../../db/identity.ts';
import { getUserWithIdentities, mergeUsers } from '../../db/users.ts';
import { forbidden, notFound, unauthorized } from '../../domain/errors.ts';
import { AuthFailure, claimsOf, createAuthenticator, requireUser } from '../plugins/auth.ts';
import { idParams, ok, UUID_RE, uuid } from '../schemas/common.ts';
import type { BackendDeps } from './app.ts';

export function identityRoutes(app: FastifyInstance, deps: BackendDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps.database;
  const { verifyJwt, canVerifyJwt } = createAuthenticator({ config: deps.config, db, style: 'envelope' });

  r.post(
    '/api/auth/resolve',
    {
      config: { public: true },
      schema: {
        tags: ['identity'],
        body: z.object({ access_token: z.string().min(1, 'access_token is required').max(10_000) }),
      },
    },
    async (req) => {
      if (!canVerifyJwt) throw unauthorized('no identity provider is configured (JWT_SECRET or JWT_JWKS_URL)');
      let claims;
      try {
        claims = claimsOf(await verifyJwt(req.body.access_token), deps.config);
      } catch (err) {
        if (err instanceof AuthFailure) throw unauthorized(err.message);
        throw err;
      }
      const { provider, sub, email } = claims;
      const userId = await resolveUser(db, { provider, providerUserId: sub, email });
      return ok({ user_id: userId, provider, provider_user_id: sub });
    },
  );

  r.get('/api/me', { schema: { tags: ['identity'] } }, async (req) => {
    const userId = requireUser(req);
    if (!UUID_RE.test(userId)) throw notFound(`user ${userId} (not resolved to an internal user)`);
    return ok(await getUserWithIdentities(db, userId));
  });

  r.post(
    '/api/users/merge',
    {
      schema: {
        tags: ['identity'],
        body: z.object({ primary_user_id: uuid, secondary_user_id: uuid }),
      },
    },
    async (req) => {
      if (req.auth.method !== 'service_key' && req.auth.method !== 'disabled') {
        throw forbidden('merging users needs the service key');
      }
      return ok(await mergeUsers(db, req.body.primary_user_id, req.body.secondary_user_id));
    },
  );

  r.post(
    '/api/keys',
    { schema: { tags: ['identity'], body: z.object({ name: z.string().trim().min(1).max(100) }) } },
    async (req, reply) => {
      const key = await createApiKey(db, requireUser(req), req.body.name);
      return reply.code(201).send(ok(key));
    },
  );

  r.get('/api/keys', { schema: { tags: ['identity'] } }, async (req) => ok(await listApiKeys(db, requireUser(req))));

  r.delete('/api/keys/:id', { schema: { tags: ['identity'], params: idParams } }, async (req) => {
    if (!(await revokeApiKey(db, requireUser(req), req.params.id))) throw notFound(`API key ${req.params.id}`);
    return ok({ id: req.params.id, revoked: true });
  });
}

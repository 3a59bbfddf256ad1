/**
 * The Idempotency-Key header on a route plugin (docs/minting.md "Idempotency"). A route opts in
 * with `config: { idempotency: '<route name>' }`. One run per (route, caller, key): the scope is
 * route + auth method + user id, so two callers never share a key; a repeat gets the stored
 * response with `idempotent-replayed: true`; only successes (status < 400) are stored, a failure
 * releases the key. The key is held on a lease the request renews while it runs; a key whose
 * holder died is taken over by a retry once the lease is over. Without the header every request runs. Either way the handler gets
 * `senderKey(request)`: the key its chain write is sent under, the same for every retry of one
 * (scope, key), fresh without a header.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { invalid } from '../../domain/errors.ts';
import type { Idempotency } from '../../services/idempotency.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Route name of an idempotent route (part of the key's scope). */
    idempotency?: string;
  }
  interface FastifyRequest {
    idempotency?: { senderKey: string; owned?: { scope: string; key: string; hash: string }; lease?: NodeJS.Timeout };
  }
}

/** The header's key, or undefined when absent; 400 when it is not 1–200 visible ASCII characters. */
export function parseIdempotencyKey(raw: string | string[] | undefined): string | undefined {
  const key = Array.isArray(raw) ? raw[0] : raw;
  if (key === undefined) return undefined;
  if (!/^[\x21-\x7e]{1,200}$/.test(key)) throw invalid('header.idempotency-key: 1 to 200 visible ASCII characters');
  return key;
}

export const idempotencyScope = (route: string, auth: { method: string; userId: string | null }) =>
  `${route}:${auth.method}:${auth.userId ?? '-'}`;

/** The request a key is bound to: path parameters and the validated body. */
export const requestHash = (request: { params: unknown; body: unknown }) =>
  createHash('sha256')
    .update(JSON.stringify({ params: request.params, body: request.body }) ?? 'null')
    .digest('hex');

/** The chain write key of this request (set by the hook for every idempotent route). */
export function senderKey(request: FastifyRequest): string {
  if (!request.idempotency) throw new Error(`route ${request.routeOptions.url} is not marked idempotent`);
  return request.idempotency.senderKey;
}

/** Hooks the plugin scope `app` (inside `app.register`): its routes marked idempotent follow the protocol. */
export function useIdempotency(app: FastifyInstance, idempotency: Idempotency): void {
  app.addHook('preHandler', async (request, reply) => {
    const route = request.routeOptions.config.idempotency;
    if (!route) return;
    const key = parseIdempotencyKey(request.headers['idempotency-key']);
    if (key === undefined) {
      request.idempotency = { senderKey: `${route}:${randomUUID()}` };
      return;
    }
    const scope = idempotencyScope(route, request.auth);
    const hash = requestHash(request);
    const stored = await idempotency.begin(scope, key, hash);
    if (stored) return reply.code(stored.statusCode).header('idempotent-replayed', 'true').send(stored.body);
    // The lease: renewed while this request runs, so a waiter takes the key over only from a dead holder.
    const lease = setInterval(() => void idempotency.renew(scope, key).catch(() => undefined), idempotency.leaseMs / 3);
    lease.unref();
    request.idempotency = { senderKey: `${scope}:${key}`, owned: { scope, key, hash }, lease };
  });
  app.addHook('onResponse', async (request) => {
    if (request.idempotency?.lease) clearInterval(request.idempotency.lease);
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const owned = request.idempotency?.owned;
    if (request.idempotency?.lease) clearInterval(request.idempotency.lease);
    if (!owned) return payload;
    request.idempotency!.owned = undefined;
    if (reply.statusCode < 400) {
      const body = typeof payload === 'string' ? JSON.parse(payload) : payload;
      // The answer goes out either way; a key that could not be stored is released, so a retry
      // runs again (and finds the chain write and the deck of this run).
      await idempotency
        .finish(owned.scope, owned.key, owned.hash, { statusCode: reply.statusCode, body })
        .catch(() => idempotency.release(owned.scope, owned.key).catch(() => undefined));
    } else {
      await idempotency.release(owned.scope, owned.key).catch(() => undefined);
    }
    return payload;
  });
}

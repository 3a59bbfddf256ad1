/**
 * Authentication for both apps (docs/api/nft.md §5, docs/api/content.md §5; docs/auth.md).
 *
 * Credentials: the service key (API_KEY), a user API key (`atk_…`) or a platform session token
 * (`ats_…`, from a Sign-In with Ethereum login), in `X-API-Key` or `Authorization: Bearer`; or a
 * JWT in `Authorization: Bearer` (HS256 with JWT_SECRET, or any algorithm the identity provider's
 * JWKS at JWT_JWKS_URL publishes). The verified credential sets `request.auth` and the `user_id`,
 * `provider_user_id` and `auth_provider` headers. A `user_id` header sent by a client is trusted
 * only from a caller holding the service key (service to service calls on behalf of a user), or
 * when auth is switched off.
 *
 * The admin proxy verifies no user credential itself: it asks the backend who the credential is
 * (`remote`, src/http/admin/caller-lookup.ts) and forwards the user's calls with that credential.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { Config } from '../../config.ts';
import { SESSION_TOKEN_PREFIX, USER_KEY_PREFIX } from '../../domain/credentials.ts';
import type { CredentialPort } from '../../services/credentials.ts';
import { unauthorized } from '../../domain/errors.ts';
import type { Caller } from '../../domain/policy.ts';
import { sendError, type ErrorStyle } from './errors.ts';

export type AuthMethod = 'service_key' | 'api_key' | 'jwt' | 'session' | 'disabled' | 'public';

export interface AuthContext {
  method: AuthMethod;
  /** Internal user uuid when resolved, else the provider id (identity rule 5), else null. */
  userId: string | null;
  providerUserId: string | null;
  authProvider: string | null;
  /** The platform session presented (method `session`), for sign-out. */
  sessionId?: string | null;
  /**
   * The user's own credential, where this process forwards the user's calls with it (the admin
   * proxy). Never logged, never sent anywhere but to the backend.
   */
  forwardCredential?: string;
}

/**
 * Who a user credential is, asked of the service that verifies it (the admin proxy asks the
 * backend). `refused` carries that service's reason (a 401 here); an outage throws (5xx).
 */
export interface RemoteCallerLookup {
  /** `fresh`: ask the verifying service now, not a recent answer (routes that act on their own). */
  whoIs(credential: string, opts?: { fresh?: boolean }): Promise<{ userId: string } | { refused: string }>;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext;
    /** Who is calling, decided once here; services authorize it through domain/policy.ts. */
    caller: Caller;
  }
  interface FastifyContextConfig {
    /** Route is open to everyone (public metadata, health, docs). */
    public?: boolean;
    /**
     * The admin proxy acts on this route itself (a chain write signed by the platform wallet): a
     * user credential is asked of the backend afresh, never taken from the lookup cache, so a
     * credential revoked or signed out a moment ago cannot act.
     */
    freshCaller?: boolean;
  }
}

/** What recognising the service key (and the admin proxy's proof made from it) reads from the configuration. */
export type ServiceKeyOptions = Pick<Config, 'API_KEY'>;

/** What naming a verified token's identity reads from the configuration. */
export type ClaimsOptions = Pick<Config, 'JWT_PROVIDER'>;

/** What the failed-authentication limit reads from the configuration. */
export type FailureLimitOptions = ServiceKeyOptions & Pick<Config, 'AUTH_FAILURE_LIMIT' | 'RATE_LIMIT_WINDOW_MS'>;

/** What authentication reads from the configuration: the service key, the JWT settings, the failure limit. */
export type AuthSettings = ServiceKeyOptions &
  ClaimsOptions &
  FailureLimitOptions &
  Pick<Config, 'ENABLE_AUTH' | 'JWT_SECRET' | 'JWT_JWKS_URL' | 'JWT_ISSUER' | 'JWT_AUDIENCE' | 'JWT_MAX_AGE_SECONDS'>;

export interface AuthOptions {
  config: AuthSettings;
  /** User API keys and identity resolution; without it only the service key and bare JWT subjects work. */
  credentials?: CredentialPort;
  style: ErrorStyle;
  /** User credentials are verified by another service (the admin proxy asks the backend). */
  remote?: RemoteCallerLookup;
}

export class AuthFailure extends Error {}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function credentialOf(request: FastifyRequest): string | undefined {
  const apiKey = headerValue(request, 'x-api-key');
  if (apiKey) return apiKey.trim();
  const authorization = headerValue(request, 'authorization');
  if (!authorization) return undefined;
  const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
  if (!match) throw new AuthFailure('Authorization header must be "Bearer <token>"');
  return match[1]!.trim();
}

/**
 * The header the admin proxy adds to the calls it forwards with a user's own credential, and its
 * value: an HMAC of the service key (never the key itself, so a logged header authenticates no
 * one). It proves only that the admin proxy forwarded the call, so the backend does not count the
 * user's failed authentication against the proxy's address (docs/auth.md "The admin proxy").
 */
export const FORWARDED_BY_PROXY_HEADER = 'x-atelier-forwarded-by';
export const proxyProof = (serviceKey: string): string =>
  createHmac('sha256', serviceKey).update('atelier admin proxy: forwarded user call').digest('base64url');

/** Whether the admin proxy forwarded this request (its proof, compared in constant time). */
function forwardedByProxy(request: FastifyRequest, config: ServiceKeyOptions): boolean {
  const proof = headerValue(request, FORWARDED_BY_PROXY_HEADER);
  return Boolean(config.API_KEY && proof && safeEqual(proof, proxyProof(config.API_KEY)));
}

/** Whether the request presents the service key (a constant-time comparison). */
export function holdsServiceKey(request: FastifyRequest, config: ServiceKeyOptions): boolean {
  if (!config.API_KEY) return false;
  try {
    const credential = credentialOf(request);
    return credential !== undefined && safeEqual(credential, config.API_KEY);
  } catch {
    return false;
  }
}

/** The kind of a user credential by its shape (for answers that name it; never for trust). */
export function credentialKind(credential: string): 'api_key' | 'session' | 'jwt' {
  if (credential.startsWith(USER_KEY_PREFIX)) return 'api_key';
  if (credential.startsWith(SESSION_TOKEN_PREFIX)) return 'session';
  return 'jwt';
}

const looksLikeJwt = (token: string) => /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);

/** Printable text of a claim: control characters (NUL included) dropped, trimmed, at most `max` characters. */
function claimText(v: unknown, max: number): string | null {
  if (typeof v !== 'string') return null;
  const t = v.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return t && t.isWellFormed() ? t.slice(0, max) : null;
}

/**
 * The profile a verified token carries (OpenID Connect `name` and `picture`): the display name and
 * avatar a user gets at resolution (docs/auth.md "Profile"). A picture must be an http(s) URL.
 */
export function profileClaimsOf(payload: JWTPayload): { displayName: string | null; avatarUrl: string | null } {
  const picture = claimText(payload.picture, 2048);
  let avatarUrl: string | null = null;
  try {
    if (picture && ['http:', 'https:'].includes(new URL(picture).protocol)) avatarUrl = picture;
  } catch {
    avatarUrl = null;
  }
  return { displayName: claimText(payload.name, 100), avatarUrl };
}

export interface TokenClaims {
  provider: string;
  sub: string;
  email: string | null;
  /** `email_verified: true` in the token: only then may the email link accounts (docs/auth.md). */
  emailVerified: boolean;
}

/** The identity a verified token names: its provider (claim or JWT_PROVIDER), subject and email. */
const RESERVED_PROVIDERS = new Set(['wallet', 'api_key']);

export function claimsOf(payload: JWTPayload, config: ClaimsOptions): TokenClaims {
  if (!payload.sub) throw new AuthFailure('invalid token: no sub claim');
  const provider = typeof payload.provider === 'string' ? payload.provider.slice(0, 30) : config.JWT_PROVIDER;
  // Wallet identities are made only by a Sign-In with Ethereum signature, API keys only by us: a
  // token naming those providers would act as a wallet (or key) it never proved.
  if (RESERVED_PROVIDERS.has(provider.toLowerCase())) {
    throw new AuthFailure(`invalid token: provider "${provider}" is reserved (wallets are linked with Sign-In with Ethereum)`);
  }
  const email = typeof payload.email === 'string' ? payload.email : null;
  return { provider, sub: payload.sub, email, emailVerified: email !== null && payload.email_verified === true };
}

/**
 * Every token must expire, and not later than JWT_MAX_AGE_SECONDS after it was issued (or from
 * now, for a token without iat): a stolen long-lived token is refused, not trusted for years.
 */
function checkLifetime(payload: JWTPayload, maxAge: number): void {
  if (typeof payload.exp !== 'number') throw new AuthFailure('invalid token: no exp claim (tokens must expire)');
  const now = Math.floor(Date.now() / 1000);
  const lifetime = Math.max(payload.exp - (typeof payload.iat === 'number' ? payload.iat : now), payload.exp - now);
  if (lifetime > maxAge) {
    throw new AuthFailure(`invalid token: it is valid for ${lifetime} s, longer than the ${maxAge} s allowed (JWT_MAX_AGE_SECONDS)`);
  }
}

export function createAuthenticator(opts: AuthOptions) {
  const { config } = opts;
  const hsKey = config.JWT_SECRET ? new TextEncoder().encode(config.JWT_SECRET) : undefined;
  const jwks = config.JWT_JWKS_URL ? createRemoteJWKSet(new URL(config.JWT_JWKS_URL)) : undefined;

  async function verifyJwt(token: string): Promise<JWTPayload> {
    const verifyOpts = {
      ...(config.JWT_ISSUER ? { issuer: config.JWT_ISSUER } : {}),
      ...(config.JWT_AUDIENCE ? { audience: config.JWT_AUDIENCE } : {}),
    };
    let header: { alg?: unknown };
    try {
      header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8')) as { alg?: unknown };
    } catch {
      throw new AuthFailure('invalid token: malformed header');
    }
    // `null`, a number or an array decode as JSON too: the header must be an object with an alg.
    if (typeof header !== 'object' || header === null || Array.isArray(header) || typeof header.alg !== 'string') {
      throw new AuthFailure('invalid token: the header must be a JSON object naming its alg');
    }
    try {
      if (header.alg === 'HS256' && hsKey) {
        const { payload } = await jwtVerify(token, hsKey, { ...verifyOpts, algorithms: ['HS256'] });
        checkLifetime(payload, config.JWT_MAX_AGE_SECONDS);
        return payload;
      }
      if (header.alg !== 'HS256' && jwks) {
        const { payload } = await jwtVerify(token, jwks, verifyOpts);
        checkLifetime(payload, config.JWT_MAX_AGE_SECONDS);
        return payload;
      }
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw new AuthFailure('token expired');
      if (err instanceof joseErrors.JOSEError) throw new AuthFailure(`invalid token: ${err.code}`);
      throw err;
    }
    throw new AuthFailure(`tokens signed with ${header.alg ?? 'no algorithm'} are not accepted`);
  }

  /**
   * A user credential (API key, session token or JWT) as the user it names; AuthFailure when it
   * names none. The middleware's path and the admin proxy's introspection (POST
   * /api/auth/introspect) share it.
   */
  async function userOfCredential(credential: string, log?: FastifyRequest['log']): Promise<AuthContext> {
    if (credential.startsWith(SESSION_TOKEN_PREFIX) && opts.credentials) {
      const session = await opts.credentials.sessionOf(credential);
      if (!session) throw new AuthFailure('invalid session: unknown, expired or signed out (sign in again)');
      return {
        method: 'session',
        userId: session.user_id,
        providerUserId: session.user_id,
        authProvider: 'session',
        sessionId: session.id,
      };
    }
    if (credential.startsWith(USER_KEY_PREFIX) && opts.credentials) {
      const userId = await opts.credentials.userOfApiKey(credential);
      if (!userId) throw new AuthFailure('invalid API key');
      return { method: 'api_key', userId, providerUserId: userId, authProvider: 'api_key' };
    }
    if (looksLikeJwt(credential) && (hsKey || jwks)) {
      const payload = await verifyJwt(credential);
      const { provider, sub, email, emailVerified } = claimsOf(payload, config);
      let userId: string = sub;
      if (opts.credentials) {
        try {
          userId = await opts.credentials.resolveAccount({
            provider,
            providerUserId: sub,
            email,
            emailVerified,
            ...profileClaimsOf(payload),
          });
        } catch (err) {
          // Identity rule 5: a lookup failure never fails the request; fall back to the provider id.
          log?.warn({ err }, 'identity resolution failed; using the provider id');
        }
      }
      return { method: 'jwt', userId, providerUserId: sub, authProvider: provider };
    }
    throw new AuthFailure('invalid credentials');
  }

  async function authenticate(request: FastifyRequest): Promise<AuthContext> {
    const credential = credentialOf(request);
    const claimedUser = headerValue(request, 'user_id')?.trim() || null;
    if (!config.ENABLE_AUTH) {
      return { method: 'disabled', userId: claimedUser, providerUserId: null, authProvider: null };
    }
    if (!credential) throw new AuthFailure('authentication required: send X-API-Key or Authorization: Bearer');
    if (config.API_KEY && safeEqual(credential, config.API_KEY)) {
      return { method: 'service_key', userId: claimedUser, providerUserId: null, authProvider: 'service' };
    }
    if (opts.remote) {
      const who = await opts.remote.whoIs(credential, { fresh: request.routeOptions.config?.freshCaller === true });
      if ('refused' in who) throw new AuthFailure(who.refused);
      return {
        method: credentialKind(credential),
        userId: who.userId,
        providerUserId: who.userId,
        authProvider: 'backend',
        forwardCredential: credential,
      };
    }
    return userOfCredential(credential, request.log);
  }

  return { authenticate, userOfCredential, verifyJwt, canVerifyJwt: Boolean(hsKey || jwks) };
}

/** The caller the policy sees: the service key (or auth off) is the operator acting for `userId`. */
export function callerOf(auth: AuthContext): Caller {
  if (auth.method === 'service_key' || auth.method === 'disabled') return { kind: 'service', userId: auth.userId };
  if (auth.method === 'public' || !auth.userId) return { kind: 'anonymous' };
  return { kind: 'user', userId: auth.userId };
}

const ANONYMOUS: AuthContext = { method: 'public', userId: null, providerUserId: null, authProvider: null };

/**
 * A presented credential, as a short fingerprint (the counter key never holds the secret). The
 * credential itself, not the header's text: `X-API-Key: k`, `Authorization: Bearer k` and
 * `bearer  k` are one credential, counted once (the admin proxy forwards as Bearer).
 */
function credentialFingerprint(request: FastifyRequest): string {
  let credential: string | undefined;
  try {
    credential = credentialOf(request);
  } catch {
    credential = undefined;
  }
  const raw = credential ?? headerValue(request, 'authorization') ?? '';
  return createHash('sha256').update(raw).digest('base64url').slice(0, 22);
}

/**
 * Failed authentication is rate limited per client address and per presented credential
 * (@fastify/rate-limit, registered by the app shell). Only failures count; once an address or a
 * credential has used up its failures in the window, every request it makes is refused with 429
 * until the window ends — valid keys included, so the limit cannot be used to tell a valid key
 * from an invalid one. A failure the admin proxy forwarded (its proof header) counts per
 * credential only: the proxy counts its clients per address itself.
 */
function failureLimiter(app: FastifyInstance, config: FailureLimitOptions) {
  const common = { max: config.AUTH_FAILURE_LIMIT, timeWindow: config.RATE_LIMIT_WINDOW_MS };
  const byAddress = app.createRateLimit({ ...common, keyGenerator: (req) => `authfail:ip:${req.ip}` });
  const byCredential = app.createRateLimit({ ...common, keyGenerator: (req) => `authfail:cred:${credentialFingerprint(req)}` });
  const presents = (req: FastifyRequest) => Boolean(headerValue(req, 'x-api-key') ?? headerValue(req, 'authorization'));
  const check = async (req: FastifyRequest, increment: boolean) => {
    // A user's failure the admin proxy forwarded is the user's, not the proxy's: counted per
    // credential only, or one user could lock every caller of the proxy (the operator included) out.
    const countAddress = !(increment && forwardedByProxy(req, config));
    const results = await Promise.all([
      ...(countAddress ? [byAddress(req, { increment })] : []),
      ...(presents(req) ? [byCredential(req, { increment })] : []),
    ]);
    const spent = results.filter((r) => !r.isAllowed && (increment ? r.isExceeded : r.remaining === 0));
    return spent.length === 0 ? null : Math.max(1, ...spent.map((r) => (r.isAllowed ? 0 : r.ttlInSeconds)));
  };
  return {
    /** Seconds to wait when this request's address or credential has no failures left, else null. */
    blocked: (req: FastifyRequest) => check(req, false),
    /** Counts one failure; seconds to wait when that used up the last one, else null. */
    failed: (req: FastifyRequest) => check(req, true),
  };
}

function tooManyFailures(reply: FastifyReply, style: ErrorStyle, retryAfter: number) {
  reply.header('retry-after', String(retryAfter));
  return sendError(reply, style, 429, `too many failed authentication attempts: retry after ${retryAfter} s`);
}

export function installAuth(app: FastifyInstance, opts: AuthOptions) {
  const { authenticate } = createAuthenticator(opts);
  const limiter = failureLimiter(app, opts.config);
  app.decorateRequest('auth', null as never);
  app.decorateRequest('caller', null as never);
  app.addHook('onRequest', async (request, reply) => {
    // Never let a client-sent identity header through unverified.
    delete request.headers['provider_user_id'];
    delete request.headers['auth_provider'];
    if (request.routeOptions.config?.public) {
      delete request.headers['user_id'];
      request.auth = ANONYMOUS;
      request.caller = { kind: 'anonymous' };
      return;
    }
    if (opts.config.ENABLE_AUTH) {
      const wait = await limiter.blocked(request);
      if (wait !== null) return tooManyFailures(reply, opts.style, wait);
    }
    try {
      request.auth = await authenticate(request);
    } catch (err) {
      if (!(err instanceof AuthFailure)) throw err;
      const wait = await limiter.failed(request);
      if (wait !== null) return tooManyFailures(reply, opts.style, wait);
      return sendError(reply, opts.style, 401, err.message);
    }
    request.caller = callerOf(request.auth);
    const { userId, providerUserId, authProvider } = request.auth;
    if (userId) request.headers['user_id'] = userId;
    else delete request.headers['user_id'];
    if (providerUserId) request.headers['provider_user_id'] = providerUserId;
    if (authProvider) request.headers['auth_provider'] = authProvider;
  });
}

/** The caller's user id, or a 401 (outputs and decks need a user: docs/api/content.md §5.1). */
export function requireUser(request: FastifyRequest): string {
  const id = request.auth?.userId;
  if (!id) throw unauthorized('user_id required: authenticate as a user, or send user_id with the service key');
  return id;
}

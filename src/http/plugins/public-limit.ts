/**
 * Rate limits of the public identity routes (POST /api/auth/resolve, the Sign-In with Ethereum
 * routes, and their admin proxy forwards): they create users and cost a signature or token check.
 * IDENTITY_RATE_LIMIT requests per RATE_LIMIT_WINDOW_MS per client address and, where given, per
 * secret subject (the token of POST /api/auth/resolve; never a public one such as a wallet
 * address, which would let anyone lock its owner out), then 429 with Retry-After (@fastify/rate-limit; counters in Redis
 * when REDIS_URL is set, so every replica counts together). Counter keys hold fingerprints, never
 * the token itself.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import { holdsServiceKey, type ServiceKeyOptions } from './auth.ts';
import { sendError, type ErrorStyle } from './errors.ts';

/** What the public routes' limit reads from the configuration (and the service key, to recognise the admin proxy). */
export type PublicLimitSettings = ServiceKeyOptions & Pick<Config, 'IDENTITY_RATE_LIMIT' | 'RATE_LIMIT_WINDOW_MS'>;

export interface PublicLimitOptions {
  /** Counter namespace (one per route family). */
  name: string;
  /** What else is counted besides the client address (a token, a wallet address), if any. */
  subjectOf?: (req: FastifyRequest) => string | undefined;
  style: ErrorStyle;
  /**
   * A request holding the service key is not counted per client address: it is the admin proxy
   * forwarding for its own clients, whom it counts per address itself. Its subjects still count.
   */
  trustServiceKey?: boolean;
}

/**
 * The body limit of the public identity routes: their bodies are a token or a signed message and
 * its signature (at most ~25 KB), while the apps take up to 16 MB (uploads). Without it anyone,
 * signed in or not, could make a process parse 16 MB of JSON per request: the limiter runs after
 * the body is parsed, so even a request it refuses was read whole first.
 */
export const PUBLIC_BODY_LIMIT = 64 * 1024;

const fingerprint = (s: string) => createHash('sha256').update(s).digest('base64url').slice(0, 22);

export function publicRouteLimiter(app: FastifyInstance, config: PublicLimitSettings, opts: PublicLimitOptions) {
  const common = { max: config.IDENTITY_RATE_LIMIT, timeWindow: config.RATE_LIMIT_WINDOW_MS };
  const byAddress = app.createRateLimit({ ...common, keyGenerator: (req) => `${opts.name}:ip:${req.ip}` });
  const bySubject = app.createRateLimit({
    ...common,
    keyGenerator: (req) => `${opts.name}:sub:${fingerprint(opts.subjectOf!(req)!)}`,
  });
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const countAddress = !(opts.trustServiceKey && holdsServiceKey(req, config));
    const subject = opts.subjectOf?.(req);
    const results = await Promise.all([...(countAddress ? [byAddress(req)] : []), ...(subject ? [bySubject(req)] : [])]);
    const over = results.filter((r) => !r.isAllowed && r.isExceeded);
    if (over.length === 0) return;
    const wait = Math.max(1, ...over.map((r) => (r.isAllowed ? 0 : r.ttlInSeconds)));
    reply.header('retry-after', String(wait));
    return sendError(reply, opts.style, 429, `too many identity requests: retry after ${wait} s`);
  };
}

/**
 * What every Fastify app shares: zod compilers, input guards, the rate-limit store, OpenAPI,
 * health routes, log redaction.
 */
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyBaseLogger, LogController, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { Redis } from 'ioredis';
import type { Config } from '../../config.ts';
import { logOptions } from '../../logging/log-lines.ts';
import { type ErrorStyle, sendError } from './errors.ts';
import { installInputGuards } from './input.ts';
import { installOpenApi } from './openapi.ts';
import { runReadiness, type ReadinessChecks } from '../readiness.ts';
import { installMetrics, type MetricSources } from '../metrics.ts';
import { trackDrain } from '../drain.ts';

/** What the app shell reads from the configuration: logging, the proxies to trust, the rate-limit store, /metrics. */
export type AppShellSettings = Pick<Config, 'LOG_LEVEL' | 'TRUST_PROXY' | 'REDIS_URL' | 'RATE_LIMIT_WINDOW_MS' | 'METRICS_TOKEN'>;

export interface AppShellOptions {
  config: AppShellSettings;
  title: string;
  description: string;
  /** Body limit in bytes (upload-base64 needs ~14 MB of base64 for 10 MB of bytes). */
  bodyLimit?: number;
  /** Readiness checks by dependency name (database, queue, chain, backend…), for /readyz. */
  ready?: ReadinessChecks;
  /**
   * Facts /readyz shows beside its checks without deciding readiness (the platform wallet's
   * balance: a low wallet should page the operator, not take the backend out of rotation).
   */
  readyDetails?: () => Promise<Record<string, unknown>>;
  /** What /metrics measures in this process besides HTTP latency and duty leaders (src/http/metrics.ts). */
  metrics?: Omit<MetricSources, 'token'>;
  /** The app's error shape, for the router's own refusals too (default the backend's envelope). */
  errorStyle?: ErrorStyle;
  /**
   * The process's logger, when the services built before the app log to it too
   * (src/processes/backend.ts); default one from LOG_LEVEL.
   */
  logger?: FastifyBaseLogger;
}

/**
 * zod's validator, with one difference: Fastify hands the validator `null` for a request without a
 * body, which zod would refuse even when the body schema has a default or is optional (`POST
 * /api/nft/deploy` with no body means chain 31337). An absent body is `undefined` to zod, so the
 * schema's default applies; a body a route requires is still a 400 naming `body`.
 */
const bodyAbsentAsUndefined: typeof validatorCompiler = (route) => {
  const validate = validatorCompiler(route);
  return route.httpPart === 'body' ? (data: unknown) => validate(data === null ? undefined : data) : validate;
};

/** The longest path parameter the router takes: ids are at most 200 characters (job ids). */
export const MAX_PARAM_LENGTH = 200;

export async function createAppShell(opts: AppShellOptions): Promise<FastifyInstance> {
  const app = Fastify({
    ...(opts.logger
      ? { loggerInstance: opts.logger }
      : { logger: opts.config.LOG_LEVEL === 'silent' ? false : logOptions(opts.config.LOG_LEVEL) }),
    bodyLimit: opts.bodyLimit ?? 1024 * 1024,
    logController: new LogController({
      disableRequestLogging: opts.config.LOG_LEVEL !== 'debug' && opts.config.LOG_LEVEL !== 'trace',
    }),
    // Generated once per process for each request; lets logs be correlated.
    requestIdHeader: 'x-request-id',
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // The client's address behind the proxies TRUST_PROXY names (rate limits count it); else the peer's.
    trustProxy: opts.config.TRUST_PROXY ?? false,
    // What the router refuses before any route runs, as a 400 naming the path in the app's shape
    // (not Fastify's own {error, code, message}).
    frameworkErrors: (error, _request, reply) =>
      sendError(
        reply,
        opts.errorStyle ?? 'envelope',
        400,
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? `path: a path parameter is longer than ${MAX_PARAM_LENGTH} characters`
          : error.code === 'FST_ERR_BAD_URL'
            ? 'path: not a valid URL (a % must be followed by two hex digits)'
            : `path: ${error.message}`,
      ),
  });
  // In-flight answers and open streams are known from the first request, for the drain on SIGTERM.
  trackDrain(app.server);
  app.setValidatorCompiler(bodyAbsentAsUndefined);
  app.setSerializerCompiler(serializerCompiler);
  installInputGuards(app);
  // Limits are applied where they are declared (failed authentication, the identity route); the
  // counters are shared through Redis when there is one, so every replica sees the same count.
  const redis = opts.config.REDIS_URL ? new Redis(opts.config.REDIS_URL, { maxRetriesPerRequest: 1, lazyConnect: false }) : undefined;
  redis?.on('error', () => {}); // skipOnError: a Redis outage lets requests through rather than failing them
  if (redis) app.addHook('onClose', async () => void redis.disconnect());
  await app.register(rateLimit, {
    global: false,
    timeWindow: opts.config.RATE_LIMIT_WINDOW_MS,
    skipOnError: true,
    ...(redis ? { redis, nameSpace: 'atelier-rl:' } : {}),
  });

  // /openapi.json and /docs, examples and locks included (openapi.ts).
  await installOpenApi(app, { title: opts.title, description: opts.description });
  installMetrics(app, { process: 'app', ...opts.metrics, token: opts.config.METRICS_TOKEN });
  app.get('/healthz', { config: { public: true }, schema: { hide: true } }, async () => ({ status: 'ok' }));
  // Each dependency named with its state; 503 while any is down (src/http/readiness.ts).
  app.get('/readyz', { config: { public: true }, schema: { hide: true } }, async (_req, reply) => {
    const report = await runReadiness(opts.ready ?? {});
    const details = opts.readyDetails ? await opts.readyDetails().catch(() => undefined) : undefined;
    return reply.code(report.status === 'ready' ? 200 : 503).send(details ? { ...report, details } : report);
  });
  return app;
}

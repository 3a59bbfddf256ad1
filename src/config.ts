/**
 * Every environment variable Atelier reads, parsed once at start. A bad value stops the start
 * with a ConfigError that names the variable; nothing else in src/ reads process.env.
 */
import { parseThresholds } from './domain/wallet-threshold.ts';
import { WEBHOOK_RETRY_DELAYS_MS } from './domain/standard-webhooks.ts';
import path from 'node:path';
import { isIP } from 'node:net';
import { z } from 'zod';
import { checksumProblem } from './domain/address.ts';
import { ConfigError } from './config-error.ts';

export { ConfigError };

const port = z.coerce.number().int().min(0).max(65535);
const bool = z
  .string()
  .trim()
  .toLowerCase()
  .refine((v) => ['true', 'false', '1', '0', 'yes', 'no'].includes(v), 'expected true or false')
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
const url = z.string().trim().url('expected a URL');
/** One URL or several, comma-separated (RPC fallback, docs/signers-and-rpc.md); kept as the joined string. */
const urlList = z
  .string()
  .trim()
  .transform((v, ctx) => {
    const parts = v
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
    for (const part of parts) {
      if (!/^https?:\/\//i.test(part) || !URL.canParse(part)) {
        ctx.addIssue({ code: 'custom', message: 'expected an http(s) URL or a comma-separated list of them' });
        return z.NEVER;
      }
    }
    return parts.join(',');
  });
const privateKey = z
  .string()
  .trim()
  .regex(/^0x[0-9a-fA-F]{64}$/, 'expected a 0x-prefixed 32-byte hex private key');
const address = z
  .string()
  .trim()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'expected a 0x-prefixed 20-byte hex address')
  .superRefine((v, ctx) => {
    const problem = /^0x[0-9a-fA-F]{40}$/.test(v) ? checksumProblem(v) : null;
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
const positiveInt = z.coerce.number().int().positive();

/** Variable name → parser. Unset or empty variables are treated as absent. */
const shape = {
  PORT: port.default(3000),
  ADMIN_PORT: port.default(3001),
  /** `atelier worker`'s /healthz and /readyz (a worker serves no API). */
  WORKER_HEALTH_PORT: port.default(3002),
  HOST: z.string().default('127.0.0.1'),
  DATA_DIR: z.string().default('.atelier'),
  DATABASE_URL: z
    .string()
    .trim()
    .regex(/^postgres(ql)?:\/\//, 'expected a postgres:// or postgresql:// URL')
    .optional(),
  REDIS_URL: z
    .string()
    .trim()
    .regex(/^rediss?:\/\//, 'expected a redis:// or rediss:// URL')
    .optional(),
  API_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
  ENABLE_AUTH: bool.default(true),
  BACKEND_API_URL: url.optional(),
  METADATA_BASE_URL: url.optional(),
  PUBLIC_BASE_URL: url.optional(),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters for HS256').optional(),
  JWT_JWKS_URL: url.optional(),
  JWT_ISSUER: z.string().optional(),
  JWT_AUDIENCE: z.string().optional(),
  JWT_PROVIDER: z.string().max(30).default('jwt'),
  /** Longest life a JWT may have: its exp at most this many seconds after its iat (or now). */
  JWT_MAX_AGE_SECONDS: positiveInt.default(86_400),
  /** The domain (RFC 3986 authority) Sign-In with Ethereum messages must name; default from PUBLIC_BASE_URL. */
  SIWE_DOMAIN: z.string().trim().min(1).max(255).optional(),
  /**
   * Further domains (comma-separated RFC 3986 authorities, e.g. the console's public host) that
   * Sign-In with Ethereum messages may name besides SIWE_DOMAIN (docs/auth.md "The domain").
   */
  SIWE_DOMAINS: z
    .string()
    .default('')
    .transform((v, ctx) => {
      const out: string[] = [];
      for (const raw of v
        .split(',')
        .map((x) => x.trim().toLowerCase())
        .filter(Boolean)) {
        if (!/^[a-z0-9.-]+(:\d{1,5})?$|^\[[0-9a-f:.]+\](:\d{1,5})?$/.test(raw)) {
          ctx.addIssue({ code: 'custom', message: `"${raw}" is not a host[:port] authority` });
          return z.NEVER;
        }
        out.push(raw);
      }
      return out;
    }),
  /** How long a Sign-In with Ethereum nonce can be used. */
  SIWE_NONCE_TTL_SECONDS: positiveInt.default(600),
  NFT_DEPLOYER_PRIVATE_KEY: privateKey.optional(),
  /** Where the platform wallet's key lives (docs/signers-and-rpc.md). */
  NFT_SIGNER: z.enum(['private-key', 'remote', 'kms']).default('private-key'),
  /** NFT_SIGNER=remote: the JSON-RPC signer (Web3Signer, Clef). */
  NFT_SIGNER_URL: url.optional(),
  /** NFT_SIGNER=remote: sent as `Authorization: Bearer <token>` to the signer (an authenticating proxy in front of it). */
  NFT_SIGNER_TOKEN: z.string().trim().min(1).optional(),
  /** NFT_SIGNER=remote or kms: the platform wallet's address (checked against what the signer signs with). */
  NFT_SIGNER_ADDRESS: address.optional(),
  NFT_KMS_KEY_ID: z.string().trim().min(1).optional(),
  NFT_KMS_REGION: z.string().trim().default('us-east-1'),
  NFT_KMS_ENDPOINT: url.optional(),
  NFT_KMS_ACCESS_KEY_ID: z.string().optional(),
  NFT_KMS_SECRET_ACCESS_KEY: z.string().optional(),
  NFT_RPC_URL: urlList.optional(),
  NFT_FACTORY_ADDRESS: address.optional(),
  NFT_CHAIN_ID: positiveInt.default(31337),
  STABLECOIN_ADDRESS: address.optional(),
  COMPUTE_RECIPIENT_ADDRESS: address.optional(),
  SAMPLE_PAYMENT_CONFIRMATIONS: positiveInt.optional(),
  /** Confirmations of a mint's block before its token's seed is derived from its hash (docs/fairness.md). */
  SEED_CONFIRMATIONS: positiveInt.default(1),
  ARBITRUM_SEPOLIA_RPC_URL: urlList.optional(),
  ARBITRUM_ONE_RPC_URL: urlList.optional(),
  BASE_RPC_URL: urlList.optional(),
  ETHEREUM_RPC_URL: urlList.optional(),
  DEV_CHAIN: bool.default(true),
  DEV_CHAIN_PORT: port.default(8545),
  /** A replacement of a stuck transaction never pays more than the node's current fee estimate × this (docs/chain-operations.md). */
  TX_MAX_FEE_MULTIPLIER: z.coerce.number().min(1.2).max(100).default(3),
  STORAGE_DRIVER: z.enum(['local', 's3']).default('local'),
  S3_ENDPOINT: url.optional(),
  S3_BUCKET: z.string().optional(),
  S3_REGION: z.string().default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  S3_PUBLIC_URL: url.optional(),
  /**
   * Where a ready export is pinned (docs/permanence.md "Pinning"): none (default: the bundle stays
   * in our storage and gateway only), kubo (a Kubo node's RPC API), psa (an IPFS Pinning Service
   * API) or s3car (an S3-compatible bucket that imports CARs).
   */
  IPFS_PIN_TARGET: z.enum(['none', 'kubo', 'psa', 's3car']).default('none'),
  /** kubo: the RPC API's URL, e.g. http://127.0.0.1:5001. */
  IPFS_KUBO_RPC_URL: url.optional(),
  /** kubo: the whole Authorization header value (`Basic …` or `Bearer …`) when the RPC API asks for one. */
  IPFS_KUBO_RPC_AUTH: z.string().trim().min(1).optional(),
  /** psa: the Pinning Service API's base URL (the one `/pins` hangs off). */
  IPFS_PSA_ENDPOINT: url.optional(),
  /** psa: the service's access token (Bearer). */
  IPFS_PSA_TOKEN: z.string().trim().min(1).optional(),
  /** psa: multiaddrs sent as the pin's `origins` (a hint where to fetch); default: this backend's gateway. */
  IPFS_PSA_ORIGINS: z
    .string()
    .default('')
    .transform((v, ctx) => {
      const out = v
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean);
      const bad = out.find((x) => !/^\/[a-z0-9-]+\/[^\s]+$/i.test(x));
      if (bad !== undefined) {
        ctx.addIssue({
          code: 'custom',
          message: `expected comma-separated multiaddrs such as /dns4/example.com/tcp/443/https, got "${bad}"`,
        });
        return z.NEVER;
      }
      return out;
    }),
  /** psa: between status polls of a pin request. */
  IPFS_PSA_POLL_MS: z.coerce.number().int().min(10).max(600_000).default(5000),
  /** psa and s3car: the service's HTTP gateway, where the check reads the pinned copy (GET <url>/ipfs/<cid>/<path>). */
  IPFS_PIN_GATEWAY_URL: url.optional(),
  /** s3car: the bucket (and its S3 endpoint, region, keys, key prefix) that imports CAR objects. */
  IPFS_S3CAR_BUCKET: z.string().trim().min(1).optional(),
  IPFS_S3CAR_ENDPOINT: url.optional(),
  IPFS_S3CAR_REGION: z.string().trim().default('us-east-1'),
  IPFS_S3CAR_ACCESS_KEY_ID: z.string().optional(),
  IPFS_S3CAR_SECRET_ACCESS_KEY: z.string().optional(),
  IPFS_S3CAR_PREFIX: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9._\/-]*$/, 'expected letters, digits and . _ / -')
    .default(''),
  /** The longest a pin (upload, service status, read-back check) may take before it counts as failed. */
  IPFS_PIN_TIMEOUT_MS: z.coerce.number().int().min(1000).max(86_400_000).default(600_000),
  WORKER_CONCURRENCY: positiveInt.default(2),
  CREDITS_INITIAL_GRANT: z.coerce.number().int().min(0).default(100),
  CREDITS_PER_GENERATION: z.coerce.number().int().min(0).default(1),
  /** Reconciliation of pending steps with the queue store: at start, then this often, so a lost step is re-queued within a minute (docs/jobs.md "Crash safety and reconciliation"). */
  JOB_RECONCILE_INTERVAL_MS: positiveInt.default(20_000),
  /** An Idempotency-Key in progress whose holder stopped renewing it is taken over after this (docs/chain-operations.md). */
  IDEMPOTENCY_LEASE_MS: positiveInt.default(30_000),
  JOB_STALE_STEP_MS: positiveInt.default(30_000),
  /** A singleton duty's lease (docs/operations.md "Singleton duties"): a holder that died is replaced after at most this. */
  DUTY_LEASE_TTL_MS: z.coerce.number().int().min(1000).max(600_000).default(10_000),
  /** `/metrics`: when set, scrapes need `Authorization: Bearer <METRICS_TOKEN>` (docs/operations.md "Metrics"). */
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /** SIGTERM: how long in-flight requests, steps and transactions get to finish before the process exits anyway. */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(3_600_000).default(25_000),
  COMFYUI_URL: url.optional(),
  OPENAI_BASE_URL: url.optional(),
  OPENAI_API_KEY: z.string().optional(),
  OPENAI_IMAGE_MODEL: z.string().default('gpt-image-1'),
  OPENAI_CHAT_MODEL: z.string().default('gpt-4o-mini'),
  OTEL_EXPORTER_OTLP_ENDPOINT: url.optional(),
  /** service.name of this process's spans; default atelier (npm start) or atelier-<process>. */
  OTEL_SERVICE_NAME: z.string().trim().min(1).max(100).optional(),
  /** Longest wait before buffered spans are sent to the collector. */
  OTEL_BSP_SCHEDULE_DELAY: positiveInt.default(5000),
  /** service.heartbeat interval (docs/api/content.md §8: 15 s). */
  TELEMETRY_HEARTBEAT_MS: positiveInt.default(15_000),
  /** Open job streams (SSE) one signed-in user may hold per backend process; the operator is not counted. */
  JOB_STREAMS_PER_USER: positiveInt.default(50),
  VIDEO_STREAM_BASE_URL: url.default('https://stream.mux.com'),
  VIDEO_THUMBNAIL_BASE_URL: url.default('https://image.mux.com'),
  /** Shared secret of the provider's signed webhook (POST /webhooks/video); unset: the route answers 503. */
  VIDEO_WEBHOOK_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  /** Largest distance (seconds) between a webhook's signed timestamp and now; older ones are replays. */
  VIDEO_WEBHOOK_TOLERANCE_SECONDS: positiveInt.default(300),
  /**
   * The reverse proxies or load balancers in front of the apps whose X-Forwarded-For is believed:
   * comma-separated addresses or CIDRs (or loopback, linklocal, uniquelocal), so rate limits count
   * the real client. Unset: the header is ignored (docs/operations.md "Behind a reverse proxy").
   */
  TRUST_PROXY: z
    .string()
    .trim()
    .refine(
      (v) =>
        v
          .split(',')
          .map((x) => x.trim())
          .every(
            (x) =>
              ['loopback', 'linklocal', 'uniquelocal'].includes(x) ||
              (/^[0-9a-fA-F.:]+(\/\d{1,3})?$/.test(x) && isIP(x.split('/')[0]!) !== 0),
          ),
      'expected comma-separated proxy addresses or CIDRs (or loopback, linklocal, uniquelocal)',
    )
    .optional(),
  /** Failed authentications allowed per client address (and per presented credential) in a window; then 429. */
  AUTH_FAILURE_LIMIT: positiveInt.default(100),
  /** Requests to the public identity route per client address (and per token) in a window. */
  IDENTITY_RATE_LIMIT: positiveInt.default(60),
  RATE_LIMIT_WINDOW_MS: positiveInt.default(60_000),
  /**
   * Origins (scheme://host:port, comma-separated) that outside fetches (reference images,
   * social_pfp, the metadata proxy) may reach even on an internal address: for a dev setup whose
   * own metadata or file host is on loopback. Empty by default (docs/security.md).
   */
  OUTSIDE_FETCH_ALLOW_ORIGINS: z
    .string()
    .default('')
    .transform((v, ctx) => {
      const out: string[] = [];
      for (const raw of v
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean)) {
        let origin: string | undefined;
        try {
          origin = new URL(raw).origin;
        } catch {}
        if (!origin || origin === 'null' || !/^https?:/.test(origin)) {
          ctx.addIssue({ code: 'custom', message: `expected http(s) origins such as http://127.0.0.1:3000, got "${raw}"` });
          return z.NEVER;
        }
        out.push(origin);
      }
      return out;
    }),
  /** Delays between webhook delivery attempts, ms, comma-separated (docs/webhooks.md "Retries"). */
  WEBHOOK_RETRY_SCHEDULE_MS: z
    .string()
    .default(WEBHOOK_RETRY_DELAYS_MS.join(','))
    .transform((v, ctx) => {
      const out = v.split(',').map((x) => Number(x.trim()));
      if (out.length === 0 || out.length > 20 || out.some((n) => !Number.isInteger(n) || n < 0 || n > 7 * 86_400_000)) {
        ctx.addIssue({ code: 'custom', message: 'expected up to 20 comma-separated delays in milliseconds (0 to 7 days each)' });
        return z.NEVER;
      }
      return out;
    }),
  /** Failed webhook attempts in a row that disable a subscription. */
  WEBHOOK_DISABLE_AFTER: z.coerce.number().int().min(1).max(10_000).default(50),
  /**
   * The platform wallet's low-balance threshold (docs/operations.md "Wallet health"): one amount
   * in wei for every chain, or `<chainId>:<wei>` pairs; unset, it is WALLET_LOW_BALANCE_MINTS
   * mints at the chain's current gas price.
   */
  WALLET_LOW_BALANCE_WEI: z
    .string()
    .optional()
    .transform((v, ctx) => {
      try {
        return parseThresholds(v);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
  WALLET_LOW_BALANCE_MINTS: z.coerce.number().int().min(1).max(1_000_000).default(100),
  /** How often the wallet's balance is read (one process at a time). */
  WALLET_HEALTH_INTERVAL_MS: z.coerce.number().int().min(500).max(3_600_000).default(30_000),
  /** A platform transaction still unmined this long after it was first sent is announced as stuck. */
  TX_STUCK_AFTER_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .max(7 * 86_400_000)
    .default(900_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
} as const;

type Shape = typeof shape;

/** Every variable name, for the .env.example check. */
export const CONFIG_VARIABLES = Object.keys(shape);
export type Config = { [K in keyof Shape]: z.output<Shape[K]> } & { dataDir: string };

/** Secrets: never printed, never logged. */
export const SECRET_VARIABLES = [
  'API_KEY',
  'JWT_SECRET',
  'NFT_DEPLOYER_PRIVATE_KEY',
  'NFT_SIGNER_URL',
  'NFT_SIGNER_TOKEN',
  'NFT_KMS_ACCESS_KEY_ID',
  'NFT_KMS_SECRET_ACCESS_KEY',
  'S3_SECRET_ACCESS_KEY',
  'IPFS_KUBO_RPC_AUTH',
  'IPFS_PSA_TOKEN',
  'IPFS_S3CAR_SECRET_ACCESS_KEY',
  'OPENAI_API_KEY',
  'DATABASE_URL',
  'VIDEO_WEBHOOK_SECRET',
] as const;

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const out: Record<string, unknown> = {};
  for (const [name, parser] of Object.entries(shape)) {
    const raw = env[name];
    const value = raw === undefined || raw.trim() === '' ? undefined : raw;
    const result = (parser as z.ZodType).safeParse(value);
    if (!result.success) {
      const issue = result.error.issues[0];
      const shown = SECRET_VARIABLES.includes(name as never) ? '' : ` (got "${value}")`;
      throw new ConfigError(name, `${issue?.message ?? 'invalid value'}${shown}`);
    }
    out[name] = result.data;
  }
  const config = out as Config;
  config.dataDir = path.resolve(config.DATA_DIR);
  if (config.STORAGE_DRIVER === 's3' && !config.S3_BUCKET) {
    throw new ConfigError('S3_BUCKET', 'required when STORAGE_DRIVER is s3');
  }
  // The pin target's own settings (docs/permanence.md "Pinning"): refused at start, not at the first export.
  const pinNeeds: Record<string, (keyof Config)[]> = {
    kubo: ['IPFS_KUBO_RPC_URL'],
    psa: ['IPFS_PSA_ENDPOINT', 'IPFS_PSA_TOKEN', 'IPFS_PIN_GATEWAY_URL'],
    s3car: ['IPFS_S3CAR_BUCKET', 'IPFS_PIN_GATEWAY_URL'],
  };
  for (const variable of pinNeeds[config.IPFS_PIN_TARGET] ?? []) {
    if (config[variable] === undefined) throw new ConfigError(variable, `required when IPFS_PIN_TARGET is ${config.IPFS_PIN_TARGET}`);
  }
  if (Boolean(config.IPFS_S3CAR_ACCESS_KEY_ID) !== Boolean(config.IPFS_S3CAR_SECRET_ACCESS_KEY)) {
    throw new ConfigError(
      'IPFS_S3CAR_SECRET_ACCESS_KEY',
      'IPFS_S3CAR_ACCESS_KEY_ID and IPFS_S3CAR_SECRET_ACCESS_KEY are set together or not at all',
    );
  }
  // The signer's own settings (docs/signers-and-rpc.md): a process fails at start, not at its first transaction.
  if (config.NFT_SIGNER === 'remote' && !config.NFT_SIGNER_URL)
    throw new ConfigError('NFT_SIGNER_URL', 'required when NFT_SIGNER is remote');
  if (config.NFT_SIGNER === 'kms' && !config.NFT_KMS_KEY_ID) throw new ConfigError('NFT_KMS_KEY_ID', 'required when NFT_SIGNER is kms');
  if (config.NFT_SIGNER !== 'private-key' && !config.NFT_SIGNER_ADDRESS) {
    throw new ConfigError('NFT_SIGNER_ADDRESS', `required when NFT_SIGNER is ${config.NFT_SIGNER} (the address of the signer's key)`);
  }
  if (Boolean(config.NFT_KMS_ACCESS_KEY_ID) !== Boolean(config.NFT_KMS_SECRET_ACCESS_KEY)) {
    throw new ConfigError(
      'NFT_KMS_SECRET_ACCESS_KEY',
      'NFT_KMS_ACCESS_KEY_ID and NFT_KMS_SECRET_ACCESS_KEY are set together or not at all',
    );
  }
  return config;
}

/** The config for tests and tools: defaults plus the given overrides. */
export function testConfig(overrides: Record<string, string | undefined> = {}): Config {
  return loadConfig({ ENABLE_AUTH: 'true', LOG_LEVEL: 'silent', DEV_CHAIN: 'false', ...overrides });
}

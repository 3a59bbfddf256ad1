/**
 * `/metrics` in Prometheus text format (prom-client), on every process's port (docs/operations.md
 * "Metrics"). Each app gets its own registry (several apps share a process in `npm start` and the
 * tests). What a process measures depends on what it runs; every gauge is read at scrape time:
 *
 * - atelier_http_request_duration_seconds{method,route,status}: the route's pattern, never its URL
 *   (no ids in labels);
 * - atelier_queue_depth, atelier_queue_oldest_age_seconds: generation steps waiting for a worker;
 * - atelier_jobs{state};
 * - atelier_tx_pending{chain_id,wallet}, atelier_tx_nonce_lag{chain_id,wallet}: the platform
 *   wallet's transactions not final, and recorded nonces the chain has not mined yet;
 * - atelier_indexer_lag_blocks{chain_id}, atelier_indexer_running{chain_id};
 * - atelier_rpc_errors_total{chain_id,endpoint,reason}: RPC 429s, timeouts, refusals, 5xx (endpoint: position in the URL list);
 * - atelier_duty_leader{duty}: 1 where this process holds the duty's lease (src/duties/runner.ts).
 *
 * Access: open when METRICS_TOKEN is unset (aggregates only: no identifiers, no secrets), else
 * `Authorization: Bearer <METRICS_TOKEN>`, a scrape-only credential (never the service key).
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { rpcErrorCounts } from '../chain/rpc-transport.ts';
import { dutyLeaders } from '../duties/runner.ts';
import type { LiveStatus } from '../indexer/watchdog.ts';

/** The aggregates /metrics reads from the database (src/db/metrics.ts implements them). */
export interface MetricsReads {
  jobsByState(): Promise<Array<{ status: string; n: number }>>;
  pendingSteps(): Promise<{ n: number; oldest_s: number }>;
  txSenderState(): Promise<Array<{ chain_id: number; from_address: string; pending: number; max_nonce: number | null }>>;
  /** The platform wallet's last balance read per chain (db/wallet-health.ts). */
  walletHealth?(): Promise<Array<{ chain_id: number; address: string; balance_wei: string; threshold_wei: string; low: boolean }>>;
}

export interface MetricSources {
  /** Label of every series: backend, admin, worker, indexer. */
  process: string;
  /** Jobs, queue depth, tx sender state from this database (bound by src/processes/shared.ts). */
  reads?: MetricsReads;
  /** The chain's mined nonce of a wallet (nonce lag); absent: no lag series. */
  chainNonce?: (chainId: number, wallet: string) => Promise<number>;
  /** The indexer running in this process. */
  indexer?: { chainId: number; liveStatus?: () => LiveStatus };
  /** Scrape credential (METRICS_TOKEN). */
  token?: string;
}

/** The mined nonce of a wallet from chain services (the nonce lag series). */
export function chainNonceOf(chain: {
  client(chainId: number): { getTransactionCount(a: { address: `0x${string}`; blockTag: 'latest' }): Promise<number> };
}) {
  return (chainId: number, wallet: string) =>
    chain.client(chainId).getTransactionCount({ address: wallet as `0x${string}`, blockTag: 'latest' });
}

/** Gives up on a slow source so a scrape never hangs on it (the series is left out). */
async function within<T>(ms: number, p: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([p.catch(() => undefined), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function bearerMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header?.startsWith('Bearer ') ? header.slice(7) : '');
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}

export function installMetrics(app: FastifyInstance, src: MetricSources): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ process: src.process });
  collectDefaultMetrics({ register: registry, prefix: 'atelier_' });

  const http = new Histogram({
    name: 'atelier_http_request_duration_seconds',
    help: 'HTTP request latency by route pattern',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  app.addHook('onResponse', async (req, reply) => {
    // Unmatched URLs (404s, scanners) share one label: arbitrary paths never become series.
    const route = req.routeOptions.url ?? 'unmatched';
    if (route === '/metrics') return;
    http.observe({ method: req.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });

  new Gauge({
    name: 'atelier_duty_leader',
    help: '1 where this process holds the singleton duty’s lease, 0 where it is a standby candidate',
    labelNames: ['duty'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [duty, leader] of Object.entries(dutyLeaders())) this.set({ duty }, leader ? 1 : 0);
    },
  });

  const db = src.reads;
  if (db) {
    new Gauge({
      name: 'atelier_jobs',
      help: 'Jobs by state',
      labelNames: ['state'],
      registers: [registry],
      async collect() {
        const found = await within(2000, db.jobsByState());
        this.reset();
        for (const r of found ?? []) this.set({ state: r.status }, r.n);
      },
    });
    let steps: Promise<{ n: number; oldest_s: number } | undefined> | undefined;
    // Both queue gauges from one query per scrape.
    const pending = () => {
      steps ??= within(2000, db.pendingSteps()).finally(() => setTimeout(() => (steps = undefined), 0));
      return steps;
    };
    new Gauge({
      name: 'atelier_queue_depth',
      help: 'Generation steps waiting for a worker',
      registers: [registry],
      async collect() {
        const s = await pending();
        if (s) this.set(s.n);
      },
    });
    new Gauge({
      name: 'atelier_queue_oldest_age_seconds',
      help: 'Age of the oldest generation step waiting for a worker (0 when none)',
      registers: [registry],
      async collect() {
        const s = await pending();
        if (s) this.set(s.oldest_s);
      },
    });
    const wallets = db.walletHealth?.bind(db);
    if (wallets) {
      // Ether, not wei: a gauge is a float64, and wei overflows its exact range (docs/operations.md).
      const ether = (wei: string) => Number(BigInt(wei)) / 1e18;
      const read = () => within(2000, wallets());
      new Gauge({
        name: 'atelier_wallet_balance_ether',
        help: 'The platform wallet balance at its last read (native currency)',
        labelNames: ['chain_id', 'wallet'],
        registers: [registry],
        async collect() {
          const found = await read();
          this.reset();
          for (const w of found ?? []) this.set({ chain_id: String(w.chain_id), wallet: w.address }, ether(w.balance_wei));
        },
      });
      new Gauge({
        name: 'atelier_wallet_low_balance',
        help: '1 while the platform wallet is below its threshold (WALLET_LOW_BALANCE_WEI / _MINTS), else 0',
        labelNames: ['chain_id', 'wallet'],
        registers: [registry],
        async collect() {
          const found = await read();
          this.reset();
          for (const w of found ?? []) this.set({ chain_id: String(w.chain_id), wallet: w.address }, w.low ? 1 : 0);
        },
      });
      new Gauge({
        name: 'atelier_wallet_low_balance_threshold_ether',
        help: 'The threshold the last read was compared with (native currency)',
        labelNames: ['chain_id', 'wallet'],
        registers: [registry],
        async collect() {
          const found = await read();
          this.reset();
          for (const w of found ?? []) this.set({ chain_id: String(w.chain_id), wallet: w.address }, ether(w.threshold_wei));
        },
      });
    }
    const txState = () => within(2000, db.txSenderState());
    new Gauge({
      name: 'atelier_tx_pending',
      help: 'Platform wallet transactions not final yet (queued, signed, sent)',
      labelNames: ['chain_id', 'wallet'],
      registers: [registry],
      async collect() {
        const found = await txState();
        this.reset();
        for (const r of found ?? []) this.set({ chain_id: String(r.chain_id), wallet: r.from_address }, r.pending);
      },
    });
    const chainNonce = src.chainNonce;
    if (chainNonce) {
      new Gauge({
        name: 'atelier_tx_nonce_lag',
        help: 'Nonces the database recorded that the chain has not mined yet (highest recorded + 1 − chain nonce)',
        labelNames: ['chain_id', 'wallet'],
        registers: [registry],
        async collect() {
          const found = (await txState()) ?? [];
          this.reset();
          await Promise.all(
            found
              .filter((r) => r.max_nonce !== null)
              .map(async (r) => {
                const mined = await within(2000, chainNonce(r.chain_id, r.from_address));
                if (mined !== undefined)
                  this.set({ chain_id: String(r.chain_id), wallet: r.from_address }, Math.max(0, r.max_nonce! + 1 - mined));
              }),
          );
        },
      });
    }
  }

  const indexer = src.indexer;
  if (indexer?.liveStatus) {
    const live = indexer.liveStatus;
    new Gauge({
      name: 'atelier_indexer_lag_blocks',
      help: 'Blocks between the chain head (less confirmations) and the last indexed block',
      labelNames: ['chain_id'],
      registers: [registry],
      collect() {
        const s = live();
        this.reset();
        if (s.lag_blocks !== null) this.set({ chain_id: String(indexer.chainId) }, s.lag_blocks);
      },
    });
    new Gauge({
      name: 'atelier_indexer_running',
      help: '1 while this process’s indexer loop runs (it holds the chain’s lease)',
      labelNames: ['chain_id'],
      registers: [registry],
      collect() {
        this.set({ chain_id: String(indexer.chainId) }, live().running ? 1 : 0);
      },
    });
  }

  // RPC rate limits, timeouts and failures, counted process-wide by the transports (chain/rpc-transport.ts).
  new Counter({
    name: 'atelier_rpc_errors_total',
    help: 'RPC requests that failed at the transport level (retried or fallen over), by chain, endpoint position and reason',
    labelNames: ['chain_id', 'endpoint', 'reason'],
    registers: [registry],
    collect() {
      this.reset();
      for (const c of rpcErrorCounts()) this.inc({ chain_id: String(c.chainId), endpoint: String(c.endpoint), reason: c.reason }, c.n);
    },
  });
  app.get('/metrics', { config: { public: true }, schema: { hide: true } }, async (req, reply) => {
    if (src.token && !bearerMatches(req.headers.authorization, src.token)) {
      return reply.code(401).send({ error: 'unauthorized', message: 'authorization: expected Bearer <METRICS_TOKEN>' });
    }
    return reply.header('content-type', registry.contentType).send(await registry.metrics());
  });
  return registry;
}

/**
 * The HTTP load generator of the benches, in a child process of its own: autocannon sharing the
 * servers' event loop would add its own work to every measured latency, and its CPU would count as
 * the servers'. Every route of a bench is driven by this same client with the same settings.
 *
 *   const load = await startLoadClient();
 *   const r = await load.run({ url, connections: 50, seconds: 4 });   // saturated (closed loop)
 *   const s = await load.run({ url, connections: 50, seconds: 4, rate: 2000 }); // a fixed offered rate
 *   await load.close();
 *
 * `crawl` makes each request ask for `${prefix}${1 + random(tokens)}` (a marketplace crawl).
 */
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';

export interface LoadOptions {
  url: string;
  connections: number;
  seconds: number;
  /**
   * Requests per second, sent at even intervals whatever the answers (an open loop; latency counted
   * from each request's scheduled time, so a stall is not hidden), at most `connections` at once.
   * Absent: a closed loop, autocannon with `connections` connections, as fast as answered.
   */
  rate?: number;
  crawl?: { prefix: string; tokens: number };
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  max: number;
  average: number;
  errors: number;
  /** CPU of the load client itself over the run, in % of one core. */
  clientCpuPct: number;
}

const ROLE = 'ATELIER_BENCH_LOAD_CLIENT';

export async function startLoadClient(): Promise<{ run(o: LoadOptions): Promise<LoadResult>; close(): Promise<void> }> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [], {
    env: { ...process.env, [ROLE]: '1' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`load client exited (${code})`)));
  });
  let seq = 0;
  const pending = new Map<number, { resolve(r: LoadResult): void; reject(e: Error): void }>();
  child.on('message', (m: { id: number; result?: LoadResult; error?: string }) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.result) p.resolve(m.result);
    else p.reject(new Error(m.error ?? 'load client failed'));
  });
  return {
    run(o) {
      const id = ++seq;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        child.send({ id, options: o });
      });
    },
    async close() {
      child.removeAllListeners('exit');
      const gone = new Promise((r) => child.once('exit', r));
      child.kill();
      await gone;
    },
  };
}

const percentile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

/**
 * An open-loop client: request i is due at t0 + i/rate; its latency runs from then to the last
 * byte of the answer. (autocannon's overallRate sends each second's quota in a burst at the start
 * of the second, which measures the burst, not the route.)
 */
function paced(o: LoadOptions & { rate: number }, path: () => string): Promise<Omit<LoadResult, 'clientCpuPct'>> {
  const u = new URL(o.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: o.connections });
  const total = Math.round(o.rate * o.seconds);
  const latencies: number[] = [];
  let errors = 0;
  let sent = 0;
  let inflight = 0;
  const t0 = performance.now();
  return new Promise((resolve) => {
    const finish = () => {
      agent.destroy();
      const secs = (performance.now() - t0) / 1000;
      const sorted = latencies.sort((a, b) => a - b);
      const round = (x: number) => Math.round(x * 10) / 10;
      resolve({
        rps: latencies.length / secs,
        p50: round(percentile(sorted, 0.5)),
        p99: round(percentile(sorted, 0.99)),
        max: round(sorted[sorted.length - 1] ?? Number.NaN),
        average: round(sorted.reduce((s, x) => s + x, 0) / Math.max(1, sorted.length)),
        errors,
      });
    };
    const settle = (scheduled: number, ok: boolean) => {
      if (ok) latencies.push(performance.now() - scheduled);
      else errors += 1;
      inflight -= 1;
      if (sent === total && inflight === 0) finish();
    };
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - t0) / 1000) * o.rate) + 1);
      while (sent < due) {
        const scheduled = t0 + (sent * 1000) / o.rate;
        sent += 1;
        inflight += 1;
        const req = http.get({ host: u.hostname, port: u.port, path: path(), agent }, (res) => {
          res.resume();
          res.on('end', () => settle(scheduled, res.statusCode === 200));
        });
        req.on('error', () => settle(scheduled, false));
      }
      if (sent < total) setTimeout(tick, 1);
    };
    tick();
  });
}

async function serve(): Promise<void> {
  // @ts-expect-error autocannon ships no types
  const { default: autocannon } = await import('autocannon');
  process.on('message', async (m: { id: number; options: LoadOptions }) => {
    const o = m.options;
    const crawl = o.crawl;
    const randomPath = crawl ? () => `${crawl.prefix}${1 + Math.floor(Math.random() * crawl.tokens)}` : undefined;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const cpuPct = () => {
      const cpu = process.cpuUsage(cpu0);
      return ((cpu.user + cpu.system) / 1e6 / ((performance.now() - t0) / 1000)) * 100;
    };
    if (o.rate) {
      const r = await paced({ ...o, rate: o.rate }, randomPath ?? (() => new URL(o.url).pathname));
      process.send!({ id: m.id, result: { ...r, clientCpuPct: cpuPct() } satisfies LoadResult });
      return;
    }
    const requests = randomPath ? [{ setupRequest: (req: { path: string }) => ({ ...req, path: randomPath() }) }] : undefined;
    autocannon(
      { url: o.url, connections: o.connections, duration: o.seconds, pipelining: 1, requests },
      (
        err: Error | null,
        r: { requests: { average: number }; latency: Record<string, number>; non2xx: number; errors: number; timeouts: number },
      ) => {
        if (err) return process.send!({ id: m.id, error: String(err) });
        process.send!({
          id: m.id,
          result: {
            rps: r.requests.average,
            p50: r.latency.p50!,
            p99: r.latency.p99!,
            max: r.latency.max!,
            average: r.latency.average!,
            errors: r.non2xx + r.errors + r.timeouts,
            clientCpuPct: cpuPct(),
          } satisfies LoadResult,
        });
      },
    );
  });
  process.send!('ready');
}

if (process.env[ROLE] === '1') await serve();

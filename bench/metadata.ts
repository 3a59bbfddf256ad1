/**
 * `npm run bench:metadata` (docs/minting.md "Bench"): the public token document against fair
 * references, every route measured in the same run, in alternated rounds, by the same load client
 * (autocannon in a child process, bench/http-load.ts, so the client's work is not in the servers'
 * event loop) with the same settings:
 * - hot: one final token document (GET /collections/:id/tokens/:tokenId, served from the
 *   in-process cache) beside a bare Fastify route answering the same JSON;
 * - cold: a marketplace crawl of 10,000 random tokens on a backend without a document cache (every
 *   request reads the database) beside "bare Fastify + one plain query" (node-postgres on
 *   PostgreSQL with the product's pool size, the PGlite client on PGlite) answering the same row.
 *   Throughput is measured saturated (closed loop, BENCH_CONNECTIONS); latency both saturated and
 *   at a fixed offered rate (half the reference's saturated rate, the same for both routes), since a
 *   saturated closed loop's latency is connections ÷ throughput whatever the route does.
 * Figures are medians over the rounds; the last line is `cold/bare+query: R` (saturated req/s).
 *
 *   npm run bench:metadata            (PGlite; DATABASE_URL=postgres://… for PostgreSQL)
 *   BENCH_SECONDS=4 BENCH_ROUNDS=3 BENCH_CONNECTIONS=50 npm run bench:metadata
 */
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import Fastify, { type FastifyInstance } from 'fastify';
import { eq, sql } from 'drizzle-orm';
import pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';
import { testConfig } from '../src/config.ts';
import { buildBackend } from '../src/processes/backend.ts';
import { rows } from '../src/db/client.ts';
import { decks, outputs } from '../src/db/schema/index.ts';
import { createTestDatabase } from '../test/helpers/db.ts';
import { sampleData } from '../test/helpers/platform.ts';
import { MetadataCache } from '../src/services/metadata-documents.ts';
import { Redis } from 'ioredis';
import { startLoadClient, type LoadResult } from './http-load.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 4);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const CRAWL_TOKENS = Number(process.env.BENCH_CRAWL_TOKENS ?? 10_000);
/** The pool size of the product's PostgreSQL pool (src/db/client.ts), used by the reference too. */
const POOL_SIZE = 20;
const KEY = 'bench-service-key-0123456789abcdef';

/** The token document's row, as one plain SQL statement (what the bare+query route runs). */
const TOKEN_SQL = `select c.id, c.title, c.description, c.cover_image_url, o.id as output_id, o.status, o.url,
  o.token_metadata, o.input_metadata
  from decks d join collections c on c.id = d.collection_id left join outputs o on o.id = d.cover_output_id
  where d.collection_id = $1 and d.token_id = $2 and d.mint_status is not null limit 1`;

const urlOf = (app: { server: { address(): unknown } }) => `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface Runs {
  results: LoadResult[];
  /** CPU of this (server) process per request, µs. */
  cpuPerReq: number[];
}

async function main() {
  const database = await createTestDatabase();
  // The backends log as in production (a pino logger, a child per request, no request lines); warn
  // rather than the default info only keeps the startup lines out of the figures.
  const config = testConfig({ API_KEY: KEY, LOG_LEVEL: 'warn' });
  // No storage and no queue: the metadata routes only, as before.
  const backend = await buildBackend(config, database, {
    deps: { metadataBaseUrl: 'http://meta.bench', metadataCache: new MetadataCache(30_000), storage: undefined, jobQueue: undefined },
  });
  await backend.listen({ port: 0, host: '127.0.0.1' });
  const backendUrl = urlOf(backend);

  const created = await fetch(`${backendUrl}/nft/collections`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': KEY },
    body: JSON.stringify({ title: 'Bench Collection', description: 'Bench', editions: CRAWL_TOKENS, data: sampleData() }),
  });
  const collectionId = ((await created.json()) as { data: { collection: { id: string } } }).data.collection.id;
  const db = database.db;
  // Token 42, the hot one, through the ORM; then 1..CRAWL_TOKENS in bulk, each with completed artwork.
  {
    const [d] = await db.insert(decks).values({ collection_id: collectionId, token_id: 42, mint_status: 'minted' }).returning();
    const [o] = await db
      .insert(outputs)
      .values({
        collection_id: collectionId,
        deck_id: d!.id,
        status: 'completed',
        url: 'http://files.bench/42.png',
        token_metadata: {
          attributes: [
            { trait_type: 'Color', value: 'Blue' },
            { trait_type: 'Shape', value: 'Circle' },
          ],
        },
      })
      .returning();
    await db.update(decks).set({ cover_output_id: o!.id }).where(eq(decks.id, d!.id));
  }
  await db.execute(sql`
    with d as (
      insert into decks (collection_id, token_id, mint_status)
      select ${collectionId}::uuid, g, 'minted' from generate_series(1, ${CRAWL_TOKENS}) g where g <> 42
      returning id, token_id
    )
    insert into outputs (collection_id, deck_id, status, url, token_metadata)
    select ${collectionId}::uuid, d.id, 'completed', 'http://files.bench/' || d.token_id || '.png',
      '{"attributes":[{"trait_type":"Color","value":"Blue"},{"trait_type":"Shape","value":"Circle"}]}'::jsonb
    from d`);
  // (a separate statement: an UPDATE in the same WITH would not see the decks it inserted)
  await db.execute(sql`
    update decks set cover_output_id = o.id from outputs o
    where o.deck_id = decks.id and decks.collection_id = ${collectionId}::uuid and decks.cover_output_id is null`);
  await db.execute(sql`analyze`);
  const tokenUrl = `${backendUrl}/collections/${collectionId}/tokens/42`;
  const [counted] = await rows<{ n: number }>(
    db,
    sql`select count(*)::int as n from decks d join outputs o on o.id = d.cover_output_id
      where d.collection_id = ${collectionId}::uuid and o.status = 'completed'`,
  );
  const finals = counted?.n;
  if (finals !== CRAWL_TOKENS) throw new Error(`bench setup: ${finals} of ${CRAWL_TOKENS} tokens have completed artwork`);
  const doc = await (await fetch(tokenUrl)).json();

  const bare = Fastify({ logger: false });
  bare.get('/doc', async () => doc);
  await bare.listen({ port: 0, host: '127.0.0.1' });
  const bareUrl = `${urlOf(bare)}/doc`;

  // Cold: the same database, no document cache; bare+query: one plain statement per request.
  const cold = await buildBackend(config, database, {
    deps: { metadataBaseUrl: 'http://meta.bench', metadataCache: new MetadataCache(0), storage: undefined, jobQueue: undefined },
  });
  await cold.listen({ port: 0, host: '127.0.0.1' });
  const pool = database.url ? new pg.Pool({ connectionString: database.url, max: POOL_SIZE }) : undefined;
  pool?.on('error', () => {}); // as the product's pool: an idle client dropped at the end is no crash
  const lite = pool ? undefined : (db as unknown as { $client: PGlite }).$client;
  const plainQuery = async (id: string, tokenId: number): Promise<unknown[]> =>
    pool ? (await pool.query(TOKEN_SQL, [id, tokenId])).rows : (await lite!.query(TOKEN_SQL, [id, tokenId])).rows;
  const bareQuery = Fastify({ logger: false });
  bareQuery.get<{ Params: { id: string; tokenId: string } }>('/collections/:id/tokens/:tokenId', async (req, reply) => {
    const [row] = await plainQuery(req.params.id, Number(req.params.tokenId));
    if (!row) return reply.code(404).send({ error: 'not found' });
    return row;
  });
  await bareQuery.listen({ port: 0, host: '127.0.0.1' });
  const crawl = { prefix: `/collections/${collectionId}/tokens/`, tokens: CRAWL_TOKENS };

  // With REDIS_URL: what a shared document cache could do at best, every request a hit. The
  // crawl's 10,000 rendered documents are in Redis; one GET per request (ioredis, auto-pipelined:
  // the GETs of one turn go out together), the bytes sent as they are.
  let redis: Redis | undefined;
  let bareRedis: FastifyInstance | undefined;
  if (process.env.REDIS_URL) {
    redis = new Redis(process.env.REDIS_URL, { enableAutoPipelining: true });
    const prefix = `atelier-bench:${process.pid}:`;
    const warm = await buildBackend(config, database, {
      deps: { metadataBaseUrl: 'http://meta.bench', metadataCache: new MetadataCache(0), storage: undefined, jobQueue: undefined },
    });
    const m = redis.multi();
    for (let t = 1; t <= CRAWL_TOKENS; t++) {
      const r = await warm.inject({ url: `${crawl.prefix}${t}` });
      m.set(`${prefix}${t}`, r.body, 'EX', 600);
    }
    await m.exec();
    await warm.close();
    bareRedis = Fastify({ logger: false });
    bareRedis.get<{ Params: { id: string; tokenId: string } }>('/collections/:id/tokens/:tokenId', async (req, reply) => {
      const body = await redis!.get(`${prefix}${req.params.tokenId}`);
      if (body === null) return reply.code(404).send({ error: 'not found' });
      return reply.type('application/json; charset=utf-8').send(body);
    });
    await bareRedis.listen({ port: 0, host: '127.0.0.1' });
  }

  const load = await startLoadClient();
  const measure = async (runs: Runs, o: Parameters<typeof load.run>[0]) => {
    const cpu0 = process.cpuUsage();
    const r = await load.run(o);
    const cpu = process.cpuUsage(cpu0);
    runs.results.push(r);
    runs.cpuPerReq.push((cpu.user + cpu.system) / Math.max(1, r.rps * o.seconds));
    return r;
  };
  const fresh = (): Runs => ({ results: [], cpuPerReq: [] });
  const bareRuns = fresh();
  const hotRuns = fresh();
  const bareQueryRuns = fresh();
  const coldRuns = fresh();
  const bareQueryPaced = fresh();
  const coldPaced = fresh();
  const barePaced = fresh();
  const redisRuns = fresh();
  const base = { connections, seconds };
  const load0 = os.loadavg()[0]!;
  // Warm-up (JIT, connections, the prepared statement on every pooled connection).
  await load.run({ ...base, seconds: 2, url: bareUrl });
  await load.run({ ...base, seconds: 2, url: urlOf(bareQuery), crawl });
  await load.run({ ...base, seconds: 2, url: urlOf(cold), crawl });
  // Alternated rounds, so a change in machine load hits every route alike.
  for (let i = 0; i < rounds; i++) {
    await measure(bareRuns, { ...base, url: bareUrl });
    await measure(hotRuns, { ...base, url: tokenUrl });
    const ref = await measure(bareQueryRuns, { ...base, url: urlOf(bareQuery), crawl });
    await measure(coldRuns, { ...base, url: urlOf(cold), crawl });
    if (bareRedis) await measure(redisRuns, { ...base, url: urlOf(bareRedis), crawl });
    // Latency at a fixed offered rate: half of what the reference just served, for both routes.
    const rate = Math.round(ref.rps / 2);
    await measure(bareQueryPaced, { ...base, url: urlOf(bareQuery), crawl, rate });
    await measure(coldPaced, { ...base, url: urlOf(cold), crawl, rate });
    // The machine's own floor at that rate: a route that reads nothing.
    await measure(barePaced, { ...base, url: bareUrl, rate });
  }
  const load1 = os.loadavg()[0]!;
  await new Promise((r) => setTimeout(r, 500)); // requests the client abandoned at its deadline finish

  const row = (name: string, runs: Runs) => {
    const m = (f: (r: LoadResult) => number) => median(runs.results.map(f));
    const errors = runs.results.reduce((s, r) => s + r.errors, 0);
    return `| ${name} | ${Math.round(m((r) => r.rps)).toLocaleString('en-US')} | ${m((r) => r.p50)} | ${m((r) => r.p99)} | ${m((r) => r.max)} | ${Math.round(median(runs.cpuPerReq))} | ${errors} |`;
  };
  const head = ['| route | req/s | p50 ms | p99 ms | max ms | server CPU µs/req | errors |', '|---|---:|---:|---:|---:|---:|---:|'];
  const rps = (runs: Runs) => median(runs.results.map((r) => r.rps));
  console.log(
    `metadata bench (${database.kind}): ${rounds} alternated rounds of ${seconds} s per route, ${connections} connections, ` +
      `load client in its own process; ${os.cpus().length} cores, load average ${load0.toFixed(2)} → ${load1.toFixed(2)}. Medians of the rounds.`,
  );
  console.log('');
  console.log('hot: one final token, in-process document cache on');
  console.log(head.join('\n'));
  console.log(row('bare Fastify JSON', bareRuns));
  console.log(row('GET /collections/:id/tokens/:tokenId (cached)', hotRuns));
  console.log(`hot/bare: ${(rps(hotRuns) / rps(bareRuns)).toFixed(2)}`);
  console.log('');
  console.log(`cold crawl: ${CRAWL_TOKENS.toLocaleString('en-US')} random tokens, no document cache (every request reads the database)`);
  console.log(head.join('\n'));
  console.log(row('bare Fastify + one plain query, saturated', bareQueryRuns));
  console.log(row('GET /collections/:id/tokens/:tokenId (cold), saturated', coldRuns));
  if (bareRedis) console.log(row('bare Fastify + one Redis GET (a shared cache, every request a hit), saturated', redisRuns));
  const rates = bareQueryPaced.results.map((_, i) => Math.round(bareQueryRuns.results[i]!.rps / 2));
  console.log(row(`bare Fastify + one plain query, at ${median(rates).toLocaleString('en-US')} req/s`, bareQueryPaced));
  console.log(row(`GET /collections/:id/tokens/:tokenId (cold), at ${median(rates).toLocaleString('en-US')} req/s`, coldPaced));
  console.log(row(`bare Fastify JSON (no database: the machine's floor), at ${median(rates).toLocaleString('en-US')} req/s`, barePaced));
  console.log(
    `cold p99: ${median(coldRuns.results.map((r) => r.p99))} ms saturated (${connections} connections), ` +
      `${median(coldPaced.results.map((r) => r.p99))} ms at ${median(rates).toLocaleString('en-US')} req/s (goal < 10 ms)`,
  );
  console.log(`cold/bare+query: ${(rps(coldRuns) / rps(bareQueryRuns)).toFixed(2)}`);
  await load.close();
  await bareRedis?.close();
  redis?.disconnect();
  await bareQuery.close();
  await cold.close();
  await pool?.end();
  await bare.close();
  await backend.close();
  await database.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

/**
 * Metadata bench, two comparisons measured in the same run with autocannon (docs/minting.md):
 * - hot: one final token document (GET /collections/:id/tokens/:tokenId, served from the cache)
 *   beside a bare Fastify route answering the same JSON;
 * - cold: a marketplace crawl, 10,000 random tokens on a backend without a document cache (every
 *   request reads the database), beside "bare Fastify + one plain query" (node-postgres on
 *   PostgreSQL, the PGlite client on PGlite) answering the same row. Its last line is
 *   `cold/bare+query: R`.
 *
 *   npm run bench:metadata            (PGlite; DATABASE_URL=postgres://… for PostgreSQL)
 *   BENCH_SECONDS=4 BENCH_ROUNDS=3 BENCH_CONNECTIONS=50 BENCH_NO_CACHE=1 npm run bench:metadata
 * p99 is the median of the rounds' p99s; req/s the mean of the rounds.
 */
import type { AddressInfo } from 'node:net';
// @ts-expect-error autocannon ships no types
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { eq, sql } from 'drizzle-orm';
import pg from 'pg';
import { testConfig } from '../src/config.ts';
import { buildBackendApp } from '../src/http/backend/app.ts';
import { decks, outputs } from '../src/db/schema/index.ts';
import { createTestDatabase } from '../test/helpers/db.ts';
import { sampleData } from '../test/helpers/platform.ts';
import { MetadataCache } from '../src/services/metadata-documents.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 4);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const KEY = 'bench-service-key-0123456789abcdef';

interface Result {
  requests: { average: number };
  latency: { p99: number; average: number };
  non2xx: number;
  errors: number;
}

/** `paths`: each request asks for a random one of them (a crawl); else the url itself. */
function run(url: string, paths?: () => string): Promise<Result> {
  const requests = paths ? [{ setupRequest: (req: { path: string }) => ({ ...req, path: paths() }) }] : undefined;
  return new Promise((resolve, reject) => {
    autocannon({ url, connections, duration: seconds, pipelining: 1, requests }, (err: unknown, res: Result) =>
      err ? reject(err) : resolve(res),
    );
  });
}

const CRAWL_TOKENS = Number(process.env.BENCH_CRAWL_TOKENS ?? 10_000);

/** The token document's row, as one plain SQL statement (what the bare+query route runs). */
const TOKEN_SQL = `select c.id, c.title, c.description, c.cover_image_url, o.id as output_id, o.status, o.url,
  o.token_metadata, o.input_metadata
  from decks d join collections c on c.id = d.collection_id left join outputs o on o.id = d.cover_output_id
  where d.collection_id = $1 and d.token_id = $2 and d.mint_status is not null limit 1`;

const urlOf = (port: number) => `http://127.0.0.1:${port}`;

async function main() {
  const database = await createTestDatabase();
  const config = testConfig({ API_KEY: KEY, LOG_LEVEL: 'silent' });
  const useCache = process.env.BENCH_NO_CACHE !== '1';
  const backend = await buildBackendApp({
    config,
    database,
    metadataBaseUrl: 'http://meta.bench',
    metadataCache: new MetadataCache(useCache ? 30_000 : 0),
  });
  await backend.listen({ port: 0, host: '127.0.0.1' });
  const backendUrl = urlOf((backend.server.address() as AddressInfo).port);

  const created = await fetch(`${backendUrl}/nft/collections`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': KEY },
    body: JSON.stringify({ title: 'Bench Collection', description: 'Bench', editions: 1000, data: sampleData() }),
  });
  const collectionId = ((await created.json()) as { data: { collection: { id: string } } }).data.collection.id;
  const db = database.db;
  // 200 minted tokens with completed artwork; the bench reads one of them.
  for (let i = 1; i <= 200; i++) {
    const [d] = await db.insert(decks).values({ collection_id: collectionId, token_id: i, mint_status: 'minted' }).returning();
    const [o] = await db
      .insert(outputs)
      .values({
        collection_id: collectionId,
        deck_id: d!.id,
        status: 'completed',
        url: `http://files.bench/${i}.png`,
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
  // The crawl's tokens, in bulk: 201..CRAWL_TOKENS with completed artwork.
  await db.execute(sql`
    with d as (
      insert into decks (collection_id, token_id, mint_status)
      select ${collectionId}::uuid, g, 'minted' from generate_series(201, ${CRAWL_TOKENS}) g
      returning id, token_id
    ), o as (
      insert into outputs (collection_id, deck_id, status, url, token_metadata)
      select ${collectionId}::uuid, d.id, 'completed', 'http://files.bench/' || d.token_id || '.png',
        '{"attributes":[{"trait_type":"Color","value":"Blue"}]}'::jsonb
      from d returning id, deck_id
    )
    update decks set cover_output_id = o.id from o where decks.id = o.deck_id`);
  const tokenUrl = `${backendUrl}/collections/${collectionId}/tokens/42`;
  const doc = await (await fetch(tokenUrl)).json();

  const bare = Fastify({ logger: false });
  bare.get('/doc', async () => doc);
  await bare.listen({ port: 0, host: '127.0.0.1' });
  const bareUrl = `${urlOf((bare.server.address() as AddressInfo).port)}/doc`;

  // Cold: the same database, no document cache; bare+query: one plain statement per request.
  const cold = await buildBackendApp({ config, database, metadataBaseUrl: 'http://meta.bench', metadataCache: new MetadataCache(0) });
  await cold.listen({ port: 0, host: '127.0.0.1' });
  const coldUrl = urlOf((cold.server.address() as AddressInfo).port);
  const pool = database.kind === 'postgres' ? new pg.Pool({ connectionString: database.url, max: 20 }) : undefined;
  const plainQuery = async (id: string, tokenId: number): Promise<unknown[]> =>
    pool
      ? (await pool.query(TOKEN_SQL, [id, tokenId])).rows
      : ((await db.execute(sql.raw(TOKEN_SQL.replace('$1', `'${id}'`).replace('$2', String(tokenId))))) as { rows: unknown[] }).rows;
  const bareQuery = Fastify({ logger: false });
  bareQuery.get<{ Params: { id: string; tokenId: string } }>('/collections/:id/tokens/:tokenId', async (req, reply) => {
    const [row] = await plainQuery(req.params.id, Number(req.params.tokenId));
    if (!row) return reply.code(404).send({ error: 'not found' });
    return row;
  });
  await bareQuery.listen({ port: 0, host: '127.0.0.1' });
  const bareQueryUrl = urlOf((bareQuery.server.address() as AddressInfo).port);
  const randomToken = () => `/collections/${collectionId}/tokens/${1 + Math.floor(Math.random() * CRAWL_TOKENS)}`;

  // Alternating rounds, so a change in machine load (shared CI boxes) hits both routes alike.
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const bareRuns: Result[] = [];
  const metaRuns: Result[] = [];
  await run(bareUrl); // warm-up (JIT, connections)
  const bareQueryRuns: Result[] = [];
  const coldRuns: Result[] = [];
  await run(bareQueryUrl, randomToken);
  for (let i = 0; i < rounds; i++) {
    bareRuns.push(await run(bareUrl));
    metaRuns.push(await run(tokenUrl));
    bareQueryRuns.push(await run(bareQueryUrl, randomToken));
    coldRuns.push(await run(coldUrl, randomToken));
  }
  const combine = (rs: Result[]): Result => ({
    requests: { average: rs.reduce((s, r) => s + r.requests.average, 0) / rs.length },
    latency: {
      p99: [...rs.map((r) => r.latency.p99)].sort((a, b) => a - b)[Math.floor(rs.length / 2)]!,
      average: rs.reduce((s, r) => s + r.latency.average, 0) / rs.length,
    },
    non2xx: rs.reduce((s, r) => s + r.non2xx, 0),
    errors: rs.reduce((s, r) => s + r.errors, 0),
  });
  const bareRes = combine(bareRuns);
  const metaRes = combine(metaRuns);
  const ratio = metaRes.requests.average / bareRes.requests.average;
  const row = (name: string, r: Result) =>
    `| ${name} | ${Math.round(r.requests.average).toLocaleString('en-US')} | ${r.latency.p99} | ${r.latency.average.toFixed(2)} | ${r.non2xx + r.errors} |`;
  console.log(
    `metadata bench: ${rounds} alternating rounds of ${seconds} s per route, ${connections} connections, ${database.kind}, in-process cache ${useCache ? 'on' : 'off'}`,
  );
  console.log('| route | req/s | p99 ms | avg ms | errors |');
  console.log('|---|---:|---:|---:|---:|');
  console.log(row('bare Fastify JSON', bareRes));
  console.log(row('GET /collections/:id/tokens/:tokenId', metaRes));
  console.log(`ratio: ${ratio.toFixed(2)} of the bare route's throughput (goal ≥ 0.70: ${ratio >= 0.7 ? 'pass' : 'fail'})`);
  const bareQueryRes = combine(bareQueryRuns);
  const coldRes = combine(coldRuns);
  console.log('');
  console.log(`cold crawl: ${CRAWL_TOKENS.toLocaleString('en-US')} random tokens, no document cache`);
  console.log('| route | req/s | p99 ms | avg ms | errors |');
  console.log('|---|---:|---:|---:|---:|');
  console.log(row('bare Fastify + one plain query', bareQueryRes));
  console.log(row('GET /collections/:id/tokens/:tokenId (cold)', coldRes));
  console.log(`cold/bare+query: ${(coldRes.requests.average / bareQueryRes.requests.average).toFixed(2)}`);
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

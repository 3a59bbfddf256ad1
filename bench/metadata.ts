/**
 * Metadata bench: requests per second and p99 latency of the public token metadata route
 * (GET /collections/:id/tokens/:tokenId, a final document) beside a bare Fastify route answering
 * the same JSON, measured in the same run with autocannon (docs/minting.md).
 *
 *   npm run bench:metadata            (PGlite; DATABASE_URL=postgres://… for PostgreSQL)
 *   BENCH_SECONDS=4 BENCH_ROUNDS=3 BENCH_CONNECTIONS=50 BENCH_NO_CACHE=1 npm run bench:metadata
 * p99 is the median of the rounds' p99s; req/s the mean of the rounds.
 */
import type { AddressInfo } from 'node:net';
// @ts-expect-error autocannon ships no types
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { eq } from 'drizzle-orm';
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

function run(url: string): Promise<Result> {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections, duration: seconds, pipelining: 1 }, (err: unknown, res: Result) => (err ? reject(err) : resolve(res)));
  });
}

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
  const tokenUrl = `${backendUrl}/collections/${collectionId}/tokens/42`;
  const doc = await (await fetch(tokenUrl)).json();

  const bare = Fastify({ logger: false });
  bare.get('/doc', async () => doc);
  await bare.listen({ port: 0, host: '127.0.0.1' });
  const bareUrl = `${urlOf((bare.server.address() as AddressInfo).port)}/doc`;

  // Alternating rounds, so a change in machine load (shared CI boxes) hits both routes alike.
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const bareRuns: Result[] = [];
  const metaRuns: Result[] = [];
  await run(bareUrl); // warm-up (JIT, connections)
  for (let i = 0; i < rounds; i++) {
    bareRuns.push(await run(bareUrl));
    metaRuns.push(await run(tokenUrl));
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
  await bare.close();
  await backend.close();
  await database.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

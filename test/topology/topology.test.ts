/**
 * Separate processes (docs/deployment.md): the topology of `npm run topology` (scripts/topology) as real processes
 * on PostgreSQL, an own Redis and anvil: `atelier migrate`, `atelier deploy`, two `atelier backend`,
 * two `atelier worker`, `atelier admin`, `atelier indexer`. Load is spread over both replicas and
 * both workers; then kill -9 of a worker mid-step, of a replica mid-mint burst, of the indexer
 * mid-backfill, and a Redis restart with its data lost. After each: nothing lost, nothing
 * duplicated (chain, decks, jobs, outputs, transfers), and the singleton duties (crash repair,
 * MetadataUpdate) go on in a survivor. docs/deployment.md.
 *
 * The steps share one topology and run in order (each builds on the state the last left).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { io as connectSocket } from 'socket.io-client';
import { ATELIER_BIN } from '../../scripts/topology/run.ts';
import {
  API_KEY,
  RECIPIENT,
  call,
  chainFacts,
  deckFacts,
  deployedCollection,
  explainToken,
  jobFacts,
  skipReason,
  startTestTopology,
  tinyData,
  until,
  type TestTopology,
} from './harness.ts';

const skip = skipReason();

describe('topology: two replicas, two workers, admin, indexer', { skip, timeout: 600_000 }, () => {
  let t: TestTopology;
  let b1: string;
  let b2: string;
  let collection: { id: string; address: `0x${string}` };
  const startedAt = Date.now();

  before(async () => {
    t = await startTestTopology();
    [b1, b2] = t.topology.of('backend').map((p) => p.url) as [string, string];
    collection = await deployedCollection(b1);
    console.log(`# topology ready in ${Date.now() - startedAt} ms`);
  });

  after(async () => {
    await t?.close();
    console.log(`# topology test wall time ${Date.now() - startedAt} ms`);
  });

  const mint = (backend: string, key?: string) =>
    call(
      `${backend}/nft/collections/${collection.id}/mint`,
      { recipient: RECIPIENT, quantity: 1 },
      key ? { 'x-api-key': API_KEY, 'content-type': 'application/json', 'idempotency-key': key } : undefined,
    );
  const generate = (backend: string) => call(`${backend}/collections/${collection.id}/generations`, { variables: { color: 'red' } });

  /** Every token on chain has exactly one deck, and every deck with a token is on chain. */
  async function chainAndDecksAgree(): Promise<string | undefined> {
    const chain = await chainFacts(t.topology.rpcUrl, collection.address);
    const decks = await deckFacts(t.db, collection.id);
    const missing = chain.minted.filter((id) => decks.get(id) !== 1);
    const extra = [...decks.keys()].filter((id) => !chain.minted.includes(id));
    if (missing.length || extra.length) {
      const why = await Promise.all(
        missing.slice(0, 3).map((id) => explainToken(t.db, t.topology.rpcUrl, collection.address, collection.id, id)),
      );
      return `tokens without exactly one deck: ${missing.join(',')}; decks not on chain: ${extra.join(',')}\n${why.join('\n')}`;
    }
    return undefined;
  }

  test('100 concurrent mints split over two replicas: 100 distinct tokens, 100 decks, 0 nonce errors; artwork from both workers', async () => {
    const t0 = Date.now();
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => mint(i % 2 === 0 ? b1 : b2)));
    console.log(`# 100 concurrent mints over 2 replicas: ${Date.now() - t0} ms`);
    const failed = answers.filter((a) => a.status !== 201);
    assert.equal(failed.length, 0, `every mint answered 201: ${JSON.stringify(failed.slice(0, 3).map((f) => f.body))}`);
    const ids = answers.flatMap((a) => a.body.data.token_ids as number[]);
    assert.equal(new Set(ids).size, 100, '100 distinct token ids');
    const logs = [...t.topology.processes.values()].map((p) => p.output()).join('\n');
    assert.doesNotMatch(logs, /nonce too low|nonce.*already/i, 'no nonce error in any process');
    assert.equal(await chainAndDecksAgree(), undefined);
    const decks = await deckFacts(t.db, collection.id);
    assert.equal(decks.size, 100, '100 decks');
    // The mint generations complete (on whichever worker took them).
    await until(
      'the 100 artworks',
      async () => {
        const f = await jobFacts(t.db, collection.id);
        return (f.status.completed ?? 0) >= 100 ? f : undefined;
      },
      120_000,
      500,
    );
  });

  test('each token gets exactly one MetadataUpdate on chain while two replicas run', async () => {
    const chain = await until(
      'a MetadataUpdate for each of the 100 tokens',
      async () => {
        const c = await chainFacts(t.topology.rpcUrl, collection.address);
        return c.metadataUpdates.size >= 100 ? c : undefined;
      },
      90_000,
      1000,
    ).catch(async (err) => {
      const c = await chainFacts(t.topology.rpcUrl, collection.address);
      const logs = t.topology
        .of('backend')
        .map((p) =>
          p
            .output()
            .split('\n')
            .filter((l) => /lease|MetadataUpdate|metadata/i.test(l))
            .slice(-10)
            .join('\n'),
        )
        .join('\n');
      throw new Error(`${(err as Error).message}: ${c.metadataUpdates.size} tokens have one\n${logs}`);
    });
    // Two more emitter ticks in both replicas: still one each.
    await new Promise((r) => setTimeout(r, 5000));
    const again = await chainFacts(t.topology.rpcUrl, collection.address);
    const dup = [...again.metadataUpdates].filter(([, n]) => n !== 1);
    assert.deepEqual(dup, [], 'exactly one MetadataUpdate per token');
    assert.equal(chain.metadataUpdates.size, 100);
  });

  test('500 jobs over two workers: each completes exactly once; both workers take work', async () => {
    const before = await jobFacts(t.db, collection.id);
    const t0 = Date.now();
    const jobIds: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (next < 500) {
          const i = next++;
          const r = await generate(i % 2 === 0 ? b1 : b2);
          assert.equal(r.status, 202, JSON.stringify(r.body));
          jobIds.push(r.body.data.jobId);
        }
      }),
    );
    const done = await until(
      '500 completed jobs',
      async () => {
        const f = await jobFacts(t.db, collection.id);
        return (f.status.completed ?? 0) >= (before.status.completed ?? 0) + 500 ? f : undefined;
      },
      180_000,
      500,
    );
    console.log(`# 500 jobs over 2 workers: ${Date.now() - t0} ms`);
    assert.deepEqual(done.completedTwice, [], 'no job completed twice');
    assert.deepEqual(done.outputsTwice, [], 'no job with two outputs');
    assert.equal(done.status.failed ?? 0, 0);
    const { rows } = await t.db.query<{ worker: string; n: string }>(
      `SELECT data->>'worker' AS worker, count(*)::text AS n FROM job_history
        WHERE job_id = ANY($1) AND data->>'event' = 'node_started' GROUP BY 1`,
      [jobIds],
    );
    console.log(`# steps per worker: ${rows.map((r) => `${r.worker}=${r.n}`).join(' ')}`);
    const pids = new Set(t.topology.of('worker').map((w) => String(w.child.pid)));
    const byWorker = rows.filter((r) => r.worker && pids.has(r.worker.split(':').pop()!));
    assert.equal(byWorker.length, 2, `both workers took work: ${JSON.stringify(rows)}`);
    assert.equal(
      rows.reduce((s, r) => s + Number(r.n), 0),
      500,
      'each job started exactly once',
    );
  });

  test('a job created on replica 1 is streamed (SSE) from replica 2', async () => {
    const made = await generate(b1);
    assert.equal(made.status, 202);
    const jobId = made.body.data.jobId as string;
    const res = await fetch(`${b2}/api/jobs/${jobId}/stream`, { headers: { 'x-api-key': API_KEY }, signal: AbortSignal.timeout(60_000) });
    assert.equal(res.status, 200);
    let text = '';
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      text += decoder.decode(chunk, { stream: true });
      if (/"status":"completed"/.test(text)) break;
    }
    assert.match(text, /event: job_update/);
    assert.match(text, /"status":"completed"/, 'replica 2 streamed the completion of the job created on replica 1');
  });

  test('a regenerated token is served fresh by every replica within 2 s (caches agree across replicas)', async () => {
    const doc = async (backend: string) => (await call(`${backend}/nft/metadata/${collection.id}/1`)).body as { image: string };
    const old = (await doc(b1)).image;
    assert.ok(old, 'token 1 has its artwork');
    // A worker wrote it: its public URL is under the public base URL every process is given, and
    // resolves there (docs/deployment.md "Public URLs").
    assert.ok(old.startsWith(`${b1}/`), `token 1's image ${old} is under the public base URL ${b1}`);
    const served = await fetch(old);
    assert.equal(served.status, 200, `the image resolves through the public base URL: ${old}`);
    assert.match(served.headers.get('content-type') ?? '', /^image\//);
    assert.equal((await doc(b2)).image, old, 'both replicas serve (and cache) the final document');
    const regen = await call(`${b1}/nft/collections/${collection.id}/generate`, { token_id: 1 });
    assert.equal(regen.status, 202, JSON.stringify(regen.body));
    // The new cover is pending at once; replica 2 must not serve its cached copy for long.
    const t0 = Date.now();
    await until('replica 2 to drop the old document', async () => (await doc(b2)).image !== old, 2000, 50);
    console.log(`# regenerate on replica 1: replica 2 served the new document after ${Date.now() - t0} ms`);
    const fresh = await until(
      'the new artwork',
      async () => {
        const d = await doc(b1);
        return d.image && d.image !== old ? d.image : undefined;
      },
      60_000,
      200,
    );
    await until('replica 2 to serve the new artwork', async () => (await doc(b2)).image === fresh, 2000, 50);
  });

  test("a socket.io client on replica 2 receives the indexer's events (Redis adapter)", async () => {
    const socket = connectSocket(b2, { transports: ['websocket'], reconnection: false, timeout: 5000 });
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('connect', () => resolve());
        socket.once('connect_error', reject);
      });
      const ack = await socket.timeout(5000).emitWithAck('subscribe', { room: `app:${collection.address}` });
      assert.equal(ack.ok, true);
      const got = new Promise<unknown>((resolve) => socket.once('emprops:appToken:minted', resolve));
      assert.equal((await mint(b1)).status, 201);
      const ev = await Promise.race([got, new Promise((_, rej) => setTimeout(() => rej(new Error('no event within 15 s')), 15_000))]);
      assert.ok(ev);
    } finally {
      socket.close();
    }
  });

  test('kill -9 of a worker mid-step: every job completes exactly once on the survivor', async () => {
    const [w1] = t.topology.of('worker');
    const before = await jobFacts(t.db, collection.id);
    const made = await Promise.all(Array.from({ length: 40 }, (_, i) => generate(i % 2 ? b1 : b2)));
    for (const m of made) assert.equal(m.status, 202);
    const pid = String(w1!.child.pid);
    // Mid-step: the worker has started a step of this batch.
    await until(
      'worker 1 to start a step of the batch',
      async () => {
        const { rows } = await t.db.query(
          `SELECT 1 FROM job_history WHERE job_id = ANY($1) AND data->>'event' = 'node_started' AND data->>'worker' LIKE $2 LIMIT 1`,
          [made.map((m) => m.body.data.jobId), `%:${pid}`],
        );
        return rows.length > 0;
      },
      30_000,
      20,
    );
    await w1!.kill9();
    const t0 = Date.now();
    try {
      const done = await until(
        'every job of the batch completed',
        async () => {
          const f = await jobFacts(t.db, collection.id);
          return (f.status.completed ?? 0) >= (before.status.completed ?? 0) + 40 ? f : undefined;
        },
        120_000,
        500,
      );
      console.log(`# worker kill -9: the batch completed ${Date.now() - t0} ms after the kill`);
      assert.deepEqual(done.completedTwice, []);
      assert.deepEqual(done.outputsTwice, []);
      assert.equal(done.status.failed ?? 0, 0);
    } finally {
      await w1!.restart();
    }
  });

  test('kill -9 of a replica mid-mint burst: every on-chain token has its deck within 30 s without a further request; minting stalls < 5 s', async () => {
    // The victim is the replica holding the crash-repair lease (when a replica holds it), so the
    // duty must move to the survivor.
    const holderPid = async (name: string) =>
      ((await t.db.query<{ holder: string }>('SELECT holder FROM leases WHERE name = $1', [name])).rows[0]?.holder ?? '').split(':')[1];
    const backends = t.topology.of('backend');
    const repairPid = await holderPid('crash-repair');
    const victim = backends.find((b) => String(b.child.pid) === repairPid) ?? t.topology.get('backend-2');
    const survivor = backends.find((b) => b !== victim)!;
    console.log(
      `# crash-repair lease held by ${backends.find((b) => String(b.child.pid) === repairPid)?.name ?? 'no replica'}; killing ${victim.name}`,
    );
    try {
      // Steady minting on the survivor, to measure the stall around the kill.
      let stop = false;
      const survivorTimes: number[] = [];
      const steady = (async () => {
        while (!stop) {
          const r = await mint(survivor.url).catch(() => undefined);
          if (r?.status === 201) survivorTimes.push(Date.now());
        }
      })();
      let answered = 0;
      let killAt = 0;
      const burst = Promise.all(
        Array.from({ length: 30 }, async (_, i) => {
          const r = await mint(victim.url, `burst-${i}`).catch(() => undefined);
          if (r?.status === 201) answered++;
          if (answered >= 8 && !killAt) {
            killAt = Date.now();
            await victim.kill9();
          }
        }),
      );
      await burst;
      if (!killAt) {
        killAt = Date.now();
        await victim.kill9();
      }
      console.log(`# replica kill -9 after ${answered} answered mints of 30`);
      // No further request to anything: the survivor's crash repair settles the decks.
      stop = true;
      await steady;
      const settled = await until(
        'every on-chain token with its deck',
        async () => ((await chainAndDecksAgree()) ? undefined : true),
        30_000,
        500,
      )
        .then(() => Date.now() - killAt)
        .catch(async (err) => {
          const why = await chainAndDecksAgree();
          console.log(`# ${why?.replaceAll('\n', '\n# ')}`);
          throw new Error(`${(err as Error).message}: ${why}`);
        });
      console.log(`# every on-chain token had its deck ${settled} ms after the kill`);
      // The singleton duties went on in the survivor.
      for (const duty of ['crash-repair', 'metadata-updates']) {
        await until(`${duty} held by the survivor`, async () => (await holderPid(duty)) === String(survivor.child.pid), 20_000, 250);
      }
      const gaps = survivorTimes
        .filter((x) => x > killAt - 2000)
        .map((x, i, a) => (i ? x - a[i - 1]! : 0))
        .concat(survivorTimes.length ? [survivorTimes.find((x) => x > killAt)! - killAt] : []);
      const stall = Math.max(0, ...gaps.filter((g) => Number.isFinite(g)));
      console.log(`# minting on the survivor: longest gap around the kill ${stall} ms (${survivorTimes.length} mints)`);
      assert.ok(
        survivorTimes.some((x) => x > killAt),
        'the survivor minted after the kill',
      );
      assert.ok(stall < 5000, `a signing process's kill -9 stalls minting under 5 s (longest gap ${stall} ms)`);
    } finally {
      if (!victim.alive()) await victim.restart();
    }
  });

  test('kill -9 of the admin proxy (it signs too) while both replicas mint: minting stalls < 5 s', async () => {
    const admin = t.topology.get('admin');
    let stop = false;
    const times: number[] = [];
    const loops = [b1, b2, b1, b2].map(async (b) => {
      while (!stop) {
        const r = await mint(b).catch(() => undefined);
        if (r?.status === 201) times.push(Date.now());
      }
    });
    try {
      await new Promise((r) => setTimeout(r, 1500));
      const killAt = Date.now();
      await admin.kill9();
      await new Promise((r) => setTimeout(r, 3000));
      stop = true;
      await Promise.all(loops);
      const around = times.filter((x) => x >= killAt - 1000).sort((a, b) => a - b);
      const after = around.find((x) => x > killAt);
      assert.ok(after, 'the replicas minted after the admin died');
      const gaps = around.map((x, i) => (i ? x - around[i - 1]! : 0)).concat([after - killAt]);
      const stall = Math.max(...gaps);
      console.log(`# admin kill -9: longest gap between mint answers around the kill ${stall} ms (${around.length} mints)`);
      assert.ok(stall < 5000, `minting stalled ${stall} ms`);
    } finally {
      stop = true;
      await Promise.all(loops);
      if (!admin.alive()) await admin.restart();
    }
  });

  test('kill -9 of the indexer mid-backfill: its transfers match the chain, none twice', async () => {
    const indexer = t.topology.get('indexer');
    await indexer.kill9();
    // Blocks for it to catch up on.
    for (let i = 0; i < 10; i++) assert.equal((await mint(i % 2 ? b1 : b2)).status, 201);
    const countTransfers = async () =>
      Number(
        (
          await t.db.query<{ n: string }>('SELECT count(*)::text AS n FROM transfers WHERE lower(collection_address) = lower($1)', [
            collection.address,
          ])
        ).rows[0]!.n,
      );
    const target = (await chainFacts(t.topology.rpcUrl, collection.address)).transferLogs.length;
    await indexer.restart();
    // Mid-backfill: kill it again right after it is ready, while it catches up on the missed blocks.
    const atKill = await countTransfers();
    await indexer.kill9();
    console.log(`# indexer killed with ${atKill} of ${target} transfers indexed`);
    await indexer.restart();
    const chain = await chainFacts(t.topology.rpcUrl, collection.address);
    await until(
      'the indexer to hold every Transfer of the collection',
      async () => {
        const { rows } = await t.db.query<{ n: string }>(
          'SELECT count(*)::text AS n FROM transfers WHERE lower(collection_address) = lower($1)',
          [collection.address],
        );
        return Number(rows[0]!.n) >= chain.transferLogs.length;
      },
      60_000,
      500,
    );
    const { rows } = await t.db.query<{ k: string }>(
      "SELECT tx_hash || ':' || log_index AS k FROM transfers WHERE lower(collection_address) = lower($1)",
      [collection.address],
    );
    const indexed = rows.map((r) => r.k).sort();
    assert.equal(new Set(indexed).size, indexed.length, 'no transfer twice');
    const onChain = (await chainFacts(t.topology.rpcUrl, collection.address)).transferLogs.sort();
    assert.deepEqual(indexed, onChain, 'the indexed transfers are exactly the chain logs');
  });

  test('kill -9 of the indexer: both replicas report it down at once, and its lag grows with the chain head read now', async () => {
    const indexer = t.topology.get('indexer');
    const status = async (backend: string) => {
      const r = await call(`${backend}/nft/indexer/status`, undefined, { 'x-api-key': API_KEY });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.data as { down: boolean; running: boolean; indexer_process: { running_in: string }; lag_blocks: number | null };
    };
    await until('the indexer caught up', async () => ((await status(b1)).lag_blocks === 0 ? true : undefined), 30_000, 250);
    // Under load a lease renewal can land late for a moment: wait until the other replica sees it running.
    await until(
      'the other replica sees the indexer running',
      async () => ((await status(b2)).indexer_process.running_in === 'other' ? true : undefined),
      30_000,
      250,
    );
    await indexer.kill9();
    try {
      // At once: its lease runs on, but its holder's pid is known gone on this host.
      for (const b of [b1, b2]) {
        const s = await status(b);
        assert.equal(s.down, true, `${b}: ${JSON.stringify(s)}`);
        assert.equal(s.indexer_process.running_in, 'none');
      }
      for (let i = 0; i < 5; i++) assert.equal((await mint(i % 2 ? b1 : b2)).status, 201);
      // The lag counts the blocks the chain made since (read from the RPC now, not the dead writer's last row).
      const lag = await until(
        'lag from the chain head now',
        async () => {
          const s = await status(b2);
          return (s.lag_blocks ?? 0) >= 5 ? s.lag_blocks : undefined;
        },
        5000,
        100,
      );
      console.log(`# indexer kill -9: down at once on both replicas; lag ${lag} blocks after 5 mints`);
    } finally {
      await indexer.restart();
    }
    await until('the restarted indexer caught up', async () => ((await status(b2)).lag_blocks === 0 ? true : undefined), 60_000, 250);
    assert.equal((await status(b1)).down, false);
  });

  test('SIGTERM of a replica with a stream open and a request in flight: a final reconnect event, Connection: close, exit within 2 s of the answer; the other replica serves throughout', async () => {
    const victim = t.topology.get('backend-2');
    const survivor = t.topology.get('backend-1');
    const workers = t.topology.of('worker');
    // The workers paused, the job stays queued and its stream stays open.
    for (const w of workers) w.child.kill('SIGSTOP');
    let jobId = '';
    try {
      const gen = await generate(victim.url);
      assert.equal(gen.status, 202, JSON.stringify(gen.body));
      jobId = gen.body.data.jobId as string;
      const stream = await fetch(`${victim.url}/api/jobs/${jobId}/stream`, { headers: { 'x-api-key': API_KEY } });
      assert.equal(stream.status, 200);
      const reader = stream.body!.getReader();
      const decoder = new TextDecoder();
      let streamText = '';
      const streamEnded = (async () => {
        for (;;) {
          const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
          if (done) return Date.now();
          streamText += decoder.decode(value, { stream: true });
        }
      })();
      await until('the stream began', async () => (streamText.includes('event: job_update') ? true : undefined), 10_000, 50);

      // A request in flight on a keep-alive connection: headers sent, the body still coming.
      const { hostname, port } = new URL(victim.url);
      const body = JSON.stringify({ title: 'In flight', data: tinyData() });
      const socket = net.connect(Number(port), hostname);
      await new Promise((r) => socket.once('connect', r));
      let answer = '';
      socket.on('data', (d) => (answer += d.toString()));
      const socketClosed = new Promise<number>((r) => socket.once('close', () => r(Date.now())));
      socket.write(
        `POST /nft/collections HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: keep-alive\r\nx-api-key: ${API_KEY}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
      );
      await new Promise((r) => setTimeout(r, 200));

      const signalledAt = Date.now();
      const exit = victim.terminate();
      const endedAt = await streamEnded;
      assert.ok(endedAt - signalledAt < 3000, `stream ended ${endedAt - signalledAt} ms after SIGTERM`);
      assert.match(streamText, /event: reconnect\ndata: \{"reason":"shutting_down"/, streamText);
      assert.ok(victim.alive(), 'the replica still waits for the request in flight');
      // The client reconnects elsewhere: the other replica serves the same job's stream meanwhile.
      const elsewhere = await fetch(`${survivor.url}/api/jobs/${jobId}/stream`, { headers: { 'x-api-key': API_KEY } });
      assert.equal(elsewhere.status, 200);
      await elsewhere.body!.cancel();

      socket.write(body.slice(10));
      await until('the answer', async () => (/\r\n\r\n[\s\S]*\}/.test(answer) ? true : undefined), 10_000, 20);
      const answeredAt = Date.now();
      assert.match(answer, /^HTTP\/1\.1 201/, answer);
      assert.match(answer, /\r\nconnection: close\r\n/i, answer);
      assert.ok((await socketClosed) - answeredAt < 2000, 'the server closed the connection after the answer');
      const { code, at } = await exit;
      assert.equal(code, 0, victim.output().slice(-3000));
      assert.ok(at - answeredAt < 2000, `exited ${at - answeredAt} ms after the answer`);
      console.log(
        `# replica SIGTERM: stream ended ${endedAt - signalledAt} ms after the signal; exit ${at - answeredAt} ms after the answer`,
      );
    } finally {
      for (const w of workers) w.child.kill('SIGCONT');
      if (!victim.alive()) await victim.restart();
    }
    // The job the stream followed completes once the workers run again.
    await until(
      'the queued job completed',
      async () => {
        const { rows } = await t.db.query('SELECT status FROM jobs WHERE id = $1', [jobId]);
        return rows[0]?.status === 'completed';
      },
      60_000,
      300,
    );
  });

  test('Redis restarted with its data lost: pending steps resume within a minute; nothing lost or twice; minting unaffected', async () => {
    const before = await jobFacts(t.db, collection.id);
    const made = await Promise.all(Array.from({ length: 30 }, (_, i) => generate(i % 2 ? b1 : b2)));
    for (const m of made) assert.equal(m.status, 202);
    await t.redis.restartEmpty();
    const t0 = Date.now();
    assert.equal((await mint(b1)).status, 201, 'minting does not depend on Redis keeping its data');
    const done = await until(
      'every job of the batch completed after the Redis loss',
      async () => {
        const f = await jobFacts(t.db, collection.id);
        return (f.status.completed ?? 0) >= (before.status.completed ?? 0) + 30 ? f : undefined;
      },
      60_000,
      500,
    );
    console.log(`# Redis lost its data: the batch completed ${Date.now() - t0} ms later`);
    assert.deepEqual(done.completedTwice, []);
    assert.deepEqual(done.outputsTwice, []);
    // New work flows through the emptied Redis.
    const fresh = await generate(b2);
    assert.equal(fresh.status, 202);
    await until(
      'a job submitted after the Redis loss',
      async () => {
        const { rows } = await t.db.query('SELECT status FROM jobs WHERE id = $1', [fresh.body.data.jobId]);
        return rows[0]?.status === 'completed';
      },
      60_000,
      300,
    );
  });

  test('atelier deploy run again (a second release) deploys nothing: the same factory', async () => {
    const step = t.topology.plan.find((p) => p.name === 'deploy')!;
    const first = fs.readFileSync(path.join(t.dataDir, 'deployments', '31337.json'), 'utf8');
    const run = spawnSync(process.execPath, [ATELIER_BIN, 'deploy'], { env: { PATH: process.env.PATH!, ...step.env }, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const factory = (JSON.parse(first) as { contracts: { DiamondFactory: string } }).contracts.DiamondFactory;
    assert.match(run.stdout, new RegExp(`already deployed on chain 31337: factory ${factory}`));
    assert.equal(fs.readFileSync(path.join(t.dataDir, 'deployments', '31337.json'), 'utf8'), first, 'the record is unchanged');
  });

  test('after every fault: chain and decks agree, one MetadataUpdate per token (the duties went on in the survivors)', async () => {
    await until('chain and decks agree', async () => ((await chainAndDecksAgree()) ? undefined : true), 30_000, 500);
    const chain = await chainFacts(t.topology.rpcUrl, collection.address);
    const jobs = await until(
      'every mint artwork completed',
      async () => {
        const f = await jobFacts(t.db, collection.id);
        return (f.status.pending ?? 0) + (f.status.processing ?? 0) === 0 ? f : undefined;
      },
      60_000,
      500,
    );
    assert.equal(jobs.status.failed ?? 0, 0);
    // One MetadataUpdate per completed artwork of a token (token 1 was regenerated: two); a deck made
    // by the crash repair has no artwork (its variables are not on chain: docs/minting.md), so none.
    const { rows } = await t.db.query<{ token_id: string; n: string }>(
      `SELECT d.token_id::text, count(o.id)::text AS n FROM decks d JOIN outputs o ON o.deck_id = d.id AND o.status = 'completed'
        WHERE d.collection_id = $1 AND d.token_id IS NOT NULL GROUP BY d.token_id`,
      [collection.id],
    );
    const artworks = new Map(rows.map((r) => [Number(r.token_id), Number(r.n)]));
    const withArtwork = [...artworks.keys()];
    const updates = await until(
      'a MetadataUpdate for every artwork',
      async () => {
        const c = await chainFacts(t.topology.rpcUrl, collection.address);
        return withArtwork.every((id) => (c.metadataUpdates.get(id) ?? 0) >= artworks.get(id)!) ? c : undefined;
      },
      60_000,
      1000,
    );
    const wrong = [...updates.metadataUpdates].filter(([id, n]) => n !== artworks.get(id));
    assert.deepEqual(wrong, [], 'exactly one MetadataUpdate per token and artwork');
    assert.equal(updates.metadataUpdates.get(1), 2, 'the regenerated token 1: one per artwork');
    console.log(
      `# final: ${chain.minted.length} tokens (${withArtwork.length} with artwork), ${updates.metadataUpdates.size} MetadataUpdates, jobs ${JSON.stringify(jobs.status)}`,
    );
  });
});

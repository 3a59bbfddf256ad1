/**
 * Outbound webhooks (docs/webhooks.md) against a real receiver (a local HTTP server), the real
 * backend, database and anvil: a mint's `token.minted` verified with the Standard Webhooks
 * library; retries after 500s; concurrent deliverers; a killed deliverer; rolled-back changes;
 * private receivers; replay; automatic disabling; who may see and change a subscription.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { count, eq, sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { openDatabase } from '../../src/db/client.ts';
import { jobs, webhookDeliveries, webhookEvents, webhookSubscriptions } from '../../src/db/schema/index.ts';
import { createHash } from 'node:crypto';
import { finishDeploy } from '../../src/db/deploy-claims.ts';
import { drawSeedSecret, markSeedRevealed } from '../../src/db/fairness.ts';
import { claimMintPayment, releaseMintPayment } from '../../src/db/mint-policy.ts';
import { insertPurchases } from '../../src/db/sale-purchases.ts';
import { OPERATOR_WEBHOOK_EVENTS, WEBHOOK_EVENTS, webhookMessageId } from '../../src/domain/standard-webhooks.ts';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { claimDueDeliveries, finishAttempt, recordWebhookEvent } from '../../src/db/webhooks.ts';
import { createDbStore } from '../../src/indexer/store.ts';
import { webhookDelivererOn, webhookSettingsOf } from '../../src/services/wire-webhooks.ts';
import { bearer, userToken } from '../helpers/content.ts';
import { asService, call } from '../helpers/platform.ts';
import { startMintingPlatform, sleep, waitFor, type MintingPlatform } from '../minting/helpers.ts';
import { startReceiver, type Receiver } from './receiver.ts';

const quietLog = { info() {}, warn() {} };

describe('outbound webhooks', () => {
  let mp: MintingPlatform;
  let rx: Receiver;
  const settings = () => webhookSettingsOf(mp.config);
  /** Runs deliverer passes until `until` holds. */
  const deliverUntil = async (until: () => boolean, what: string, lockMs?: number) => {
    const d = webhookDelivererOn(mp.database.db, { ...settings(), ...(lockMs ? { lockMs } : {}) }, quietLog);
    await waitFor(
      what,
      async () => {
        await d.pass();
        return until() || undefined;
      },
      30_000,
      50,
    );
  };
  const subscribe = async (events: string[], headers: Record<string, string> = asService(), url = rx.url) => {
    const r = await call(`${mp.backendUrl}/api/webhooks`, { body: { url, events }, headers });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.data as { id: string; secret: string };
  };
  const disable = async (id: string) => {
    await mp.database.db.update(webhookSubscriptions).set({ enabled: false }).where(eq(webhookSubscriptions.id, id));
  };

  before(async () => {
    rx = await startReceiver();
    mp = await startMintingPlatform({
      env: { OUTSIDE_FETCH_ALLOW_ORIGINS: rx.origin, WEBHOOK_RETRY_SCHEDULE_MS: '150,150,150,150,150,150', WEBHOOK_DISABLE_AFTER: '4' },
      worker: false,
    });
  });
  after(async () => {
    await mp.close();
    await rx.close();
  });

  test('a mint sends one token.minted whose Standard Webhooks signature verifies', async () => {
    const sub = await subscribe(['token.minted']);
    assert.match(sub.secret, /^whsec_[A-Za-z0-9+/=]{40,}$/);
    const { id } = await mp.deployedCollection({ title: 'Hooked' });
    const recipient = mp.wallet(3).account.address;
    const minted = await call(`${mp.backendUrl}/nft/collections/${id}/mint`, { body: { recipient }, headers: asService() });
    assert.equal(minted.status, 201, JSON.stringify(minted.body));
    await deliverUntil(() => rx.received.length >= 1, 'the token.minted delivery');
    await sleep(300);
    await webhookDelivererOn(mp.database.db, settings(), quietLog).pass();
    assert.equal(rx.received.length, 1, 'exactly one delivery');
    const got = rx.received[0]!;
    // The independent implementation (the standardwebhooks package) checks our signature.
    const verified = new Webhook(sub.secret).verify(got.body, {
      'webhook-id': String(got.headers['webhook-id']),
      'webhook-timestamp': String(got.headers['webhook-timestamp']),
      'webhook-signature': String(got.headers['webhook-signature']),
    }) as { type: string; data: Record<string, unknown> };
    assert.equal(verified.type, 'token.minted');
    assert.equal(verified.data.collection_id, id);
    assert.equal(verified.data.token_id, 1);
    assert.equal(verified.data.tx_hash, JSON.stringify(minted.body).match(/0x[0-9a-f]{64}/)![0]);
    assert.equal(String(verified.data.recipient).toLowerCase(), recipient.toLowerCase());
    // A tampered body fails the same check.
    assert.throws(() =>
      new Webhook(sub.secret).verify(got.body.replace('token.minted', 'token.mintet'), {
        'webhook-id': String(got.headers['webhook-id']),
        'webhook-timestamp': String(got.headers['webhook-timestamp']),
        'webhook-signature': String(got.headers['webhook-signature']),
      }),
    );
    await disable(sub.id);
  });

  test('500 three times, then 200: the event arrives exactly once more after the backoff, and the log shows four attempts', async () => {
    rx.received.length = 0;
    const sub = await subscribe(['artwork.completed']);
    rx.script = [500, 500, 500, 200];
    await recordWebhookEvent(mp.database.db, { key: `retry-test:${sub.id}`, type: 'artwork.completed', ownerId: null, payload: { n: 1 } });
    await deliverUntil(() => rx.received.length >= 4, 'four attempts');
    await sleep(500);
    await webhookDelivererOn(mp.database.db, settings(), quietLog).pass();
    assert.equal(rx.received.length, 4, 'no attempt after the success');
    const ids = new Set(rx.received.map((r) => r.headers['webhook-id']));
    assert.equal(ids.size, 1, 'every attempt carries the same webhook-id');
    // Backoff: each retry came at least the scheduled delay after the previous attempt.
    for (let i = 1; i < 4; i++) assert.ok(rx.received[i]!.at - rx.received[i - 1]!.at >= 140, `retry ${i} waited`);
    const log = await call(`${mp.backendUrl}/api/webhooks/${sub.id}/deliveries`, { headers: asService() });
    assert.equal(log.status, 200);
    const [d] = log.body.data;
    assert.equal(d.status, 'succeeded');
    assert.equal(d.attempts, 4);
    assert.deepEqual(
      d.attempt_log.map((a: { status_code: number }) => a.status_code),
      [500, 500, 500, 200],
    );
    await disable(sub.id);
  });

  test('a state change whose transaction rolls back emits no webhook', async () => {
    const sub = await subscribe(['token.transferred']);
    const before = await mp.database.db.select({ n: count() }).from(webhookEvents);
    await assert.rejects(
      mp.database.db.transaction(async (t) => {
        await recordWebhookEvent(t, { key: 'rolled-back', type: 'token.transferred', ownerId: null, payload: { x: 1 } });
        throw new Error('the state change failed');
      }),
      /state change failed/,
    );
    const afterCount = await mp.database.db.select({ n: count() }).from(webhookEvents);
    assert.equal(afterCount[0]!.n, before[0]!.n);
    const deliveries = await mp.database.db
      .select({ n: count() })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.subscription_id, sub.id));
    assert.equal(deliveries[0]!.n, 0);
    await disable(sub.id);
  });

  test('concurrent deliverers send each event once', async () => {
    rx.received.length = 0;
    rx.script = [];
    const sub = await subscribe(['sample.completed']);
    for (let i = 0; i < 40; i++) {
      await recordWebhookEvent(mp.database.db, {
        key: `concurrent:${sub.id}:${i}`,
        type: 'sample.completed',
        ownerId: null,
        payload: { i },
      });
    }
    // On PostgreSQL each deliverer has its own connection pool, as separate processes would.
    const url = (mp.database as { url?: string }).url;
    const extra = url ? [await openDatabase({ url, poolSize: 4 }), await openDatabase({ url, poolSize: 4 })] : [];
    try {
      const dbs = extra.length > 0 ? extra.map((x) => x.db) : [mp.database.db, mp.database.db];
      const deliverers = dbs.flatMap((db) => [webhookDelivererOn(db, settings(), quietLog), webhookDelivererOn(db, settings(), quietLog)]);
      for (let round = 0; round < 20 && rx.received.length < 40; round++) await Promise.all(deliverers.map((d) => d.pass()));
    } finally {
      for (const x of extra) await x.close();
    }
    const ids = rx.received.map((r) => String(r.headers['webhook-id']));
    assert.equal(ids.length, 40, 'forty requests');
    assert.equal(new Set(ids).size, 40, 'no event twice');
    await disable(sub.id);
  });

  test('a deliverer killed mid-delivery loses nothing: the claim lapses and another sends it', async (t) => {
    let stuckPass: Promise<unknown> = Promise.resolve();
    const url = (mp.database as { url?: string }).url;
    rx.received.length = 0;
    const sub = await subscribe(['payment.received']);
    await recordWebhookEvent(mp.database.db, { key: `kill:${sub.id}`, type: 'payment.received', ownerId: null, payload: { k: 1 } });
    rx.script = ['hang'];
    if (url) {
      // A real process on the same PostgreSQL, killed with SIGKILL while its request hangs.
      const child = spawn(process.execPath, ['--import', 'tsx', path.join('test', 'webhooks', 'deliverer-child.ts')], {
        env: { ...process.env, CHILD_DATABASE_URL: url, CHILD_ALLOW_ORIGIN: rx.origin, CHILD_LOCK_MS: '1500' },
        stdio: 'ignore',
      });
      await waitFor('the child to send', async () => (rx.received.length >= 1 ? true : undefined), 30_000);
      child.kill('SIGKILL');
      await new Promise((done) => child.once('exit', done));
    } else {
      t.diagnostic('PGlite admits one process: the killed deliverer is a pass that never finishes');
      const stuck = webhookDelivererOn(mp.database.db, { ...settings(), lockMs: 1500 }, quietLog);
      stuckPass = stuck.pass();
      await waitFor('the first attempt', async () => (rx.received.length >= 1 ? true : undefined), 30_000);
    }
    // Nobody else takes it while the claim holds…
    await webhookDelivererOn(mp.database.db, settings(), quietLog).pass();
    assert.equal(rx.received.length, 1);
    // …and after it lapses, another deliverer sends it.
    await sleep(1600);
    await deliverUntil(() => rx.received.length >= 2, 'the re-delivery');
    const [d] = await mp.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.subscription_id, sub.id));
    assert.equal(d!.status, 'succeeded');
    assert.equal(rx.received[0]!.headers['webhook-id'], rx.received[1]!.headers['webhook-id']);
    // The stuck attempt ends (its connection drops) and, fenced, records nothing over the success.
    rx.dropHanging();
    await stuckPass;
    const [still] = await mp.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.subscription_id, sub.id));
    assert.equal(still!.status, 'succeeded');
    await disable(sub.id);
  });

  test('receivers on private addresses are refused unless their origin is allowed', async () => {
    for (const url of ['http://127.0.0.1:9/x', 'http://10.1.2.3/x', 'http://[::1]:8080/x', 'http://localhost:1/x', 'ftp://example.com/x']) {
      const r = await call(`${mp.backendUrl}/api/webhooks`, { body: { url, events: ['token.minted'] }, headers: asService() });
      assert.equal(r.status, 400, `${url}: ${JSON.stringify(r.body)}`);
      assert.match(JSON.stringify(r.body), /url/);
    }
    const unknownEvent = await call(`${mp.backendUrl}/api/webhooks`, {
      body: { url: rx.url, events: ['token.eaten'] },
      headers: asService(),
    });
    assert.equal(unknownEvent.status, 400);
    assert.match(JSON.stringify(unknownEvent.body), /events/);
    // The allowed dev origin is accepted (the other tests use it).
    const ok = await call(`${mp.backendUrl}/api/webhooks`, { body: { url: rx.url, events: ['token.minted'] }, headers: asService() });
    assert.equal(ok.status, 201);
    await disable(ok.body.data.id);
  });

  test('replay sends a delivered event again with the same webhook-id; a test event reaches one subscription', async () => {
    rx.received.length = 0;
    rx.script = [];
    const sub = await subscribe(['collection.deployed']);
    await recordWebhookEvent(mp.database.db, { key: `replay:${sub.id}`, type: 'collection.deployed', ownerId: null, payload: { r: 1 } });
    await deliverUntil(() => rx.received.length >= 1, 'the first delivery');
    const log = await call(`${mp.backendUrl}/api/webhooks/${sub.id}/deliveries`, { headers: asService() });
    const deliveryId = log.body.data[0].id;
    const replay = await call(`${mp.backendUrl}/api/webhooks/${sub.id}/deliveries/${deliveryId}/replay`, {
      method: 'POST',
      headers: asService(),
    });
    assert.equal(replay.status, 202, JSON.stringify(replay.body));
    await deliverUntil(() => rx.received.length >= 2, 'the replay');
    assert.equal(rx.received[1]!.headers['webhook-id'], rx.received[0]!.headers['webhook-id']);

    const test1 = await call(`${mp.backendUrl}/api/webhooks/${sub.id}/test`, { method: 'POST', headers: asService() });
    assert.equal(test1.status, 202);
    await deliverUntil(() => rx.received.length >= 3, 'the test event');
    assert.equal(JSON.parse(rx.received[2]!.body).type, 'webhook.test');
    await disable(sub.id);
  });

  test('a receiver that keeps failing disables its subscription after WEBHOOK_DISABLE_AFTER attempts, with a log line', async () => {
    rx.received.length = 0;
    rx.script = [];
    rx.fallback = 503;
    const warnings: string[] = [];
    const sub = await subscribe(['token.purchased']);
    for (let i = 0; i < 2; i++) {
      await recordWebhookEvent(mp.database.db, { key: `disable:${sub.id}:${i}`, type: 'token.purchased', ownerId: null, payload: { i } });
    }
    const d = webhookDelivererOn(mp.database.db, settings(), { info() {}, warn: (_o, m) => warnings.push(m) });
    await waitFor(
      'the subscription to be disabled',
      async () => {
        await d.pass();
        const [s] = await mp.database.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, sub.id));
        return s!.enabled ? undefined : s;
      },
      30_000,
    );
    const got = await call(`${mp.backendUrl}/api/webhooks/${sub.id}`, { headers: asService() });
    assert.equal(got.body.data.enabled, false);
    assert.match(got.body.data.disabled_reason, /4 failed attempts in a row/);
    assert.ok(warnings.some((w) => /disabled after 4 failed attempts/.test(w)));
    const sent = rx.received.length;
    await sleep(400);
    await d.pass();
    assert.equal(rx.received.length, sent, 'nothing is sent to a disabled subscription');
    // Re-enabling resumes delivery.
    rx.fallback = 200;
    const re = await call(`${mp.backendUrl}/api/webhooks/${sub.id}`, { method: 'PATCH', body: { enabled: true }, headers: asService() });
    assert.equal(re.status, 200);
    assert.equal(re.body.data.consecutive_failures, 0);
    await disable(sub.id);
  });

  test('a creator sees and changes only their own subscriptions, and receives only their records’ events', async () => {
    rx.received.length = 0;
    rx.script = [];
    const alice = bearer(await userToken('webhook-alice'));
    const bob = bearer(await userToken('webhook-bob'));
    const a = await subscribe(['token.minted'], alice);
    const listB = await call(`${mp.backendUrl}/api/webhooks`, { headers: bob });
    assert.equal(listB.status, 200);
    assert.ok(!listB.body.data.some((s: { id: string }) => s.id === a.id));
    for (const [method, suffix, body] of [
      ['GET', '', undefined],
      ['PATCH', '', { enabled: false }],
      ['DELETE', '', undefined],
      ['POST', '/rotate', {}],
      ['GET', '/deliveries', undefined],
      ['POST', '/test', undefined],
    ] as const) {
      const r = await call(`${mp.backendUrl}/api/webhooks/${a.id}${suffix}`, { method, headers: bob, ...(body ? { body } : {}) });
      assert.equal(r.status, 404, `${method} ${suffix}: ${r.status}`);
    }
    const anon = await call(`${mp.backendUrl}/api/webhooks`, {});
    assert.equal(anon.status, 401);
    // An event about someone else's record does not reach Alice.
    const aliceUser = (await mp.database.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, a.id)))[0]!.owner_id;
    await recordWebhookEvent(mp.database.db, { key: `owner:${a.id}:other`, type: 'token.minted', ownerId: 'someone-else', payload: {} });
    await recordWebhookEvent(mp.database.db, {
      key: `owner:${a.id}:mine`,
      type: 'token.minted',
      ownerId: aliceUser,
      payload: { mine: true },
    });
    const deliveries = await mp.database.db
      .select({ event: webhookDeliveries.event_id })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.subscription_id, a.id));
    assert.equal(deliveries.length, 1);
    // Rotation: both secrets sign during the overlap.
    const rotated = await call(`${mp.backendUrl}/api/webhooks/${a.id}/rotate`, {
      method: 'POST',
      body: { overlap_seconds: 60 },
      headers: alice,
    });
    assert.equal(rotated.status, 200);
    await deliverUntil(() => rx.received.length >= 1, 'alice’s delivery');
    const got = rx.received[0]!;
    const sigHeaders = {
      'webhook-id': String(got.headers['webhook-id']),
      'webhook-timestamp': String(got.headers['webhook-timestamp']),
      'webhook-signature': String(got.headers['webhook-signature']),
    };
    new Webhook(rotated.body.data.secret).verify(got.body, sigHeaders);
    new Webhook(a.secret).verify(got.body, sigHeaders);
    await disable(a.id);
  });

  test('operator-only events: a user’s subscription may not name them (400 naming body.events.<i>); the operator’s may', async () => {
    const url = `${mp.backendUrl}/api/webhooks`;
    const carol = bearer(await userToken('webhook-carol'));
    for (const event of OPERATOR_WEBHOOK_EVENTS) {
      const r = await call(url, { body: { url: rx.url, events: ['token.minted', event] }, headers: carol });
      assert.equal(r.status, 400, `${event}: ${JSON.stringify(r.body)}`);
      assert.match(
        r.body.error,
        new RegExp(`^body\\.events\\.1: ${event.replace('.', '\\.')} is an operator event: only the operator's subscriptions`),
      );
    }
    const mine = await subscribe(['token.minted'], carol);
    const patch = await call(`${url}/${mine.id}`, { method: 'PATCH', body: { events: ['wallet.low_balance'] }, headers: carol });
    assert.equal(patch.status, 400, JSON.stringify(patch.body));
    assert.match(patch.body.error, /^body\.events\.0: wallet\.low_balance is an operator event/);
    // The operator may not put one on a user's subscription either: it would never be delivered there.
    const byOperator = await call(`${url}/${mine.id}`, { method: 'PATCH', body: { events: ['transaction.stuck'] }, headers: asService() });
    assert.equal(byOperator.status, 400, JSON.stringify(byOperator.body));
    assert.match(byOperator.body.error, /^body\.events\.0: transaction\.stuck is an operator event/);
    const unchanged = await call(`${url}/${mine.id}`, { headers: carol });
    assert.deepEqual(unchanged.body.data.events, ['token.minted']);
    // The operator's own subscriptions keep them.
    const ops = await subscribe([...OPERATOR_WEBHOOK_EVENTS]);
    const changed = await call(`${url}/${ops.id}`, { method: 'PATCH', body: { events: ['transaction.stuck'] }, headers: asService() });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.deepEqual(changed.body.data.events, ['transaction.stuck']);
    await disable(mine.id);
    await disable(ops.id);
  });

  test('claims are fenced: a deliverer whose claim lapsed and was retaken records nothing', async () => {
    const sub = await subscribe(['artwork.failed']);
    await recordWebhookEvent(mp.database.db, { key: `fence:${sub.id}`, type: 'artwork.failed', ownerId: null, payload: {} });
    const [first] = await claimDueDeliveries(mp.database.db, 10, 1);
    assert.ok(first);
    await sleep(20);
    await mp.database.db.execute(sql`UPDATE webhook_deliveries SET locked_until = now() - interval '1 second' WHERE id = ${first.id}`);
    const [second] = await claimDueDeliveries(mp.database.db, 10, 30_000);
    assert.equal(second?.id, first.id);
    const late = await finishAttempt(mp.database.db, first, {
      ok: true,
      statusCode: 200,
      error: null,
      durationMs: 1,
      responseExcerpt: null,
      retryInMs: undefined,
      disableAfter: 4,
    });
    assert.equal(late.recorded, false);
    await disable(sub.id);
  });
});

describe('webhook events written with their state change', () => {
  let mp: MintingPlatform;
  before(async () => {
    mp = await startMintingPlatform({ worker: false });
    await mp.database.db.insert(webhookSubscriptions).values({
      owner_id: null,
      url: 'https://receiver.example/hooks',
      events: ['collection.deployed', 'token.transferred'],
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    });
  });
  after(async () => mp.close());

  const eventsOf = async (type: string) =>
    (await mp.database.db.select().from(webhookEvents).where(eq(webhookEvents.type, type))).map(
      (e) => e.payload as { data: Record<string, unknown> },
    );

  test('collection.deployed commits with the deployment write, once', async () => {
    const created = await call(`${mp.backendUrl}/nft/collections`, { body: { title: 'Deployed hook', editions: 5 }, headers: asService() });
    const id = created.body.data.collection.id as string;
    const write = {
      contract_address: '0x00000000000000000000000000000000000000aa',
      chain_id: 31337,
      deploy_tx_hash: `0x${'ab'.repeat(32)}`,
      base_token_uri: 'http://meta.test/x/',
    };
    assert.ok(await finishDeploy(mp.database.db, id, write, 'undeployed'));
    assert.equal(await finishDeploy(mp.database.db, id, write, 'undeployed'), undefined, 'a second write does not qualify');
    const events = (await eventsOf('collection.deployed')).filter((e) => e.data.collection_id === id);
    assert.equal(events.length, 1);
    assert.equal(events[0]!.data.contract_address, write.contract_address);
    const [delivery] = await mp.database.db
      .select({ n: count() })
      .from(webhookDeliveries)
      .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.event_id))
      .where(eq(webhookEvents.type, 'collection.deployed'));
    assert.equal(delivery!.n, 1);
  });

  test('token.transferred commits with the indexed range (not for mints), once per log', async () => {
    const store = createDbStore(mp.database.db, 31337);
    await store.ensureState(1);
    const located = (n: number, log: number) => ({
      block_number: n,
      block_hash: `0x${n.toString(16).padStart(64, '0')}`,
      tx_hash: `0x${(n * 100 + log).toString(16).padStart(64, '0')}`,
      log_index: log,
      timestamp: new Date(),
    });
    const collection = '0x00000000000000000000000000000000000000bb';
    const mint = {
      collection_address: collection,
      token_id: '1',
      from_address: '0x0000000000000000000000000000000000000000',
      to_address: '0x00000000000000000000000000000000000000c1',
      ...located(5, 0),
    };
    const move = {
      collection_address: collection,
      token_id: '1',
      from_address: '0x00000000000000000000000000000000000000c1',
      to_address: '0x00000000000000000000000000000000000000c2',
      ...located(6, 1),
    };
    const write = {
      from: 5,
      to: 6,
      lastHash: located(6, 0).block_hash,
      status: 'idle' as const,
      head: 6,
      latest: [move],
      blocks: [],
      apps: [],
      transfers: [mint, move],
      mints: [],
      owners: [],
      upgrades: [],
    };
    await store.commitRange(write as never);
    await store.commitRange(write as never);
    const events = await eventsOf('token.transferred');
    assert.equal(events.length, 1, 'the move, not the mint, once');
    assert.equal(events[0]!.data.to, move.to_address);
    assert.equal(events[0]!.data.token_id, '1');
  });

  test('the database writes artwork, sample, payment, purchase and reveal events with the row change, once each', async () => {
    const db = mp.database.db;
    const alice = await userToken('webhook-source-alice');
    const created = await call(`${mp.backendUrl}/nft/collections`, { body: { title: 'Sourced', editions: 5 }, headers: bearer(alice) });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.data.collection.id as string;
    const owner = created.body.data.collection.user_id as string;
    const address = '0x00000000000000000000000000000000000000dd';
    await finishDeploy(
      db,
      id,
      { contract_address: address, chain_id: 31337, deploy_tx_hash: `0x${'cd'.repeat(32)}`, base_token_uri: 'http://m.test/' },
      'undeployed',
    );
    const [mine] = await db
      .insert(webhookSubscriptions)
      .values({
        owner_id: owner,
        url: 'https://alice.example/hooks',
        events: ['artwork.completed', 'artwork.failed', 'token.purchased'],
        secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      })
      .returning();
    const [someoneElse] = await db
      .insert(webhookSubscriptions)
      .values({
        owner_id: 'not-alice',
        url: 'https://bob.example/hooks',
        events: ['artwork.completed'],
        secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      })
      .returning();

    // A token's artwork job: completed once (a second write of the same status adds nothing), then a
    // retried attempt that fails.
    const jobId = `job-${Date.now()}`;
    await db
      .insert(jobs)
      .values({ id: jobId, job_type: 'mint_generation', status: 'processing', data: {}, collection_id: id, user_id: null });
    await db.update(jobs).set({ status: 'completed', workflow_output: 'http://files.test/1.png' }).where(eq(jobs.id, jobId));
    await db.update(jobs).set({ status: 'completed' }).where(eq(jobs.id, jobId));
    await db.update(jobs).set({ status: 'failed', retry_count: 1, error_message: 'renderer gone' }).where(eq(jobs.id, jobId));
    const completed = (await eventsOf('artwork.completed')).filter((e) => e.data.job_id === jobId);
    assert.equal(completed.length, 1);
    assert.equal(completed[0]!.data.url, 'http://files.test/1.png');
    assert.equal(completed[0]!.data.contract_address, address);
    const failed = (await eventsOf('artwork.failed')).filter((e) => e.data.job_id === jobId);
    assert.equal(failed.length, 1);
    assert.equal(failed[0]!.data.error, 'renderer gone');
    // The SQL twin names an event exactly as db/webhooks.ts does (one key, one webhook-id).
    const [row] = await db.select().from(webhookEvents).where(eq(webhookEvents.type, 'artwork.completed'));
    const key = `artwork.completed:${jobId}:0`;
    assert.equal(row!.id, webhookMessageId(createHash('sha256').update(key).digest('hex')));
    assert.equal(row!.owner_id, owner);
    assert.match((row!.payload as { timestamp: string }).timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    // A sample job's end is its requester's.
    const sampleJob = `sample-${Date.now()}`;
    await db
      .insert(jobs)
      .values({ id: sampleJob, job_type: 'sample', status: 'processing', data: {}, collection_id: id, user_id: 'sampler-1' });
    await db.update(jobs).set({ status: 'completed' }).where(eq(jobs.id, sampleJob));
    const samples = (await eventsOf('sample.completed')).filter((e) => e.data.job_id === sampleJob);
    assert.equal(samples.length, 1);

    // A payment claimed, released and claimed again is received once.
    const payment = {
      chainId: 31337,
      txHash: `0x${'ef'.repeat(32)}`,
      token: address,
      payer: address,
      recipient: address,
      amount: 5_000_000n,
    };
    await releaseMintPayment(db, await claimMintPayment(db, payment as never, id));
    await claimMintPayment(db, payment as never, id);
    assert.equal((await eventsOf('payment.received')).filter((e) => e.data.tx_hash === payment.txHash).length, 1);

    // Each purchased token once, whoever inserts it.
    const purchase = {
      chain_id: 31337,
      tx_hash: `0x${'aa'.repeat(32)}`,
      log_index: 3,
      token_id: 7,
      block_number: 9,
      block_hash: `0x${'bb'.repeat(32)}`,
      collection_id: id,
      buyer: address,
      recipient: address,
      choices_status: 'none',
    };
    await insertPurchases(db, [purchase]);
    await insertPurchases(db, [purchase]);
    const bought = (await eventsOf('token.purchased')).filter((e) => e.data.collection_id === id);
    assert.equal(bought.length, 1);
    assert.equal(bought[0]!.data.token_id, 7);

    // The reveal, once.
    await drawSeedSecret(db, {
      collectionId: id,
      chainId: 31337,
      address,
      secret: `0x${'11'.repeat(32)}`,
      commitment: `0x${'22'.repeat(32)}`,
    });
    await markSeedRevealed(db, 31337, address, `0x${'33'.repeat(32)}`);
    await markSeedRevealed(db, 31337, address, `0x${'44'.repeat(32)}`);
    const revealed = (await eventsOf('collection.revealed')).filter((e) => e.data.collection_id === id);
    assert.equal(revealed.length, 1);
    assert.equal(revealed[0]!.data.secret, `0x${'11'.repeat(32)}`);

    // Every event written here matches the payload schema /openapi.json documents for its type.
    const doc = (await (await fetch(`${mp.backendUrl}/openapi.json`)).json()) as {
      openapi: string;
      webhooks: Record<string, { post: { requestBody: { content: { 'application/json': { schema: object } } } } }>;
    };
    assert.equal(doc.openapi, '3.1.0');
    assert.deepEqual(Object.keys(doc.webhooks).sort(), [...WEBHOOK_EVENTS].sort());
    const ajv = new Ajv2020({ strict: false });
    const written = await db
      .select()
      .from(webhookEvents)
      .where(
        sql`${webhookEvents.payload}->'data'->>'collection_id' = ${id} or ${webhookEvents.type} in ('wallet.low_balance','transaction.stuck')`,
      );
    const types = new Set<string>();
    for (const e of written) {
      const schema = doc.webhooks[e.type]?.post.requestBody.content['application/json'].schema;
      assert.ok(schema, `${e.type} is documented`);
      const valid = ajv.validate(schema, e.payload);
      assert.ok(valid, `${e.type}: ${ajv.errorsText()} in ${JSON.stringify(e.payload)}`);
      types.add(e.type);
    }
    for (const t of [
      'artwork.completed',
      'artwork.failed',
      'sample.completed',
      'payment.received',
      'token.purchased',
      'collection.revealed',
    ])
      assert.ok(types.has(t), `${t} was checked`);

    // Fan-out: alice's subscription got her three subscribed events; bob's nothing of hers.
    const deliveriesOf = async (subscriptionId: string) =>
      (await db.select({ n: count() }).from(webhookDeliveries).where(eq(webhookDeliveries.subscription_id, subscriptionId)))[0]!.n;
    assert.equal(await deliveriesOf(mine!.id), 3);
    assert.equal(await deliveriesOf(someoneElse!.id), 0);
  });
});

/**
 * /metrics (src/http/metrics.ts): Prometheus text on the backend and the admin proxy, with the
 * series an operator alerts on read from the database at scrape time; route patterns, never URLs,
 * as labels; METRICS_TOKEN guards the scrape when set, and the service key alone does not open it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { startLeasedDuty, type LeasedDuty } from '../../src/duties/runner.ts';
import { SERVICE_KEY, setupApps, setupDb, type TestApps } from '../helpers/kit.ts';
import type { TestDatabase } from '../helpers/db.ts';

/** The value of one series (name and labels, in any order), or undefined. */
function sample(text: string, series: string): number | undefined {
  const key = (nameAndLabels: string) => {
    const m = /^([a-z_]+)(?:\{(.*)\})?$/.exec(nameAndLabels);
    return m ? `${m[1]}{${(m[2] ?? '').split(',').filter(Boolean).sort().join(',')}}` : nameAndLabels;
  };
  const want = key(series);
  for (const line of text.split('\n')) {
    const at = line.lastIndexOf(' ');
    if (!line.startsWith('#') && at > 0 && key(line.slice(0, at)) === want) return Number(line.slice(at + 1));
  }
  return undefined;
}

describe('/metrics', () => {
  let db: TestDatabase;
  let apps: TestApps;
  let duty: LeasedDuty;
  before(async () => {
    db = await setupDb();
    apps = await setupApps({ database: db, listen: false });
    await db.db.execute(
      sql`INSERT INTO jobs (id, status, data) VALUES ('m-1', 'processing', '{}'), ('m-2', 'completed', '{}'), ('m-3', 'completed', '{}')`,
    );
    // A pending one-step job has no step row: the job is its pending step (docs/jobs.md "One-step jobs").
    await db.db.execute(
      sql`INSERT INTO jobs (id, status, data, created_at) VALUES ('m-4', 'pending', '{"steps": [{}]}', now() - interval '30 seconds')`,
    );
    await db.db.execute(sql`INSERT INTO job_steps (job_id, step_name, step_type, step_order, status, created_at)
      VALUES ('m-1', 's', 'image', 0, 'completed', now() - interval '100 seconds'),
             ('m-1', 's', 'image', 1, 'pending', now() - interval '60 seconds'),
             ('m-2', 's', 'image', 0, 'pending', now() - interval '500 seconds')`);
    await db.db.execute(sql`INSERT INTO chain_transactions (purpose, chain_id, from_address, status, nonce)
      VALUES ('mint', 31337, '0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266', 'sent', 4),
             ('mint', 31337, '0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266', 'mined', 3),
             ('mint', 31337, '0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266', 'queued', null)`);
    duty = startLeasedDuty({ db: db.db, name: 'metrics-test-duty', start: () => ({ stop: async () => undefined }) });
  });
  after(async () => {
    await duty.stop();
    await apps.close();
    await db.close();
  });

  test('the backend reports latency by route pattern, jobs, queue depth and age, tx pending, duty leaders', async () => {
    await apps.request('backend', '/healthz');
    await apps.request('backend', '/nft/collections/0b0e9a2c-32c5-4a4b-9b3f-6a3c0e8f1a11', { headers: { 'x-api-key': SERVICE_KEY } });
    for (let i = 0; i < 100 && !duty.isLeader(); i++) await new Promise((r) => setTimeout(r, 20));
    const res = await apps.backend.inject({ method: 'GET', url: '/metrics' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain/);
    const text = res.body;
    assert.equal(
      sample(text, 'atelier_http_request_duration_seconds_count{process="backend",method="GET",route="/healthz",status="200"}'),
      1,
    );
    assert.match(text, /route="\/nft\/collections\/:collectionId"/, 'the pattern is the label');
    assert.doesNotMatch(text, /0b0e9a2c/, 'never the URL with its id');
    assert.equal(sample(text, 'atelier_jobs{process="backend",state="completed"}'), 2);
    assert.equal(sample(text, 'atelier_jobs{process="backend",state="processing"}'), 1);
    // The open job's pending step and the pending one-step job wait (m-2 is completed: its step is not queue work).
    assert.equal(sample(text, 'atelier_queue_depth{process="backend"}'), 2);
    const age = sample(text, 'atelier_queue_oldest_age_seconds{process="backend"}')!;
    assert.ok(age >= 59 && age < 120, `oldest age ${age}`);
    assert.equal(
      sample(text, 'atelier_tx_pending{process="backend",chain_id="31337",wallet="0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"}'),
      2,
    );
    assert.equal(sample(text, 'atelier_duty_leader{process="backend",duty="metrics-test-duty"}'), 1);
    assert.match(text, /atelier_process_cpu_seconds_total/);
  });

  test('the admin proxy answers /metrics too, and /healthz', async () => {
    const res = await apps.admin.inject({ method: 'GET', url: '/metrics' });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /process="admin"/);
    assert.equal((await apps.admin.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
  });
});

describe('/metrics with METRICS_TOKEN', () => {
  let db: TestDatabase;
  let apps: TestApps;
  before(async () => {
    db = await setupDb();
    apps = await setupApps({ database: db, listen: false, env: { METRICS_TOKEN: 'scrape-token-0123456789' } });
  });
  after(async () => {
    await apps.close();
    await db.close();
  });

  test('needs the scrape token; the service key is not it', async () => {
    assert.equal((await apps.backend.inject({ method: 'GET', url: '/metrics' })).statusCode, 401);
    const withKey = await apps.backend.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${SERVICE_KEY}` } });
    assert.equal(withKey.statusCode, 401);
    const ok = await apps.backend.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer scrape-token-0123456789' } });
    assert.equal(ok.statusCode, 200);
    assert.match(ok.body, /atelier_jobs|atelier_queue_depth/);
  });
});

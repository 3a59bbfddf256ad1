/**
 * Singleton duties (src/duties/runner.ts): two candidates on one database, one duty. The duty runs
 * in one of them at a time; when its holder stops, the other takes over at its next attempt; when
 * its holder vanishes without giving the lease up (kill -9), the other takes over once the lease
 * has expired, never before.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { listLeases } from '../../src/db/leases.ts';
import { dutyLeaders, startLeasedDuty, type LeasedDuty } from '../../src/duties/runner.ts';
import { setupDb } from '../helpers/kit.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { sql } from 'drizzle-orm';
import { waitFor } from '../helpers/wait.ts';

const until = (what: string, cond: () => boolean, timeoutMs = 5000) =>
  waitFor(what, async () => (cond() ? true : undefined), timeoutMs, 20);

let db: TestDatabase;
before(async () => {
  db = await setupDb();
});
after(() => db.close());

// Long enough that a holder renewing every 250 ms keeps its lease on a loaded 2-core machine (PGlite runs in-process).
const TTL = 3000;

/** A duty recording who runs it, and any moment two ran it at once. */
function probe() {
  const active = new Set<string>();
  const violations: string[] = [];
  const starts: string[] = [];
  const candidate = (holder: string, name = 'test-duty'): LeasedDuty =>
    startLeasedDuty({
      db: db.db,
      name,
      holder,
      ttlMs: TTL,
      renewMs: 250,
      start: () => {
        if (active.size > 0) violations.push(`${holder} started while ${[...active].join(',')} ran`);
        active.add(holder);
        starts.push(holder);
        return { stop: async () => void active.delete(holder) };
      },
    });
  return { active, violations, starts, candidate };
}

test('one of two candidates runs the duty; a clean stop hands it over at the next attempt', async () => {
  const p = probe();
  const a = p.candidate('A');
  await until('A leads', () => a.isLeader());
  const b = p.candidate('B');
  // B keeps trying for several lease periods' worth of attempts and never gets it.
  await new Promise((r) => setTimeout(r, 1200));
  assert.equal(b.isLeader(), false);
  assert.deepEqual([...p.active], ['A']);
  assert.equal(dutyLeaders()['test-duty'], true, 'the process-wide leader state says this process leads');

  const stoppedAt = Date.now();
  await a.stop();
  await until('B leads', () => b.isLeader());
  assert.ok(Date.now() - stoppedAt < TTL, 'a released lease is taken without waiting for its expiry');
  assert.deepEqual([...p.active], ['B']);
  const rows = await listLeases(db.db);
  assert.equal(rows.find((r) => r.name === 'test-duty')?.holder, 'B');
  await b.stop();
  assert.deepEqual(p.violations, []);
  assert.deepEqual(p.starts, ['A', 'B']);
  assert.equal(dutyLeaders()['test-duty'], undefined, 'stopped candidates are no longer reported');
});

test('a holder that vanishes without releasing is replaced once its lease expired, never before', async () => {
  const p = probe();
  const a = p.candidate('A', 'test-vanish');
  await until('A leads', () => a.isLeader());
  const b = p.candidate('B', 'test-vanish');
  await new Promise((r) => setTimeout(r, 400));
  assert.equal(b.isLeader(), false);
  // As kill -9 would: A's duty and heartbeat end, its row stays.
  const vanishedAt = Date.now();
  await a.stop({ release: false });
  assert.equal((await listLeases(db.db)).find((r) => r.name === 'test-vanish')?.holder, 'A');
  await until('B leads', () => b.isLeader());
  const took = Date.now() - vanishedAt;
  // A renewed at most 250 ms before it vanished, so its lease ran at least TTL - 250 ms more.
  assert.ok(took >= TTL - 300, `taken over after ${took} ms, before the lease expired`);
  assert.ok(took <= TTL + 1500, `taken over after ${took} ms`);
  await b.stop();
  assert.deepEqual(p.violations, []);
});

test('a holder that finds its lease taken stops its duty at once', async () => {
  const p = probe();
  // The lease row is taken from under A (as if A's renewals had stopped reaching the database
  // and the lease expired): A must notice and stop, and only then may B run.
  const a = p.candidate('A', 'test-lost');
  await until('A leads', () => a.isLeader());
  await db.db.execute(sql`UPDATE leases SET holder = 'B', expires_at = now() + interval '10 seconds' WHERE name = 'test-lost'`);
  await until('A stops', () => !a.isLeader() && p.active.size === 0, 3000);
  await a.stop();
  assert.deepEqual(p.violations, []);
});

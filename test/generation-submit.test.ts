/**
 * The one-statement submit (docs/jobs.md "Throughput") on the database: a charged
 * user's debit happens with the rows or not at all; a stale copy of the collection or workflow
 * writes nothing; and the per-process caches of several processes (replicas) never build a job
 * from a version another process has replaced.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { openDatabase, type Database, type Db } from '../src/db/client.ts';
import { collectionForGeneration, createCollection } from '../src/db/collections.ts';
import { insertGenerationRows, type GenerationRows } from '../src/db/generation-rows.ts';
import { collections, creditBalances, decks, jobs, workflows } from '../src/db/schema/index.ts';
import { seedBuiltinWorkflows, workflowForJob } from '../src/db/workflows.ts';
import { normalizeGenerationData } from '../src/domain/generation-data.ts';
import type { JobData, StepPayload } from '../src/generation/pipeline.ts';
import { InProcessQueue } from '../src/queue/index.ts';
import { startGeneration } from '../src/services/wire-generation.ts';
import { testConfig } from '../src/config.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { sampleData } from './helpers/platform.ts';

let database: TestDatabase;
let db: Db;
let collectionId: string;

before(async () => {
  database = await createTestDatabase();
  db = database.db;
  await seedBuiltinWorkflows(db);
  collectionId = (
    await createCollection(db, {
      title: 'Submit',
      description: '',
      editions: 10,
      price: 0,
      blockchain: 'ARBITRUM',
      data: normalizeGenerationData(sampleData()),
      userId: 'creator',
    })
  ).id;
});
after(() => database.close());

const balanceOf = async (userId: string) =>
  (await db.select({ b: creditBalances.balance }).from(creditBalances).where(eq(creditBalances.user_id, userId)))[0]?.b;
const jobExists = async (id: string) => (await db.select({ id: jobs.id }).from(jobs).where(eq(jobs.id, id))).length === 1;

/** The rows of one generation, built from the versions read now (or `built`). */
async function rowsFor(over: Partial<GenerationRows> = {}): Promise<GenerationRows> {
  const c = await collectionForGeneration(db, collectionId);
  const w = (await workflowForJob(db, 'procedural'))!;
  const jobId = randomUUID();
  return {
    jobId,
    outputId: randomUUID(),
    deckId: null,
    newDeck: { id: randomUUID(), name: 'Submit', userId: 'u', custodiedFor: null },
    outputCollectionId: collectionId,
    built: { collection: { id: c.id, version: c.version }, workflow: { id: w.id, version: w.version } },
    output: { userId: 'u', source: 'direct_api', inputMetadata: {}, custodiedFor: null, parentOutputId: null },
    job: { name: 'Submit', description: '', jobType: 'test', priority: 50, workflowId: w.id, data: {}, userId: 'u', collectionId },
    step0: { stepName: 'image', stepType: 'basic', queueJobId: `${jobId}-s0-r0`, input: {} },
    ...over,
  };
}

describe('the submit statement', () => {
  test("a new user's balance starts at the grant and is debited with the rows, in the same statement", async () => {
    const r = await rowsFor({ charge: { userId: 'new-user', amount: 2, initialGrant: 5 } });
    assert.deepEqual(await insertGenerationRows(db, r), { deckId: r.newDeck.id });
    assert.equal(await balanceOf('new-user'), 3);
    assert.ok(await jobExists(r.jobId));
    const again = await rowsFor({ charge: { userId: 'new-user', amount: 2, initialGrant: 5 } });
    assert.ok('deckId' in (await insertGenerationRows(db, again)));
    assert.equal(await balanceOf('new-user'), 1, 'an existing balance is debited, not granted again');
  });

  test('a short balance writes nothing and debits nothing; the answer carries the balance', async () => {
    const r = await rowsFor({ charge: { userId: 'new-user', amount: 2, initialGrant: 5 } });
    assert.deepEqual(await insertGenerationRows(db, r), { insufficient: { balance: 1 } });
    assert.equal(await balanceOf('new-user'), 1);
    assert.equal(await jobExists(r.jobId), false);
    const poor = await rowsFor({ charge: { userId: 'poor-user', amount: 2, initialGrant: 1 } });
    assert.deepEqual(await insertGenerationRows(db, poor), { insufficient: { balance: 1 } });
    assert.equal(await jobExists(poor.jobId), false);
  });

  test('a collection or workflow changed since it was read: nothing written, nothing debited', async () => {
    await db.insert(creditBalances).values({ user_id: 'stale-user', balance: 5 });
    const r = await rowsFor({ charge: { userId: 'stale-user', amount: 1, initialGrant: 5 } });
    await db.update(collections).set({ description: 'edited' }).where(eq(collections.id, collectionId));
    assert.deepEqual(await insertGenerationRows(db, r), { stale: true });
    const w = await rowsFor({ charge: { userId: 'stale-user', amount: 1, initialGrant: 5 } });
    await db
      .update(workflows)
      .set({ custom_nodes: ['edited'] })
      .where(eq(workflows.name, 'procedural'));
    assert.deepEqual(await insertGenerationRows(db, w), { stale: true });
    assert.equal(await balanceOf('stale-user'), 5);
    assert.equal(await jobExists(r.jobId), false);
    assert.equal(await jobExists(w.jobId), false);
  });

  test('updates of fields a job is not built from (mint counters, workflow labels) leave a copy current', async () => {
    const r = await rowsFor();
    await db.update(collections).set({ price: 7, editions: 99 }).where(eq(collections.id, collectionId));
    await db.update(workflows).set({ label: 'Renamed', description: 'edited' }).where(eq(workflows.name, 'procedural'));
    assert.deepEqual(await insertGenerationRows(db, r), { deckId: r.newDeck.id });
  });

  test('a locked deck refuses before the debit; a taken token id fails the whole statement, debit included', async () => {
    await db.insert(creditBalances).values({ user_id: 'deck-user', balance: 5 });
    const deckId = randomUUID();
    await db.insert(decks).values({ id: deckId, collection_id: collectionId, user_id: 'deck-user', status: 'locked', token_id: 77 });
    const charge = { userId: 'deck-user', amount: 1, initialGrant: 5 };
    assert.deepEqual(await insertGenerationRows(db, await rowsFor({ deckId, charge })), { refused: 'deck_unavailable' });
    const taken = await rowsFor({ charge, mintState: { token_id: 77 } });
    assert.deepEqual(await insertGenerationRows(db, taken), { refused: 'token_taken' });
    assert.equal(await balanceOf('deck-user'), 5);
    assert.equal(await jobExists(taken.jobId), false);
  });

  test('concurrent debits never take the balance below zero', async () => {
    await db.insert(creditBalances).values({ user_id: 'busy-user', balance: 3 });
    const results = await Promise.all(
      Array.from({ length: 8 }, async () =>
        insertGenerationRows(db, await rowsFor({ charge: { userId: 'busy-user', amount: 1, initialGrant: 5 } })),
      ),
    );
    assert.equal(results.filter((r) => 'deckId' in r).length, 3);
    assert.equal(results.filter((r) => 'insufficient' in r).length, 5);
    assert.equal(await balanceOf('busy-user'), 0);
  });
});

describe('cached collections and workflows across processes', () => {
  let second: Database | undefined;
  let other: Db;
  const queue = new InProcessQueue<StepPayload>('generation');
  const config = testConfig({ CREDITS_PER_GENERATION: '1', CREDITS_INITIAL_GRANT: '100' });

  before(async () => {
    // Another process: its own pool (PostgreSQL), or on PGlite (one process) another handle,
    // which gets its own cache all the same.
    second = database.url ? await openDatabase({ url: database.url }) : undefined;
    other = second?.db ?? (new Proxy(db, {}) as Db);
  });
  after(async () => {
    await second?.close();
    await queue.close();
  });

  const submit = async (on: Db, userId = 'replica-user') => {
    const { jobId } = await startGeneration(
      { db: on, config, queue },
      { collectionId, variables: {}, userId, source: 'direct_api', jobType: 'test' },
    );
    return (await db.select({ data: jobs.data }).from(jobs).where(eq(jobs.id, jobId)))[0]!.data as JobData;
  };

  test('an update by any process reaches the next submit of every process; each submit is charged once', async () => {
    await submit(db);
    await submit(other); // both processes now hold the collection and the workflow
    const data = normalizeGenerationData(sampleData());
    data.variables[0]!.value = [{ value: 'green', display_name: 'Green', weight: 1 }];
    await db.execute(sql`update collections set data = ${JSON.stringify(data)}::jsonb where id = ${collectionId}`);
    await db.execute(sql`update workflows set models = '["m.safetensors"]'::jsonb where name = 'procedural'`);
    const before = await balanceOf('replica-user');
    for (const on of [db, other]) {
      const d = await submit(on);
      assert.equal(d.variables.color, 'green', 'built from the new collection data');
      assert.deepEqual(d.workflow.models, ['m.safetensors'], 'built from the new workflow');
    }
    assert.equal(await balanceOf('replica-user'), before! - 2);
  });

  test('a collection deleted by another process is a 404 in a process that had it cached', async () => {
    const c = await createCollection(db, {
      title: 'Doomed',
      description: '',
      editions: 1,
      price: 0,
      blockchain: 'ARBITRUM',
      data: normalizeGenerationData(sampleData()),
      userId: 'creator',
    });
    await startGeneration(
      { db: other, config, queue },
      { collectionId: c.id, variables: {}, userId: null, isService: true, source: 'direct_api', jobType: 'test' },
    );
    await db.execute(sql`delete from jobs where collection_id = ${c.id}`);
    await db.delete(collections).where(eq(collections.id, c.id));
    await assert.rejects(
      startGeneration(
        { db: other, config, queue },
        { collectionId: c.id, variables: {}, userId: null, isService: true, source: 'direct_api', jobType: 'test' },
      ),
      (e: Error & { kind?: string }) => e.kind === 'not_found',
    );
  });
});

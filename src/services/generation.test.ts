import { oneStepRow } from '../generation/one-step.ts';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { GenerationRows, GenerationRowsResult } from '../db/generation-rows.ts';
import type { JobRow } from '../db/jobs.ts';
import { AppError } from '../domain/errors.ts';
import type { Caller } from '../domain/policy.ts';
import type { StepPayload } from '../generation/pipeline.ts';
import { createGenerationService, type GenerationPorts } from './generation.ts';

const COLLECTION = '00000000-0000-4000-8000-0000000000c1';
const operator: Caller = { kind: 'service', userId: null };
const alice: Caller = { kind: 'user', userId: 'alice' };
const bob: Caller = { kind: 'user', userId: 'bob' };

interface Deck {
  id: string;
  collection_id: string;
  user_id: string | null;
  status: string;
  collection_owner_id: string | null;
}

/**
 * In-memory ports: what the service wrote, charged and queued is recorded for the assertions.
 * `inserts`: what the successive row inserts answer (then success); a charged success is a debit.
 */
function fakes(opts: { decks?: Deck[]; cost?: number; queueFails?: boolean; inserts?: GenerationRowsResult[]; jobs?: JobRow[] } = {}) {
  const answers = [...(opts.inserts ?? [])];
  const log = {
    reads: [] as Array<[string, boolean]>,
    debits: [] as Array<[string, number]>,
    refunds: [] as Array<[string, number]>,
    rows: [] as GenerationRows[],
    queued: [] as Array<{ id: string; payload: StepPayload; opts: unknown }>,
    failed: [] as Array<[string, string, string]>,
    resets: 0,
    submitted: [] as Array<[string, number, number]>,
  };
  const jobs = new Map((opts.jobs ?? []).map((j) => [j.id, j]));
  let n = 0;
  const ports: GenerationPorts = {
    collections: {
      get: async (id, fresh = false) => {
        log.reads.push([`collection ${id}`, fresh]);
        if (id !== COLLECTION) throw new AppError('not_found', `collection ${id} not found`);
        return { id, title: 'Neon', data: { version: 'v2', variables: [{ name: 'color', value: [{ value: 'red' }] }] }, version: '7' };
      },
    },
    workflows: {
      find: async (name, fresh = false) => {
        log.reads.push([`workflow ${name}`, fresh]);
        return name === 'procedural' ? { id: 'wf', name: 'procedural', type: 'basic', models: [], custom_nodes: [], version: '3' } : null;
      },
    },
    decks: {
      get: async (id) => {
        const d = opts.decks?.find((x) => x.id === id);
        if (!d) throw new AppError('not_found', `deck ${id} not found`);
        return d;
      },
    },
    credits: { refund: async (userId, amount) => void log.refunds.push([userId, amount]) },
    socialLinks: { upsert: async () => ({ id: 'link-1' }) },
    rows: {
      insert: async (rows) => {
        log.rows.push(rows);
        const answer = answers.shift() ?? { deckId: rows.deckId ?? rows.newDeck.id };
        if (rows.charge && ('deckId' in answer || ('refused' in answer && answer.debited)))
          log.debits.push([rows.charge.userId, rows.charge.amount]);
        return answer;
      },
    },
    queue: {
      add: async (id, payload, o) => {
        if (opts.queueFails) throw new Error('redis down');
        log.queued.push({ id, payload, opts: o });
      },
    },
    jobs: {
      find: async (id) => jobs.get(id) ?? null,
      failSubmission: async (jobId, outputId, message) => void log.failed.push([jobId, outputId, message]),
      history: async () => [],
      resetForRetry: async (s) => {
        log.resets++;
        const j = jobs.get(s.jobId)!;
        if (j.retry_count !== s.current.retry_count || j.retry_count >= s.maxRetries) return null;
        const next = { ...j, status: s.to, retry_count: j.retry_count + 1 };
        jobs.set(j.id, next);
        return next;
      },
      submitStep: async (job, order, attempt) => void log.submitted.push([job.id, order, attempt]),
    },
    settings: { creditsPerGeneration: opts.cost ?? 2, creditsInitialGrant: 100, stuckAfterMs: 600_000 },
    uuid: () => `id-${++n}`,
    seed: () => 99,
    now: () => new Date('2030-01-01T00:00:00Z'),
  };
  return { service: createGenerationService(ports), log };
}

const request = (over: Record<string, unknown> = {}) => ({
  collectionId: COLLECTION,
  variables: {},
  source: 'direct_api',
  jobType: 'collection_generation',
  ...over,
});

async function rejectsWith(p: Promise<unknown>, kind: string, message?: RegExp) {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof AppError, String(e));
    assert.equal(e.kind, kind, e.message);
    if (message) assert.match(e.message, message);
    return true;
  });
}

describe('start', () => {
  test("a user's generation is theirs and charged; step 0 is written with the rows and queued under its id", async () => {
    const { service, log } = fakes();
    const r = await service.start(alice, request({ workflowId: 'procedural', priority: 80 }));
    assert.deepEqual(log.debits, [['alice', 2]]);
    assert.deepEqual(log.refunds, []);
    const rows = log.rows[0]!;
    assert.deepEqual(rows.charge, { userId: 'alice', amount: 2, initialGrant: 100 }, 'the debit is part of the insert');
    assert.deepEqual(rows.built, { collection: { id: COLLECTION, version: '7' }, workflow: { id: 'wf', version: '3' } });
    assert.deepEqual(
      (rows.job.data as { workflow: unknown }).workflow,
      { id: 'wf', name: 'procedural', type: 'basic', models: [], custom_nodes: [] },
      'the job records the workflow fields it runs with (not the row version)',
    );
    assert.equal(rows.output.userId, 'alice');
    assert.equal(rows.job.userId, 'alice');
    assert.equal(rows.newDeck.userId, 'alice');
    assert.equal(rows.newDeck.name, 'Neon');
    assert.equal(rows.job.priority, 80);
    assert.equal(log.queued.length, 1);
    assert.equal(log.queued[0]!.id, `${r.jobId}-s0-r0`);
    // A one-step job writes no step row (the job is its step): the steps read rebuilds the payload.
    assert.equal(rows.step0, undefined, 'no step row for a one-step job');
    const shown = oneStepRow({
      id: rows.jobId,
      status: 'pending',
      retry_count: 0,
      data: rows.job.data,
      error_message: null,
      output_id: rows.outputId,
      priority: rows.job.priority,
    });
    assert.deepEqual(log.queued[0]!.payload, shown?.input_data, 'the queued payload is the one the steps read shows');
    assert.deepEqual(log.queued[0]!.opts, { priority: 80, attempts: 3, backoffMs: 1000 });
    assert.deepEqual(r, { jobId: rows.jobId, outputId: rows.outputId, deckId: rows.newDeck.id });
  });

  test('the operator is not charged; without a named user the records are the platform’s', async () => {
    const { service, log } = fakes();
    await service.start(operator, request());
    assert.deepEqual(log.debits, []);
    assert.equal(log.rows[0]!.charge, undefined);
    assert.equal(log.rows[0]!.output.userId, null);
  });

  test('mint_state is the operator’s: a user gets 403 before anything is written or charged', async () => {
    const { service, log } = fakes();
    await rejectsWith(service.start(alice, request({ mintState: { token_id: 7 } })), 'forbidden', /token\.set_mint_state/);
    assert.deepEqual(log.debits, []);
    assert.equal(log.rows.length, 0);
    const ok = fakes();
    await ok.service.start(operator, request({ mintState: { token_id: 7 } }));
    assert.equal(ok.log.rows[0]!.newDeck.name, 'Neon #7');
    assert.deepEqual(ok.log.rows[0]!.mintState, { token_id: 7 });
  });

  test('an anonymous caller may not generate', async () => {
    const { service } = fakes();
    await rejectsWith(service.start({ kind: 'anonymous' }, request()), 'unauthorized');
  });

  test("a given deck: its owner or the collection's owner adds to it; a platform deck only the operator; a locked one nobody", async () => {
    const decks: Deck[] = [
      { id: 'd-alice', collection_id: COLLECTION, user_id: 'alice', status: 'active', collection_owner_id: 'carol' },
      { id: 'd-platform', collection_id: COLLECTION, user_id: null, status: 'active', collection_owner_id: null },
      { id: 'd-locked', collection_id: COLLECTION, user_id: 'alice', status: 'locked', collection_owner_id: null },
      { id: 'd-other', collection_id: 'elsewhere', user_id: 'alice', status: 'active', collection_owner_id: null },
    ];
    const { service, log } = fakes({ decks });
    await service.start(alice, request({ deckId: 'd-alice' }));
    await service.start({ kind: 'user', userId: 'carol' }, request({ deckId: 'd-alice' }));
    await rejectsWith(service.start(bob, request({ deckId: 'd-alice' })), 'forbidden');
    await rejectsWith(service.start(alice, request({ deckId: 'd-platform' })), 'forbidden', /belongs to the platform/);
    await service.start(operator, request({ deckId: 'd-platform' }));
    await rejectsWith(service.start(alice, request({ deckId: 'd-locked' })), 'conflict', /locked/);
    await rejectsWith(service.start(alice, request({ deckId: 'd-other' })), 'invalid', /^body\.deck_id: /);
    assert.equal(log.rows.length, 3);
    assert.equal(log.debits.length, 2, 'refused requests are not charged');
  });

  test('a deck locked between the check and the debit: the debit is refunded; a refusal without a debit is not', async () => {
    const locked = fakes({ inserts: [{ refused: 'deck_unavailable', debited: true }] });
    await rejectsWith(locked.service.start(alice, request()), 'conflict', /locked/);
    assert.deepEqual(locked.log.refunds, [['alice', 2]]);
    const refused = fakes({ inserts: [{ refused: 'deck_unavailable' }] });
    await rejectsWith(refused.service.start(alice, request()), 'conflict', /locked/);
    assert.deepEqual(refused.log.refunds, []);
    const taken = fakes({ inserts: [{ refused: 'token_taken' }] });
    await rejectsWith(
      taken.service.start(operator, request({ mintState: { token_id: 3 } })),
      'conflict',
      /^body\.mint_state\.token_id: token 3/,
    );
    assert.equal(taken.log.queued.length, 0);
    assert.deepEqual(taken.log.refunds, []);
  });

  test('a short balance is a 402 with the balance; nothing is queued or refunded', async () => {
    const { service, log } = fakes({ inserts: [{ insufficient: { balance: 1 } }] });
    await assert.rejects(service.start(alice, request()), (e: unknown) => {
      assert.ok(e instanceof AppError);
      assert.equal(e.kind, 'payment_required');
      assert.match(e.message, /needs 2 credits, the balance is 1/);
      return true;
    });
    assert.equal(log.queued.length, 0);
    assert.deepEqual(log.refunds, []);
  });

  test('a stale cached collection or workflow: both read again and the insert repeated; after 3 stale copies a 409', async () => {
    const once = fakes({ inserts: [{ stale: true }] });
    await once.service.start(alice, request());
    assert.deepEqual(once.log.reads, [
      [`collection ${COLLECTION}`, false],
      ['workflow procedural', false],
      [`collection ${COLLECTION}`, true],
      ['workflow procedural', true],
    ]);
    assert.equal(once.log.rows.length, 2);
    assert.equal(once.log.rows[0]!.jobId, once.log.rows[1]!.jobId, 'the same job, submitted again');
    assert.equal(once.log.queued.length, 1);
    assert.deepEqual(once.log.debits, [['alice', 2]], 'charged once');

    const always = fakes({ inserts: [{ stale: true }, { stale: true }, { stale: true }] });
    await rejectsWith(always.service.start(alice, request()), 'conflict', /kept changing/);
    assert.equal(always.log.rows.length, 3);
    assert.equal(always.log.queued.length, 0);
    assert.deepEqual(always.log.debits, []);
  });

  test('a queue that refuses the step fails the job and its output (503) and refunds', async () => {
    const { service, log } = fakes({ queueFails: true });
    await rejectsWith(service.start(alice, request()), 'unavailable', /could not submit the job to the queue: redis down/);
    const rows = log.rows[0]!;
    assert.deepEqual(log.failed, [[rows.jobId, rows.outputId, 'could not submit the job to the queue: redis down']]);
    assert.deepEqual(log.refunds, [['alice', 2]]);
  });

  test('an unknown workflow is a 400 naming body.workflow_id; nothing is charged', async () => {
    const { service, log } = fakes();
    await rejectsWith(service.start(alice, request({ workflowId: 'nope' })), 'invalid', /^body\.workflow_id: /);
    assert.deepEqual(log.debits, []);
  });

  test('custodial generations record the social link on the deck and the output', async () => {
    const { service, log } = fakes();
    await service.start(operator, request({ socialOrg: 'social_a', socialIdentifier: '42' }));
    assert.equal(log.rows[0]!.newDeck.custodiedFor, 'link-1');
    assert.equal(log.rows[0]!.output.custodiedFor, 'link-1');
  });
});

describe('retry', () => {
  const job = (over: Partial<JobRow>): JobRow =>
    ({
      id: 'job-1',
      status: 'failed',
      retry_count: 0,
      user_id: 'alice',
      updated_at: new Date('2029-12-31T00:00:00Z'),
      data: {},
      error_message: 'boom',
      workflow_output: null,
      output_id: 'out-1',
      ...over,
    }) as JobRow;

  test('the owner retries a failed job: the next attempt is queued from step 0', async () => {
    const { service, log } = fakes({ jobs: [job({})] });
    const r = await service.retry(alice, 'job-1');
    assert.deepEqual(r, { jobId: 'job-1', retryAttempt: 1, message: 'Job queued for retry 1 of 3' });
    assert.deepEqual(log.submitted, [['job-1', 0, 1]]);
  });

  test("someone else's job is 404 (no leak); a platform job is the operator's", async () => {
    const { service } = fakes({ jobs: [job({}), job({ id: 'job-p', user_id: null })] });
    await rejectsWith(service.retry(bob, 'job-1'), 'not_found');
    await rejectsWith(service.retry(alice, 'job-p'), 'not_found');
    await rejectsWith(service.retry(alice, 'missing'), 'not_found');
    assert.equal((await service.retry(operator, 'job-p')).retryAttempt, 1);
  });

  test('refusals are 409: the retry limit, a job still moving', async () => {
    const { service, log } = fakes({
      jobs: [job({ retry_count: 3 }), job({ id: 'job-2', status: 'processing', updated_at: new Date('2030-01-01T00:00:00Z') })],
    });
    await rejectsWith(service.retry(alice, 'job-1'), 'conflict', /maximum retry limit of 3/);
    await rejectsWith(service.retry(alice, 'job-2'), 'conflict', /still moving/);
    assert.equal(log.resets, 0);
  });

  test('a concurrent retry that won the reset makes this one a 409, and nothing is queued twice', async () => {
    const { service, log } = fakes({ jobs: [job({ retry_count: 2 })] });
    const results = await Promise.allSettled([service.retry(alice, 'job-1'), service.retry(alice, 'job-1')]);
    assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
    const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    assert.match((lost.reason as Error).message, /maximum retry limit of 3/);
    assert.equal(log.submitted.length, 1);
  });
});

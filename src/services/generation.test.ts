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

/** In-memory ports: what the service wrote, charged and queued is recorded for the assertions. */
function fakes(opts: { decks?: Deck[]; cost?: number; queueFails?: boolean; insert?: GenerationRowsResult; jobs?: JobRow[] } = {}) {
  const log = {
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
      get: async (id) => {
        if (id !== COLLECTION) throw new AppError('not_found', `collection ${id} not found`);
        return { id, title: 'Neon', data: { version: 'v2', variables: [{ name: 'color', value: [{ value: 'red' }] }] } };
      },
    },
    workflows: {
      find: async (name) => (name === 'procedural' ? { id: 'wf', name: 'procedural', type: 'basic', models: [], custom_nodes: [] } : null),
    },
    decks: {
      get: async (id) => {
        const d = opts.decks?.find((x) => x.id === id);
        if (!d) throw new AppError('not_found', `deck ${id} not found`);
        return d;
      },
    },
    credits: {
      debit: async (userId, amount) => void log.debits.push([userId, amount]),
      refund: async (userId, amount) => void log.refunds.push([userId, amount]),
    },
    socialLinks: { upsert: async () => ({ id: 'link-1' }) },
    rows: {
      insert: async (rows) => {
        log.rows.push(rows);
        return opts.insert ?? { deckId: rows.deckId ?? rows.newDeck.id };
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
    settings: { creditsPerGeneration: opts.cost ?? 2, stuckAfterMs: 600_000 },
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
    assert.equal(rows.output.userId, 'alice');
    assert.equal(rows.job.userId, 'alice');
    assert.equal(rows.newDeck.userId, 'alice');
    assert.equal(rows.newDeck.name, 'Neon');
    assert.equal(rows.job.priority, 80);
    assert.equal(log.queued.length, 1);
    assert.equal(log.queued[0]!.id, `${r.jobId}-s0-r0`);
    assert.deepEqual(log.queued[0]!.payload, rows.step0.input, 'the queued payload is the one recorded on the step row');
    assert.deepEqual(log.queued[0]!.opts, { priority: 80, attempts: 3, backoffMs: 1000 });
    assert.deepEqual(r, { jobId: rows.jobId, outputId: rows.outputId, deckId: rows.newDeck.id });
  });

  test('the operator is not charged; without a named user the records are the platform’s', async () => {
    const { service, log } = fakes();
    await service.start(operator, request());
    assert.deepEqual(log.debits, []);
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

  test('a failure after the debit refunds it: the deck locked meanwhile, or a token that already has a deck', async () => {
    const locked = fakes({ insert: { refused: 'deck_unavailable' } });
    await rejectsWith(locked.service.start(alice, request()), 'conflict', /locked/);
    assert.deepEqual(locked.log.refunds, [['alice', 2]]);
    const taken = fakes({ insert: { refused: 'token_taken' } });
    await rejectsWith(
      taken.service.start(operator, request({ mintState: { token_id: 3 } })),
      'conflict',
      /^body\.mint_state\.token_id: token 3/,
    );
    assert.equal(taken.log.queued.length, 0);
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

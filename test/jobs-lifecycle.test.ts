/**
 * Generation jobs, continued (docs/api/content.md §3 Job, §4.3), on both queue implementations:
 * validation, credits, failure and retry, the failsafes, POST /collections/:id/generations, and
 * a two-step collection. The end-to-end run and the SSE stream are in jobs.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { collections, decks, jobHistory, jobRetryBackups, jobs } from '../src/db/schema/index.ts';
import { bearer, client, svc, userToken } from './helpers/content.ts';
import { readSteps, flakyConnector, startJobsPlatform, waitFor, type JobsPlatform, type QueueKind } from './helpers/jobs.ts';
import { sampleData } from './helpers/platform.ts';

for (const kind of ['in-process', 'bullmq'] as QueueKind[]) {
  describe(`generation jobs (${kind} queue)`, () => {
    let p: JobsPlatform;
    let api: ReturnType<typeof client>;
    let collectionId: string;
    const failures = { left: 0 };

    before(async () => {
      p = await startJobsPlatform(kind, { env: { CREDITS_INITIAL_GRANT: '3' }, connectorFor: flakyConnector(failures) });
      api = client(p);
      const res = await api('/nft/collections', svc('creator'), { body: { title: 'Jobs', data: sampleData() } });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      collectionId = res.body.data.collection.id;
    });
    after(() => p.close());

    const generate = (body: Record<string, unknown>, headers: Record<string, string> = svc('creator'), id = collectionId) =>
      api(`/api/collections/${id}/generate`, headers, { body });
    const job = async (id: string) => (await api(`/api/jobs/${id}`, svc())).body.data;
    const waitJob = (id: string, status: string) =>
      waitFor(`job ${id} ${status}`, async () => {
        const j = await job(id);
        return j.status === status ? j : undefined;
      });

    test('legacy alias, validation, COLLECTION_CORRUPTED, unknown workflow and collection', async () => {
      const alias = await api(`/generator/v2/${collectionId}`, svc('creator'), { body: { variables: {} } });
      assert.equal(alias.status, 202, JSON.stringify(alias.body));
      assert.ok(alias.body.data.jobId);

      const noVars = await generate({});
      assert.equal(noVars.status, 400);
      assert.match(noVars.body.error, /^body\.variables/);
      for (const bad of [0, 101, 2.5, '50']) {
        const r = await generate({ variables: {}, workflow_priority: bad });
        assert.equal(r.status, 400, String(bad));
        assert.match(r.body.error, /^body\.workflow_priority/);
      }
      const preset = await generate({ variables: { color: 'green' } });
      assert.equal(preset.status, 400);
      assert.match(preset.body.error, /^body\.variables\.color: .*preset/);
      const wf = await generate({ variables: {}, workflow_id: 'nope' });
      assert.equal(wf.status, 400);
      assert.match(wf.body.error, /body\.workflow_id: workflow nope does not exist/);
      const missing = await generate({ variables: {} }, svc('creator'), '00000000-0000-4000-8000-000000000000');
      assert.equal(missing.status, 404);
      const badId = await generate({ variables: {} }, svc('creator'), 'not-a-uuid');
      assert.equal(badId.status, 400);
      assert.match(badId.body.error, /^path\.id/);
      const anon = await api(`/api/collections/${collectionId}/generate`, {}, { body: { variables: {} } });
      assert.equal(anon.status, 401);

      const [broken] = await p.database.db
        .insert(collections)
        .values({ title: 'Broken', data: { version: 'v1', steps: 'nope' } })
        .returning({ id: collections.id });
      const c = await generate({ variables: {} }, svc('creator'), broken!.id);
      assert.equal(c.status, 400);
      assert.equal(c.body.data, null);
      assert.equal(c.body.error, 'COLLECTION_CORRUPTED');
      assert.equal(c.body.code, 'COLLECTION_CORRUPTED');
      assert.equal(typeof c.body.message, 'string');
      assert.equal(typeof c.body.userMessage, 'string');
      assert.equal(c.body.details.collectionId, broken!.id);
    });

    test('credits: a user is debited per generation and gets 402 when short; the service key is not charged', async () => {
      const token = await userToken(`credit-user-${kind}`);
      const u = bearer(token);
      const first = await api('/api/credits', u);
      assert.equal(first.body.data.balance, 3);
      for (let i = 0; i < 3; i++) {
        const r = await generate({ variables: {} }, u);
        assert.equal(r.status, 202, JSON.stringify(r.body));
      }
      const short = await generate({ variables: {} }, u);
      assert.equal(short.status, 402);
      assert.match(short.body.error, /^Insufficient credits/);
      assert.match(short.body.error, /not enough credits/); // docs/api/content.md §7.4
      assert.equal((await api('/api/credits', u)).body.data.balance, 0);
      // A rejected request costs nothing.
      const bad = await generate({ variables: { color: 'green' } }, svc('creator'));
      assert.equal(bad.status, 400);
      assert.equal((await generate({ variables: {} }, svc('creator'))).status, 202);
      // The user's own job is visible to them, not to others.
      const mine = await generate({ variables: {} }, svc('creator'));
      assert.equal((await api(`/api/jobs/${mine.body.data.jobId}`, u)).status, 404);
    });

    test('failure → failed job and output; retry keeps the id, backs up the data and completes; limit of 3', async () => {
      failures.left = 1;
      const data = sampleData();
      data.steps[0]!.nodePayload.intent = 'explode $color';
      const cres = await api('/nft/collections', svc('creator'), { body: { title: 'Fragile', data } });
      const res = await generate({ variables: {} }, svc('creator'), cres.body.data.collection.id);
      const jobId = res.body.data.jobId;
      const failed = await waitJob(jobId, 'failed');
      assert.match(failed.error_message, /the model exploded/);
      const out = (await api(`/outputs/${failed.output_id}`, svc('creator'))).body.data;
      assert.equal(out.status, 'failed');

      const retry = await api(`/api/jobs/${jobId}/retry`, svc('creator'), { method: 'POST' });
      assert.equal(retry.status, 200, JSON.stringify(retry.body));
      assert.equal(retry.body.data.jobId, jobId);
      assert.equal(retry.body.data.retryAttempt, 1);
      assert.equal(typeof retry.body.data.message, 'string');
      const done = await waitJob(jobId, 'completed');
      assert.equal(done.retry_count, 1);
      assert.equal(done.error_message, null);
      assert.equal((await api(`/outputs/${done.output_id}`, svc('creator'))).body.data.status, 'completed');
      const backups = await p.database.db.select().from(jobRetryBackups).where(eq(jobRetryBackups.job_id, jobId));
      assert.equal(backups.length, 1);
      assert.equal(backups[0]!.original_status, 'failed');
      assert.match(backups[0]!.original_error ?? '', /exploded/);
      assert.equal((backups[0]!.original_data as any).collectionId, cres.body.data.collection.id);
      // The forensics route shows each attempt's step: the failed one (recorded as a row by the
      // retry) and the completed one (a one-step job's current step is the job itself).
      const f = (await api(`/api/jobs/${jobId}/forensics`, svc())).body.data;
      assert.deepEqual(
        f.steps.map((s: any) => [s.retry_attempt, s.step_order, s.status, s.queue_job_id]),
        [
          [0, 0, 'failed', `${jobId}-s0-r0`],
          [1, 0, 'completed', `${jobId}-s0-r1`],
        ],
      );
      assert.match(f.steps[0].error_message, /exploded/);
      assert.equal(f.steps[1].output_data.url, done.workflow_output);
      assert.equal(f.steps[1].input_data.payload.prompt, f.steps[0].input_data.payload.prompt);
      assert.equal(f.history.filter((h: any) => h.status === 'completed').length, 1);

      const again = await api(`/api/jobs/${jobId}/retry`, svc('creator'), { method: 'POST' });
      assert.equal(again.status, 409);
      assert.match(again.body.error, /completed/);

      await p.database.db.update(jobs).set({ status: 'failed', retry_count: 3 }).where(eq(jobs.id, jobId));
      const limit = await api(`/api/jobs/${jobId}/retry`, svc('creator'), { method: 'POST' });
      assert.equal(limit.status, 409);
      assert.equal(limit.body.error, 'Job has reached the maximum retry limit of 3');
      assert.equal((await api('/api/jobs/nope/retry', svc(), { method: 'POST' })).status, 404);
    });

    test('failsafes: complete and failed apply to any job once', async () => {
      const res = await generate({ variables: {} });
      const jobId = res.body.data.jobId;
      await waitJob(jobId, 'completed');
      const f = await api(`/api/jobs/${jobId}/failed`, svc('creator'), {
        body: { error_message: 'delivery lost', error_details: { where: 'cdn' } },
      });
      assert.equal(f.status, 200);
      assert.equal(f.body.data.status, 'failed');
      assert.equal(f.body.data.error_message, 'delivery lost');
      const bad = await api(`/api/jobs/${jobId}/complete`, svc('creator'), { body: { outputs: [] } });
      assert.equal(bad.status, 400);
      assert.match(bad.body.error, /^body\.workflow_output/);
      // workflow_output becomes the output's URL: only http(s) URLs and storage paths.
      for (const hostile of [
        'javascript:alert(1)',
        'data:text/html,<script>1</script>',
        '//evil.example/x.png',
        '/files/../secret',
        'https://a b',
      ]) {
        const r = await api(`/api/jobs/${jobId}/complete`, svc('creator'), { body: { workflow_output: hostile } });
        assert.equal(r.status, 400, hostile);
        assert.match(r.body.error, /^body\.workflow_output: expected an http\(s\) URL or a storage path/, hostile);
      }
      const c = await api(`/api/jobs/${jobId}/complete`, svc('creator'), {
        body: { workflow_output: 'https://cdn.example/x.png', outputs: [{ a: 1 }], metadata: { m: true } },
      });
      assert.equal(c.status, 200);
      assert.equal(c.body.data.status, 'completed');
      assert.equal(c.body.data.workflow_output, 'https://cdn.example/x.png');
      assert.deepEqual(c.body.data.data.outputs, [{ a: 1 }]);
      const c2 = await api(`/api/jobs/${jobId}/complete`, svc('creator'), { body: { workflow_output: 'https://cdn.example/y.png' } });
      assert.equal(c2.body.data.workflow_output, 'https://cdn.example/x.png', 'a completed job stays as it was');
      const hist = await p.database.db.select().from(jobHistory).where(eq(jobHistory.job_id, jobId));
      assert.equal(hist.filter((h) => h.status === 'failed').length, 1);
      assert.equal(hist.filter((h) => h.status === 'completed').length, 2, 'worker completion, then the failsafe after the failure');
    });

    test("failsafes are the delivery path's (service key): the job's own user gets 403, another user 404", async () => {
      const owner = bearer(await userToken(`failsafe-owner-${kind}`));
      const mine = await generate({ variables: {} }, owner);
      assert.equal(mine.status, 202, JSON.stringify(mine.body));
      const jobId = mine.body.data.jobId;
      const byOwner = await api(`/api/jobs/${jobId}/failed`, owner, { body: { error_message: 'no' } });
      assert.equal(byOwner.status, 403);
      assert.match(byOwner.body.error, /job\.force_fail is for the platform operator/);
      const complete = await api(`/api/jobs/${jobId}/complete`, owner, { body: { workflow_output: 'https://cdn.example/z.png' } });
      assert.equal(complete.status, 403);
      const other = bearer(await userToken(`failsafe-other-${kind}`));
      assert.equal((await api(`/api/jobs/${jobId}/failed`, other, { body: {} })).status, 404);
      // The owner still sees and streams their job; nothing was applied by the refused calls.
      const done = await waitJob(jobId, 'completed');
      assert.notEqual(done.error_message, 'no');
      assert.equal((await api(`/api/jobs/${jobId}`, owner)).status, 200);
    });

    test('POST /collections/:id/generations: {jobId, outputId, deckId}; mint_state makes a minted deck; deck_id reuses a deck', async () => {
      const recipient = '0x' + 'ab'.repeat(20);
      const tx = '0x' + 'cd'.repeat(32);
      const res = await api(`/collections/${collectionId}/generations`, svc('creator'), {
        body: {
          variables: { color: 'blue' },
          job_type: 'mint',
          mint_state: { token_id: 7, tx_hash: tx, recipient, metadata_uri: 'http://meta.test/7' },
        },
      });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      assert.equal(res.body.error, null);
      assert.deepEqual(Object.keys(res.body.data).sort(), ['deckId', 'jobId', 'outputId']);
      const { jobId, outputId, deckId } = res.body.data;
      const [deck] = await p.database.db.select().from(decks).where(eq(decks.id, deckId));
      assert.equal(deck!.token_id, 7);
      assert.equal(deck!.mint_tx_hash, tx);
      assert.equal(deck!.mint_recipient, recipient);
      assert.equal(deck!.mint_status, 'minted');
      assert.ok(deck!.minted_at);
      assert.equal(deck!.metadata_uri, 'http://meta.test/7');
      const j = await waitJob(jobId, 'completed');
      assert.equal(j.job_type, 'mint');
      assert.equal(j.output_id, outputId);

      const dup = await api(`/collections/${collectionId}/generations`, svc('creator'), { body: { mint_state: { token_id: 7 } } });
      assert.equal(dup.status, 409);
      const reuse = await api(`/collections/${collectionId}/generations`, svc('creator'), { body: { deck_id: deckId } });
      assert.equal(reuse.status, 202);
      assert.equal(reuse.body.data.deckId, deckId);
      const badRecipient = await api(`/collections/${collectionId}/generations`, svc('creator'), {
        body: { mint_state: { token_id: 8, recipient: 'x' } },
      });
      assert.equal(badRecipient.status, 400);
      assert.match(badRecipient.body.error, /^body\.mint_state\.recipient/);

      // Mint state comes only from the mint path: a user sending it gets 403 and is not charged.
      const user = bearer(await userToken(`mint-state-user-${kind}`));
      const before = (await api('/api/credits', user)).body.data.balance;
      const byUser = await api(`/collections/${collectionId}/generations`, user, { body: { mint_state: { token_id: 9 } } });
      assert.equal(byUser.status, 403);
      assert.match(byUser.body.error, /token\.set_mint_state/);
      assert.equal((await api('/api/credits', user)).body.data.balance, before);
      // A deck the platform made (no user) takes outputs from the service key only.
      const platform = await api(`/collections/${collectionId}/generations`, svc(), { body: {} });
      assert.equal(platform.status, 202);
      // Every field is optional (docs/api/nft.md §4.2.1): a POST without a body generates too.
      const bare = await api(`/collections/${collectionId}/generations`, svc('creator'), { method: 'POST' });
      assert.equal(bare.status, 202, JSON.stringify(bare.body));
      assert.deepEqual(Object.keys(bare.body.data).sort(), ['deckId', 'jobId', 'outputId']);
      const intoPlatformDeck = await api(`/collections/${collectionId}/generations`, user, {
        body: { deck_id: platform.body.data.deckId },
      });
      assert.equal(intoPlatformDeck.status, 403);
      assert.match(intoPlatformDeck.body.error, /belongs to the platform/);
    });

    test('a collection with two steps runs them in order; the second gets the first image', async () => {
      const data = sampleData();
      data.steps.push({
        id: 2,
        nodeName: 'refine',
        nodePayload: { intent: 'refined $animal', user_image: null, optional_ref_image: null, seed: null },
      });
      const cres = await api('/nft/collections', svc('creator'), { body: { title: 'Two steps', data } });
      const res = await generate({ variables: { animal: 'lynx' } }, svc('creator'), cres.body.data.collection.id);
      const j = await waitJob(res.body.data.jobId, 'completed');
      const steps = await readSteps(p.database.db, j.id);
      assert.deepEqual(steps.map((s) => [s.step_order, s.status, s.step_name]).sort(), [
        [0, 'completed', 'image'],
        [1, 'completed', 'refine'],
      ]);
      const second = steps.find((s) => s.step_order === 1)!.output_data as { reference_images?: Array<{ name: string; drawn: boolean }> };
      assert.ok(
        second.reference_images?.some((r) => r.name === 'previous_step' && r.drawn),
        `the second step drew the first image: ${JSON.stringify(second.reference_images)}`,
      );
      // The output is the second step's image (each run writes its own key, `<job>-s<step>-r<attempt>-<run>`).
      assert.match(j.workflow_output, new RegExp(`/generations/${j.id.slice(0, 2)}/${j.id}-s1-r0\\.png$`));
    });
  });
}

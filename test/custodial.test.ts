/** Custodial template collections (docs/api/content.md §4.5), then a generation from the template. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { outputs, workflows } from '../src/db/schema/index.ts';
import { readSteps, startJobsPlatform, waitForJobEnd, type JobsPlatform } from './helpers/jobs.ts';
import { asService, call } from './helpers/platform.ts';

let p: JobsPlatform;
before(async () => {
  p = await startJobsPlatform('in-process');
});
after(() => p.close());

const body = (over: Record<string, unknown> = {}) => ({
  collection_details: {
    title: 'Frens',
    description: 'for a fren',
    social_org: 'social_a',
    social_identifier: '4242',
    price: '0.5',
    editions: '10',
  },
  variables: [
    { name: 'hat', template_mapping: 'hat_style', options: ['beanie', 'crown'], is_selectable: true, is_customizable: false },
    { name: 'mood', options: ['happy'], is_selectable: false, is_customizable: true },
  ],
  job_type: 'miniapp_pfp',
  template_json: { prompt: 'a portrait wearing a {{hat_style}}, feeling {{mood}}', size: '1024x1024' },
  ...over,
});

test('creates a custodial collection with its social link, variables and dynamic_json component', async () => {
  const res = await call(`${p.backendUrl}/api/workflows/create-simple-collection`, { headers: asService(), body: body() });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const d = res.body.data;
  assert.equal(d.blockchain, 'tezos');
  assert.equal(d.price, 0.5);
  assert.equal(d.editions, 10);
  assert.equal(d.is_custodial, true);
  assert.equal(d.custodied_for, d.social_link.id);
  assert.deepEqual({ org: d.social_link.social_org, id: d.social_link.social_identifier }, { org: 'social_a', id: '4242' });
  assert.deepEqual(d.component, {
    type: 'dynamic_json',
    job_type: 'miniapp_pfp',
    template: { prompt: 'a portrait wearing a {{hat_style}}, feeling {{mood}}', size: '1024x1024' },
  });
  assert.deepEqual(
    d.variables.map((v: any) => [v.name, v.is_selectable, v.is_user_customizable]),
    [
      ['hat', true, false],
      ['mood', false, true],
    ],
  );
  // Same identity again: the social link is reused.
  const again = await call(`${p.backendUrl}/api/workflows/create-simple-collection`, { headers: asService(), body: body() });
  assert.equal(again.body.data.social_link.id, d.social_link.id);

  // The template's placeholders became $variables, filled at generation time.
  const gen = await call(`${p.backendUrl}/api/collections/${d.id}/generate`, {
    headers: asService(),
    body: { variables: { hat: 'crown', mood: 'sleepy' }, workflow_id: 'flexible_prompt' },
  });
  assert.ok([200, 202].includes(gen.status), JSON.stringify(gen.body));
  const jobId = gen.body.data.jobId;
  const job = await waitForJobEnd(p, jobId);
  assert.equal(job.status, 'completed', job.error_message ?? '');
  const [out] = await p.database.db.select().from(outputs).where(eq(outputs.job_id, jobId));
  assert.equal(out!.status, 'completed');
  const data = job.data as { steps: Array<{ nodePayload: { intent: string } }> };
  assert.equal(data.steps[0]!.nodePayload.intent, 'a portrait wearing a crown, feeling sleepy');
});

test('validation: unknown social_org, placeholder missing from the template, bad numbers', async () => {
  const badOrg = await call(`${p.backendUrl}/api/workflows/create-simple-collection`, {
    headers: asService(),
    body: body({ collection_details: { title: 'x', social_org: 'myspace', social_identifier: '1' } }),
  });
  assert.equal(badOrg.status, 400);
  assert.match(badOrg.body.error, /social_org/);
  const missing = await call(`${p.backendUrl}/api/workflows/create-simple-collection`, {
    headers: asService(),
    body: body({ template_json: { prompt: 'no placeholders' } }),
  });
  assert.equal(missing.status, 400);
  assert.match(missing.body.error, /variables\.0\.template_mapping.*hat_style/);
  const badEditions = await call(`${p.backendUrl}/api/workflows/create-simple-collection`, {
    headers: asService(),
    body: body({ collection_details: { title: 'x', social_org: 'social_b', social_identifier: '1', editions: 'ten' } }),
  });
  assert.equal(badEditions.status, 400);
  assert.match(badEditions.body.error, /editions/);
  const noAuth = await call(`${p.backendUrl}/api/workflows/create-simple-collection`, { body: body() });
  assert.equal(noAuth.status, 401);
});

test('a custodial collection generates through flexible_prompt with its template job_type, variables filled at generation time', async () => {
  const made = await call(`${p.backendUrl}/api/workflows/create-simple-collection`, {
    headers: asService(),
    body: body({ collection_details: { title: 'Own workflow', social_org: 'social_a', social_identifier: '777' } }),
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  // No workflow_id and no job_type: the collection's own are used.
  const gen = await call(`${p.backendUrl}/api/collections/${made.body.data.id}/generate`, {
    headers: asService(),
    body: { variables: { hat: 'beanie', mood: 'calm' } },
  });
  assert.equal(gen.status, 202, JSON.stringify(gen.body));
  const job = await waitForJobEnd(p, gen.body.data.jobId);
  assert.equal(job.status, 'completed', job.error_message ?? '');
  assert.equal(job.job_type, 'miniapp_pfp');
  const [wf] = await p.database.db.select().from(workflows).where(eq(workflows.id, job.workflow_id!));
  assert.equal(wf!.name, 'flexible_prompt');
  assert.equal(wf!.type, 'direct_job');
  const [step] = await readSteps(p.database.db, job.id);
  const payload = step!.input_data as { type: string; payload: { prompt: string } };
  assert.equal(payload.type, 'direct_job');
  assert.equal(payload.payload.prompt, 'a portrait wearing a beanie, feeling calm');
  // A request that names its own workflow and job type keeps them.
  const named = await call(`${p.backendUrl}/collections/${made.body.data.id}/generations`, {
    headers: asService(),
    body: { variables: { hat: 'crown', mood: 'calm' }, workflow_id: 'procedural', job_type: 'direct_api' },
  });
  const namedJob = await waitForJobEnd(p, named.body.data.jobId);
  assert.equal(namedJob.job_type, 'direct_api');
  const [wf2] = await p.database.db.select().from(workflows).where(eq(workflows.id, namedJob.workflow_id!));
  assert.equal(wf2!.name, 'procedural');
});

/** Workflow routes (docs/api/content.md §4.4), built-in workflows, and the workflow.execute span. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { seedBuiltinWorkflows } from '../src/db/workflows.ts';
import { initTelemetry, shutdownTelemetry } from '../src/telemetry.ts';
import { bearer, client, svc, userToken } from './helpers/content.ts';
import { startTestPlatform, type TestPlatform } from './helpers/platform.ts';

let p: TestPlatform;
let api: ReturnType<typeof client>;
const exporter = new InMemorySpanExporter();

before(async () => {
  initTelemetry({ serviceName: 'test', exporter });
  p = await startTestPlatform({}, {}, { listen: false }); // no sockets: both apps through inject()
  api = client(p);
});
after(async () => {
  await p.close();
  await shutdownTelemetry();
});

test('built-in workflows exist after the first start, once', async () => {
  assert.equal(await seedBuiltinWorkflows(p.database.db), 0, 'seeding again creates nothing');
  const res = await api('/api/workflows', svc());
  assert.equal(res.status, 200);
  const names = res.body.data.map((w: any) => w.name);
  for (const n of ['procedural', 'comfyui_default', 'openai_image', 'flexible_prompt']) assert.ok(names.includes(n), n);
  const w = res.body.data.find((x: any) => x.name === 'procedural');
  for (const k of ['id', 'name', 'label', 'type', 'description', 'created_at']) assert.ok(k in w, k);
  assert.equal('data' in w, false);
  const withData = await api('/api/workflows?include=eq.true', svc());
  assert.ok('data' in withData.body.data[0]);
  const keyed = await api('/api/workflows?require_api_keys=true', svc());
  assert.deepEqual(
    keyed.body.data.map((x: any) => x.name),
    ['openai_image'],
  );
  const page = await api('/api/workflows?limit=1&offset=1', svc());
  assert.equal(page.body.data.length, 1);
  assert.equal((await api('/api/workflows?limit=0', svc())).status, 400);
  assert.equal((await api('/api/workflows?require_api_keys=maybe', svc())).status, 400);

  const one = await api('/api/workflows/comfyui_default', svc());
  assert.equal(one.status, 200);
  assert.deepEqual(
    Object.keys(one.body.data).filter((k) => ['id', 'name', 'label', 'type', 'description', 'data', 'models', 'custom_nodes'].includes(k))
      .length,
    8,
  );
  assert.equal(one.body.data.type, 'comfy_workflow');
  assert.equal((await api('/api/workflows/nope', svc())).status, 404);
});

test('POST /api/workflows: service key only, validated, unique names; models and custom nodes index them', async () => {
  const body = {
    name: 'upscale_x2',
    label: 'Upscale',
    description: 'ComfyUI upscaler',
    data: { '1': { class_type: 'LoadImage', inputs: {} } },
    output_mime_type: 'image/png',
    type: 'comfy_workflow',
    models: ['RealESRGAN_x2.pth', 'sd_xl_base_1.0.safetensors'],
    custom_nodes: ['ComfyUI-Upscaler'],
    order: 5,
  };
  const user = await api('/api/workflows', bearer(await userToken('wf-user')), { body });
  assert.equal(user.status, 403);
  const created = await api('/api/workflows', svc(), { body });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.equal(created.body.data.name, 'upscale_x2');
  assert.deepEqual(created.body.data.data, body.data);
  assert.equal((await api('/api/workflows', svc(), { body })).status, 409);
  const missing = await api('/api/workflows', svc(), { body: { ...body, name: 'other', output_mime_type: undefined } });
  assert.equal(missing.status, 400);
  assert.match(missing.body.error, /^body\.output_mime_type/);
  const badType = await api('/api/workflows', svc(), { body: { ...body, name: 'other', type: 'shell' } });
  assert.match(badType.body.error, /^body\.type/);
  const noData = await api('/api/workflows', svc(), { body: { ...body, name: 'other', data: undefined } });
  assert.equal(noData.status, 400);
  assert.match(noData.body.error, /^body\.data/);
  // The name becomes a storage key segment: no dot segments, no slashes, no spaces.
  for (const bad of ['..', '.', '.hidden', 'a/b', 'a b', 'x:y']) {
    const res = await api('/api/workflows', svc(), { body: { ...body, name: bad } });
    assert.equal(res.status, 400, bad);
    assert.match(
      res.body.error,
      /^body\.name: a workflow name is part of storage keys: letters, digits, _ \. - only, not starting with a dot/,
    );
  }

  const models = await api('/api/models', svc());
  assert.equal(models.status, 200);
  const sdxl = models.body.data.find((m: any) => m.name === 'sd_xl_base_1.0.safetensors');
  assert.deepEqual(sdxl.workflows, ['comfyui_default', 'upscale_x2']);
  const nodes = await api('/api/custom-nodes', svc());
  assert.deepEqual(nodes.body.data, [{ name: 'ComfyUI-Upscaler', workflows: ['upscale_x2'] }]);
});

test('POST /workflows/:id/test runs the workflow and records a workflow.execute root span', async () => {
  exporter.reset();
  const res = await api('/workflows/procedural/test', svc('tester'), {
    body: { inputs: { prompt: 'a test', seed: 4, width: 64, height: 64, color: 'teal' } },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.data.connector, 'procedural');
  assert.equal(res.body.data.mime_type, 'image/png');
  const bytes = Buffer.from(await (await p.fetch(res.body.data.url)).arrayBuffer());
  assert.equal(bytes.subarray(1, 4).toString('ascii'), 'PNG');
  const span = exporter.getFinishedSpans().find((s) => s.name === 'workflow.execute')!;
  assert.ok(span);
  assert.equal(span.parentSpanContext, undefined);
  assert.equal(span.attributes['http.method'], 'POST');
  assert.equal(span.attributes['http.route'], '/workflows/:id/test');
  assert.equal(span.attributes['http.status_code'], 200);
  assert.equal(span.attributes['workflow.name'], 'procedural');
  assert.equal(span.attributes['workflow.type'], 'basic');
  assert.equal(typeof span.attributes['workflow.id'], 'string');
  assert.equal(span.attributes.error, false);

  exporter.reset();
  const missing = await api('/workflows/nope/test', svc('tester'), { body: { inputs: {} } });
  assert.equal(missing.status, 404);
  const failed = exporter.getFinishedSpans().find((s) => s.name === 'workflow.execute')!;
  assert.equal(failed.attributes.error, true);
  assert.equal(failed.attributes['http.status_code'], 404);
  assert.match(String(failed.attributes['error.message']), /not found/);
  const bad = await api('/workflows/procedural/test', svc('tester'), { body: { inputs: { width: 99999 } } });
  assert.equal(bad.status, 400);
  assert.match(bad.body.error, /^body\.inputs\.width/);
  assert.equal((await api('/workflows/procedural/test', svc('tester'), { body: {} })).status, 400);
});

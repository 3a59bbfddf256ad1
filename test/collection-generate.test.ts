/** Collection definitions from a concept: offline expander and an OpenAI-compatible chat API (fake). */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OpenAiConceptExpander } from '../src/generation/concept/openai-chat.ts';
import { startFakeOpenAiChat, type FakeChat } from './fakes/fake-openai-chat.ts';
import { asService, call, startTestPlatform, type TestPlatform } from './helpers/platform.ts';

describe('offline expander through the apps', () => {
  let p: TestPlatform;
  before(async () => {
    p = await startTestPlatform();
  });
  after(() => p.close());

  test('generate without save returns a v2 definition whose prompt references its variables', async () => {
    const res = await call(`${p.adminUrl}/api/nft/collections/generate`, {
      headers: asService(),
      body: { concept: 'foxes in a neon city' },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.success, true);
    assert.equal(res.body.collection_id, undefined);
    const g = res.body.generated;
    assert.equal(g.title, 'Foxes in a Neon City');
    assert.equal(g.data.version, 'v2');
    const features = g.variables.filter((v: any) => v.is_feature);
    assert.ok(features.length >= 3);
    for (const v of features) assert.ok(g.prompt.includes(`$${v.name}`), v.name);
    assert.equal(g.data.steps[0].nodePayload.intent, g.prompt);
    // Same concept, same definition.
    const again = await call(`${p.backendUrl}/nft/collections/generate`, {
      headers: asService(),
      body: { concept: 'foxes in a neon city' },
    });
    assert.deepEqual(again.body.data.generated, g);
  });

  test('save creates the collection and returns its id', async () => {
    const res = await call(`${p.backendUrl}/nft/collections/generate`, {
      headers: asService(),
      body: { concept: 'paper boats', save: true, blockchain: 'BASE', social_org: 'social_a', social_identifier: '42' },
    });
    assert.equal(res.status, 200);
    const id = res.body.data.collection_id;
    const got = await call(`${p.backendUrl}/nft/collections/${id}`, { headers: asService() });
    assert.equal(got.body.data.collection.title, 'Paper Boats');
    assert.equal(got.body.data.collection.blockchain, 'BASE');
    assert.equal(got.body.data.collection.is_custodial, true);
  });

  test('a concept under 3 characters is a 400 naming the field', async () => {
    const res = await call(`${p.adminUrl}/api/nft/collections/generate`, { headers: asService(), body: { concept: 'ab' } });
    assert.equal(res.status, 400);
    assert.match(res.body.error, /body\.concept: concept must be at least 3 characters/);
    const missing = await call(`${p.backendUrl}/nft/collections/generate`, { headers: asService(), body: {} });
    assert.equal(missing.status, 400);
    assert.match(missing.body.error, /body\.concept/);
  });

  test('design-stage setup returns a v2 data object with the style preference', async () => {
    const res = await call(`${p.backendUrl}/nft/collections/setup`, {
      headers: asService(),
      body: { prompt: 'lighthouses', style_preferences: 'linocut' },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.error, null);
    assert.equal(res.body.data.version, 'v2');
    const style = res.body.data.variables.find((v: any) => v.name === 'style');
    if (style) assert.equal(style.value[0].value, 'linocut');
  });
});

describe('OpenAI-compatible chat API (fake server)', () => {
  let fake: FakeChat;
  let reply: (body: any) => { status?: number; content?: string; error?: string };
  before(async () => {
    fake = await startFakeOpenAiChat((b) => reply(b));
  });
  after(() => fake.close());

  const expander = () => new OpenAiConceptExpander({ baseUrl: fake.url, apiKey: 'sk-test', model: 'local-model' });

  test('sends a JSON-schema request and turns the answer into v2 data', async () => {
    reply = () => ({
      content: JSON.stringify({
        title: 'Moon Moths',
        description: 'Moths that glow.',
        prompt: 'a $wing_color moth over $landscape',
        variables: [
          {
            name: 'wing_color',
            feature_name: 'Wing color',
            options: [
              { value: 'silver', weight: 3 },
              { value: 'gold', weight: 1 },
            ],
          },
          {
            name: 'landscape',
            feature_name: 'Landscape',
            options: [
              { value: 'marsh', weight: 1 },
              { value: 'peaks', weight: 1 },
            ],
          },
        ],
      }),
    });
    const g = await expander().expand({ concept: 'glowing moths' });
    assert.equal(g.title, 'Moon Moths');
    assert.equal(g.data.steps[0]!.nodePayload.intent, 'a $wing_color moth over $landscape');
    assert.deepEqual(g.data.variables.find((v) => v.name === 'wing_color')!.value[0], {
      value: 'silver',
      display_name: 'silver',
      weight: 3,
    });
    const sent = fake.requests.at(-1)!;
    assert.equal(sent.headers.authorization, 'Bearer sk-test');
    assert.equal(sent.body.model, 'local-model');
    assert.equal(sent.body.response_format.type, 'json_schema');
    assert.equal(sent.body.response_format.json_schema.strict, true);
    assert.match(sent.body.messages[1].content, /glowing moths/);
  });

  test('an answer that does not match the schema is an upstream error', async () => {
    reply = () => ({ content: '{"title": "only a title"}' });
    await assert.rejects(expander().expand({ concept: 'x y z' }), (e: any) => e.kind === 'upstream' && /schema/.test(e.message));
  });

  test('an API error is an upstream error with its message', async () => {
    reply = () => ({ status: 429, error: 'rate limited' });
    await assert.rejects(expander().expand({ concept: 'x y z' }), (e: any) => e.kind === 'upstream' && /429: rate limited/.test(e.message));
  });
});

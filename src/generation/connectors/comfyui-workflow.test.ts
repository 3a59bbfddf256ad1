import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_COMFY_WORKFLOW, deterministicPromptId, extractWorkflow, injectWorkflow } from './comfyui-workflow.ts';

test('injectWorkflow: placeholders, literal $ in prompts, the template untouched', () => {
  const g = injectWorkflow(DEFAULT_COMFY_WORKFLOW, { prompt: 'cost $& $1', seed: 9, width: 512, height: 768, values: {} });
  assert.equal(g['6']!.inputs.text, 'cost $& $1');
  assert.equal(g['3']!.inputs.seed, 9);
  assert.equal(g['5']!.inputs.width, 512);
  assert.equal(g['5']!.inputs.height, 768);
  assert.equal(DEFAULT_COMFY_WORKFLOW['3']!.inputs.seed, '{{seed}}', 'template untouched');
});

test('injectWorkflow without placeholders: the seed goes to every seed input, the prompt to the positive encoder', () => {
  const plain = {
    '10': { class_type: 'CLIPTextEncode', inputs: { text: 'negative stuff' }, _meta: { title: 'Negative' } },
    '11': { class_type: 'CLIPTextEncode', inputs: { text: 'old positive' }, _meta: { title: 'Positive Prompt' } },
    '12': { class_type: 'KSamplerAdvanced', inputs: { noise_seed: 1 } },
    '13': { class_type: 'Note', inputs: { text: 'style of {{value:artist}} and {{value:missing}}' } },
  };
  const p = injectWorkflow(plain, { prompt: 'new', seed: 5, width: 1, height: 1, values: { artist: 'Hokusai' } });
  assert.equal(p['11']!.inputs.text, 'new');
  assert.equal(p['10']!.inputs.text, 'negative stuff');
  assert.equal(p['12']!.inputs.noise_seed, 5);
  assert.equal(p['13']!.inputs.text, 'style of Hokusai and ');
  // No title says positive: the lowest-numbered encoder gets the prompt.
  const untitled = {
    '20': { class_type: 'CLIPTextEncode', inputs: { text: 'b' } },
    '3': { class_type: 'CLIPTextEncode', inputs: { text: 'a' } },
  };
  const u = injectWorkflow(untitled, { prompt: 'p', seed: 1, width: 1, height: 1, values: {} });
  assert.equal(u['3']!.inputs.text, 'p');
  assert.equal(u['20']!.inputs.text, 'b');
});

test('extractWorkflow: a bare graph, or one wrapped in prompt / workflow / api_workflow; anything else is none', () => {
  const graph = { '1': { class_type: 'SaveImage', inputs: {} } };
  assert.equal(extractWorkflow(graph), graph);
  for (const key of ['prompt', 'workflow', 'api_workflow']) assert.equal(extractWorkflow({ [key]: graph }), graph);
  assert.equal(extractWorkflow(null), undefined);
  assert.equal(extractWorkflow({}), undefined);
  assert.equal(extractWorkflow([graph]), undefined);
  assert.equal(extractWorkflow({ '1': { class_type: 'X' } }), undefined, 'a node without inputs is not a graph');
});

test('deterministicPromptId: a UUID v5 layout, the same for the same name, different otherwise', () => {
  const a = deterministicPromptId('step:job1-s0-r0:42');
  assert.match(a, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(deterministicPromptId('step:job1-s0-r0:42'), a);
  assert.notEqual(deterministicPromptId('step:job1-s0-r1:42'), a);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bindTemplate, templatePlaceholders, templateToGenerationData, type TemplateVariable } from './custodial-template.ts';
import { AppError } from './errors.ts';
import { normalizeGenerationData } from './generation-data.ts';

const v = (over: Partial<TemplateVariable> & { name: string }): TemplateVariable => ({
  options: [],
  is_selectable: false,
  is_customizable: false,
  ...over,
});

test('placeholders are found in strings anywhere inside the JSON', () => {
  const found = templatePlaceholders({ prompt: 'a {{ hat }} and {{mood}}', nested: [{ x: '{{size}}' }], n: 3 });
  assert.deepEqual([...found].sort(), ['hat', 'mood', 'size']);
});

test('mapped placeholders become $variables; unmapped ones stay as written', () => {
  const bound = bindTemplate({ prompt: 'a {{hat_style}} at {{place}}' }, new Map([['hat_style', 'hat']]));
  assert.deepEqual(bound, { prompt: 'a $hat at {{place}}' });
});

test('variables become v2 features; the prompt step uses the template prompt and keeps the bound template', () => {
  const template = { prompt: 'a portrait wearing a {{hat_style}}, feeling {{mood}}', size: '1024x1024' };
  const data = normalizeGenerationData(
    templateToGenerationData(template, [
      v({ name: 'hat', template_mapping: 'hat_style', options: ['beanie', 'crown'], is_selectable: true }),
      v({ name: 'mood', options: ['happy'], is_customizable: true }),
    ]),
  );
  const step = data.steps[0]!;
  assert.equal(step.nodeName, 'flexible_prompt');
  assert.equal(step.nodePayload.intent, 'a portrait wearing a $hat, feeling $mood');
  assert.deepEqual(step.nodePayload.template, { prompt: 'a portrait wearing a $hat, feeling $mood', size: '1024x1024' });
  const hat = data.variables.find((x) => x.name === 'hat')!;
  assert.equal(hat.is_feature, true);
  assert.equal(hat.is_selectable, true);
  assert.equal(hat.is_user_customizable, false);
  assert.deepEqual(
    hat.value.map((o) => [o.value, o.weight]),
    [
      ['beanie', 1],
      ['crown', 1],
    ],
  );
  assert.equal(data.variables.find((x) => x.name === 'mood')!.is_user_customizable, true);
});

test('a template without a prompt string is used as JSON text; a string template as itself', () => {
  const json = templateToGenerationData({ style: '{{s}}' }, [v({ name: 's' })]);
  assert.equal(json.steps![0]!.nodePayload.intent, JSON.stringify({ style: '$s' }));
  const text = templateToGenerationData('a {{s}}', [v({ name: 's' })]);
  assert.equal(text.steps![0]!.nodePayload.intent, 'a $s');
});

test('a mapping whose placeholder is not in the template is a 400 naming the variable', () => {
  assert.throws(
    () => templateToGenerationData({ prompt: 'a {{hat}}' }, [v({ name: 'hat' }), v({ name: 'mood', template_mapping: 'feeling' })]),
    (e: unknown) =>
      e instanceof AppError &&
      e.kind === 'invalid' &&
      e.message === 'body.variables.1.template_mapping: the template has no {{feeling}} placeholder',
  );
});

/**
 * Custodial template collections (docs/api/content.md §4.5): variables given as
 * {name, template_mapping, options, is_selectable, is_customizable} become prompt-editor
 * variables, and the template's `{{mapping}}` placeholders become `$name` references that the
 * flexible_prompt workflow fills at generation time. Pure: no I/O.
 */
import { invalid } from './errors.ts';
import type { GenerationDataInput } from './generation-data.ts';

export interface TemplateVariable {
  name: string;
  template_mapping?: string;
  options: string[];
  is_selectable: boolean;
  is_customizable: boolean;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;

/** Every {{placeholder}} of a template (strings anywhere inside the JSON). */
export function templatePlaceholders(template: unknown): Set<string> {
  const found = new Set<string>();
  const walk = (v: unknown) => {
    if (typeof v === 'string') for (const m of v.matchAll(PLACEHOLDER)) found.add(m[1]!);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(template);
  return found;
}

/** The template with each mapped {{placeholder}} replaced by `$name`. */
export function bindTemplate(template: unknown, mapping: Map<string, string>): unknown {
  if (typeof template === 'string') {
    return template.replace(PLACEHOLDER, (whole, key: string) => (mapping.has(key) ? `$${mapping.get(key)}` : whole));
  }
  if (Array.isArray(template)) return template.map((v) => bindTemplate(v, mapping));
  if (template && typeof template === 'object') {
    return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, bindTemplate(v, mapping)]));
  }
  return template;
}

/** The text prompt of a template: its `prompt` string when it has one, else the JSON itself. */
function promptOf(bound: unknown): string {
  if (typeof bound === 'string') return bound;
  const prompt = bound && typeof bound === 'object' ? (bound as Record<string, unknown>).prompt : undefined;
  if (typeof prompt === 'string') return prompt;
  return JSON.stringify(bound);
}

export function templateToGenerationData(template: unknown, variables: TemplateVariable[]): GenerationDataInput {
  const placeholders = templatePlaceholders(template);
  const mapping = new Map<string, string>();
  for (const [i, v] of variables.entries()) {
    const key = v.template_mapping ?? v.name;
    if (!placeholders.has(key)) {
      throw invalid(`body.variables.${i}.template_mapping: the template has no {{${key}}} placeholder`);
    }
    mapping.set(key, v.name);
  }
  const bound = bindTemplate(template, mapping);
  return {
    version: 'v2',
    steps: [
      {
        id: 1,
        nodeName: 'flexible_prompt',
        nodePayload: { intent: promptOf(bound), user_image: null, optional_ref_image: null, seed: null, template: bound },
      },
    ],
    variables: variables.map((v) => ({
      name: v.name,
      is_feature: true,
      feature_name: v.name,
      is_selectable: v.is_selectable,
      is_user_customizable: v.is_customizable,
      required: false,
      value: v.options.map((o) => ({ value: o, display_name: o, weight: 1 })),
    })),
  };
}

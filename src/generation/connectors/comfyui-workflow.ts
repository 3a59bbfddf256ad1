/**
 * ComfyUI workflow graphs (API format) and how a generation request fills them: the default
 * text-to-image graph, reading a graph out of a workflow record, the placeholders, and the
 * deterministic prompt_id that makes a retried step find its earlier prompt. Pure: no I/O.
 */
import { createHash } from 'node:crypto';

export interface ComfyNode {
  class_type: string;
  inputs: Record<string, unknown>;
  _meta?: { title?: string };
}
/** A workflow in ComfyUI's API format: node id → node. */
export type ComfyWorkflow = Record<string, ComfyNode>;

/**
 * A plain text-to-image graph used when the workflow record carries none. Placeholders:
 * `{{prompt}}` (inside any string), and whole-value `{{seed}}`, `{{width}}`, `{{height}}`.
 */
export const DEFAULT_COMFY_WORKFLOW: ComfyWorkflow = {
  '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'sd_xl_base_1.0.safetensors' } },
  '5': { class_type: 'EmptyLatentImage', inputs: { width: '{{width}}', height: '{{height}}', batch_size: 1 } },
  '6': { class_type: 'CLIPTextEncode', inputs: { text: '{{prompt}}', clip: ['4', 1] }, _meta: { title: 'Positive' } },
  '7': { class_type: 'CLIPTextEncode', inputs: { text: 'blurry, low quality, watermark', clip: ['4', 1] }, _meta: { title: 'Negative' } },
  '3': {
    class_type: 'KSampler',
    inputs: {
      seed: '{{seed}}',
      steps: 25,
      cfg: 7,
      sampler_name: 'euler',
      scheduler: 'normal',
      denoise: 1,
      model: ['4', 0],
      positive: ['6', 0],
      negative: ['7', 0],
      latent_image: ['5', 0],
    },
  },
  '8': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] } },
  '9': { class_type: 'SaveImage', inputs: { filename_prefix: 'atelier', images: ['8', 0] } },
};

/** A UUID (version-5 layout) from a name: the same step and seed always give the same prompt_id. */
export function deterministicPromptId(name: string): string {
  const h = createHash('sha256').update(`atelier-comfyui:${name}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

function isWorkflow(w: unknown): w is ComfyWorkflow {
  if (!w || typeof w !== 'object' || Array.isArray(w)) return false;
  const nodes = Object.values(w as Record<string, unknown>);
  return (
    nodes.length > 0 &&
    nodes.every(
      (n) =>
        !!n &&
        typeof n === 'object' &&
        typeof (n as ComfyNode).class_type === 'string' &&
        !!(n as ComfyNode).inputs &&
        typeof (n as ComfyNode).inputs === 'object',
    )
  );
}

/** Accepts a bare graph or {prompt: graph} / {workflow: graph} as workflow records often wrap it. */
export function extractWorkflow(data: unknown): ComfyWorkflow | undefined {
  if (isWorkflow(data)) return data;
  if (data && typeof data === 'object') {
    for (const key of ['prompt', 'workflow', 'api_workflow']) {
      const inner = (data as Record<string, unknown>)[key];
      if (isWorkflow(inner)) return inner;
    }
  }
  return undefined;
}

export interface InjectContext {
  prompt: string;
  seed: number;
  width: number;
  height: number;
  values: Record<string, string>;
}

/**
 * Copies the template with placeholders filled: `{{prompt}}` and `{{value:NAME}}` inside strings;
 * a string that is exactly `{{seed}}`, `{{width}}` or `{{height}}` becomes that number. A template
 * without `{{seed}}` gets the seed in every `seed`/`noise_seed` input; one without `{{prompt}}`
 * gets the prompt as the text of its positive CLIPTextEncode (titled "positive", else lowest id).
 */
export function injectWorkflow(template: ComfyWorkflow, ctx: InjectContext): ComfyWorkflow {
  let sawSeed = false;
  let sawPrompt = false;
  const numbers: Record<string, number> = { '{{seed}}': ctx.seed, '{{width}}': ctx.width, '{{height}}': ctx.height };
  const fill = (v: unknown): unknown => {
    if (typeof v === 'string') {
      if (v in numbers) {
        if (v === '{{seed}}') sawSeed = true;
        return numbers[v];
      }
      if (v.includes('{{prompt}}')) sawPrompt = true;
      // A function replacer, so `$` in a prompt is inserted literally.
      return v
        .replace(/\{\{prompt\}\}/g, () => ctx.prompt)
        .replace(/\{\{value:([A-Za-z_][A-Za-z0-9_]*)\}\}/g, (_m, name: string) => ctx.values[name] ?? '');
    }
    if (Array.isArray(v)) return v.map(fill);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]));
    return v;
  };
  const graph = fill(template) as ComfyWorkflow;
  if (!sawSeed) {
    for (const node of Object.values(graph)) {
      for (const k of ['seed', 'noise_seed']) if (typeof node.inputs[k] === 'number') node.inputs[k] = ctx.seed;
    }
  }
  if (!sawPrompt) {
    const encoders = Object.entries(graph)
      .filter(([, n]) => n.class_type === 'CLIPTextEncode' && typeof n.inputs.text === 'string')
      .sort(([a], [b]) => Number(a) - Number(b) || (a < b ? -1 : 1));
    const positive = encoders.find(([, n]) => /positive/i.test(n._meta?.title ?? '')) ?? encoders[0];
    if (positive) positive[1].inputs.text = ctx.prompt;
  }
  return graph;
}

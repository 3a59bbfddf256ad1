/** Request and response schemas of workflows (docs/api/content.md §2.5, §4.3 test route, §4.4). */
import { z } from 'zod';
import { WORKFLOW_TYPES } from '../../domain/content-statuses.ts';
import { MAX_SIZE } from '../../generation/connectors/types.ts';
import { queryBool, queryInt } from './common.ts';
import { envelope } from './envelope.ts';
import { EXAMPLE_ID, EXAMPLE_TIME, EXAMPLE_URL, withExample } from './examples.ts';

export const listWorkflowsQuery = z.object({
  include: z.string().max(50).optional(),
  require_api_keys: queryBool.optional(),
  limit: queryInt(1, 500).optional(),
  offset: queryInt(0, 1_000_000).optional(),
});

/**
 * A workflow name is a segment of storage keys (`workflow-tests/<name>/…`, storage/types.ts): no
 * slash, no dot segment, nothing a file system or an object store reads specially.
 */
const name = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/, 'a workflow name is part of storage keys: letters, digits, _ . - only, not starting with a dot');
const nameList = z.array(z.string().trim().min(1).max(300)).max(200);

/** A ComfyUI graph in API format: SDXL text to image at 1024², {{prompt}} and {{seed}} filled per generation. */
const COMFY_GRAPH = {
  '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'sd_xl_base_1.0.safetensors' } },
  '5': { class_type: 'EmptyLatentImage', inputs: { width: 1024, height: 1024, batch_size: 1 } },
  '6': { class_type: 'CLIPTextEncode', inputs: { text: '{{prompt}}, storybook illustration', clip: ['4', 1] } },
  '7': { class_type: 'CLIPTextEncode', inputs: { text: 'blurry, extra limbs, watermark, text', clip: ['4', 1] } },
  '3': {
    class_type: 'KSampler',
    inputs: {
      seed: '{{seed}}',
      steps: 30,
      cfg: 6.5,
      sampler_name: 'dpmpp_2m',
      scheduler: 'karras',
      denoise: 1,
      model: ['4', 0],
      positive: ['6', 0],
      negative: ['7', 0],
      latent_image: ['5', 0],
    },
  },
  '8': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] } },
  '9': { class_type: 'SaveImage', inputs: { filename_prefix: 'night-foxes', images: ['8', 0] } },
};

export const createWorkflowBody = withExample(
  z.object({
    name,
    label: z.string().trim().min(1).max(200),
    description: z.string().max(10_000),
    data: z.unknown().refine((v) => v !== undefined, 'data is required'),
    output_mime_type: z
      .string()
      .trim()
      .toLowerCase()
      .regex(/^[a-z]+\/[a-z0-9.+-]+$/, 'expected a MIME type such as image/png'),
    type: z.enum(WORKFLOW_TYPES).optional(),
    display: z.boolean().optional(),
    order: z.number().int().min(-1_000_000).max(1_000_000).optional(),
    models: nameList.optional(),
    custom_nodes: nameList.optional(),
    requires_api_key: z.boolean().optional(),
  }),
  {
    name: 'storybook-sdxl',
    label: 'Storybook SDXL',
    description: 'SDXL at 1024×1024 with a storybook style and a stronger negative prompt.',
    data: COMFY_GRAPH,
    output_mime_type: 'image/png',
    type: 'comfy_workflow',
    display: true,
    order: 30,
    models: ['sd_xl_base_1.0.safetensors'],
    custom_nodes: [],
    requires_api_key: false,
  },
);

/** The built-in renderer: it runs everywhere, no GPU and no key needed. */
const builtin = (s: z.ZodString) => withExample(s, 'procedural');
export const workflowNameParams = z.object({ name: builtin(z.string().trim().min(1).max(100)) });
export const workflowIdParams = z.object({ id: builtin(z.string().trim().min(1).max(100)) });

export const testWorkflowBody = withExample(
  z.object({
    inputs: z
      .object({
        prompt: z.string().max(10_000).optional(),
        seed: z
          .number()
          .int()
          .min(0)
          .max(2 ** 32 - 1)
          .optional(),
        width: z.number().int().min(16).max(MAX_SIZE).optional(),
        height: z.number().int().min(16).max(MAX_SIZE).optional(),
      })
      .catchall(z.union([z.string().max(2048), z.number(), z.boolean()])),
  }),
  {
    inputs: { prompt: 'portrait of a russet fox wearing a knitted scarf', seed: 42, width: 512, height: 512, fur: 'russet' },
  },
);

export const workflow = withExample(
  z.object({
    id: z.string(),
    name: z.string(),
    label: z.string(),
    type: z.string(),
    description: z.string(),
    created_at: z.string(),
    models: z.array(z.string()),
    custom_nodes: z.array(z.string()),
    output_mime_type: z.string(),
    display: z.boolean(),
    order: z.number().int(),
    requires_api_key: z.boolean(),
    data: z.unknown().optional().describe('with include=eq.true, and always for a single workflow'),
  }),
  {
    id: EXAMPLE_ID.workflow,
    name: 'procedural',
    label: 'Procedural renderer',
    type: 'basic',
    description: 'Built-in renderer (sharp): shapes and colours from the variables, deterministic by seed. Needs no GPU and no API key.',
    created_at: EXAMPLE_TIME.created,
    models: [],
    custom_nodes: [],
    output_mime_type: 'image/png',
    display: true,
    order: 0,
    requires_api_key: false,
    data: { renderer: 'procedural', width: 1024, height: 1024 },
  },
);

export const workflowResponse = envelope(workflow);
export const workflowListResponse = envelope(z.array(workflow));
export const requirementsResponse = envelope(
  z.array(
    withExample(z.object({ name: z.string(), workflows: z.array(z.string()) }), {
      name: 'sd_xl_base_1.0.safetensors',
      workflows: ['comfyui_default', 'storybook-sdxl'],
    }),
  ),
);
export const testWorkflowResponse = envelope(
  withExample(
    z.object({
      workflow: z.object({ id: z.string(), name: z.string(), type: z.string() }),
      connector: z.string(),
      url: z.string().nullable(),
      mime_type: z.string(),
      size: z.number().int(),
      duration_ms: z.number(),
      meta: z.record(z.string(), z.unknown()).nullable(),
    }),
    {
      workflow: { id: EXAMPLE_ID.workflow, name: 'procedural', type: 'basic' },
      connector: 'procedural',
      url: `${EXAMPLE_URL.base}/files/workflow-tests/procedural/0f3c9b52-6a1e-4d8b-9c27-5e4a1b7d3f60.png`,
      mime_type: 'image/png',
      size: 48213,
      duration_ms: 212,
      meta: { width: 512, height: 512, seed: 42 },
    },
  ),
);

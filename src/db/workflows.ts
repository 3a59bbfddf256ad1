/**
 * Workflow definitions (docs/api/content.md §2.5, §4.4) and the built-in ones created on first
 * start. A workflow's `type` chooses the generator connector (docs/generation.md): `basic` and
 * anything unconfigured render procedurally, `comfy_workflow` runs on ComfyUI, `fetch_api` calls
 * an OpenAI-compatible images API.
 */
import { asc, eq } from 'drizzle-orm';
import { conflict, notFound } from '../domain/errors.ts';
import type { WorkflowType } from '../domain/content-statuses.ts';
import { UUID_RE } from '../domain/ids.ts';
import type { Db } from './client.ts';
import { firstOf, type Statement } from './prepared.ts';
import { workflows } from './schema/index.ts';

export type WorkflowRow = typeof workflows.$inferSelect;

/** The workflow a generation uses when none is named. */
import { DEFAULT_WORKFLOW } from '../domain/default-workflow.ts';

export { DEFAULT_WORKFLOW };

export interface NewWorkflow {
  name: string;
  label: string;
  description?: string;
  data: unknown;
  output_mime_type: string;
  type?: WorkflowType;
  display?: boolean;
  order?: number;
  models?: string[];
  custom_nodes?: string[];
  requires_api_key?: boolean;
}

export const BUILTIN_WORKFLOWS: NewWorkflow[] = [
  {
    name: DEFAULT_WORKFLOW,
    label: 'Procedural renderer',
    type: 'basic',
    description: 'Built-in renderer (sharp): shapes and colours from the variables, deterministic by seed. Needs no GPU and no API key.',
    data: { renderer: 'procedural', width: 1024, height: 1024 },
    output_mime_type: 'image/png',
    order: 0,
  },
  {
    name: 'comfyui_default',
    label: 'ComfyUI text to image',
    type: 'comfy_workflow',
    description: 'A text-to-image graph run on the ComfyUI server at COMFYUI_URL (procedural renderer when unset).',
    // null: the connector's built-in text-to-image graph (DEFAULT_COMFY_WORKFLOW); POST your own graph as a new workflow.
    data: null,
    models: ['sd_xl_base_1.0.safetensors'],
    custom_nodes: [],
    output_mime_type: 'image/png',
    order: 10,
  },
  {
    name: 'openai_image',
    label: 'OpenAI-compatible image API',
    type: 'fetch_api',
    description: 'POST /v1/images/generations on OPENAI_BASE_URL with OPENAI_IMAGE_MODEL (procedural renderer when unset).',
    data: { endpoint: '/v1/images/generations' },
    output_mime_type: 'image/png',
    order: 20,
    requires_api_key: true,
  },
  {
    name: 'animate',
    label: 'Animate an image',
    type: 'basic',
    description:
      'Built-in renderer: an animated WebP (slow zoom, pan and hue drift) made from ref_image_1. The built-in image → animation global collection uses it.',
    data: { renderer: 'animate' },
    output_mime_type: 'image/webp',
    order: 40,
  },
  {
    name: 'image_variation',
    label: 'Image variation',
    type: 'basic',
    description:
      'Built-in renderer: a recoloured (and maybe mirrored) variation of ref_image_1. The built-in image → image global collection uses it.',
    data: { renderer: 'variation' },
    output_mime_type: 'image/png',
    order: 50,
  },
  {
    name: 'flexible_prompt',
    label: 'Flexible prompt',
    type: 'direct_job',
    description: 'Template prompt for custodial collections: {{variables}} of the template are replaced at generation time.',
    data: { template: '{{prompt}}' },
    output_mime_type: 'image/png',
    order: 30,
    display: false,
  },
];

/** Idempotent: inserts each built-in workflow whose name is free; never overwrites an edited one. */
export async function seedBuiltinWorkflows(db: Db): Promise<number> {
  let created = 0;
  for (const w of BUILTIN_WORKFLOWS) {
    const rows = await db
      .insert(workflows)
      .values(toValues(w))
      .onConflictDoNothing({ target: workflows.name })
      .returning({ id: workflows.id });
    created += rows.length;
  }
  return created;
}

function toValues(w: NewWorkflow) {
  return {
    name: w.name,
    label: w.label,
    type: w.type ?? 'basic',
    description: w.description ?? '',
    data: (w.data ?? null) as unknown,
    models: w.models ?? [],
    custom_nodes: w.custom_nodes ?? [],
    output_mime_type: w.output_mime_type,
    display: w.display ?? true,
    order: w.order ?? 0,
    requires_api_key: w.requires_api_key ?? false,
  };
}

export async function createWorkflow(db: Db, w: NewWorkflow): Promise<WorkflowRow> {
  const [row] = await db.insert(workflows).values(toValues(w)).onConflictDoNothing({ target: workflows.name }).returning();
  if (!row) throw conflict(`a workflow named "${w.name}" already exists`);
  return row;
}

/** By id (a UUID) or by name. */
export async function findWorkflow(db: Db, idOrName: string): Promise<WorkflowRow | null> {
  const [row] = UUID_RE.test(idOrName)
    ? await db.select().from(workflows).where(eq(workflows.id, idOrName))
    : await db.select().from(workflows).where(eq(workflows.name, idOrName));
  return row ?? null;
}

/** The workflow fields a job records, with the version the submit statement checks. */
export interface WorkflowForJob {
  id: string;
  name: string;
  type: string;
  models: string[];
  custom_nodes: string[];
  /** A digest of exactly these fields (db/generation-rows.ts checks it at the insert). */
  version: string;
}

/** The version of the fields a job records (`w` is the alias): other edits do not make a copy stale. */
export const workflowVersionSql = (w: string) => `md5(row(${w}.name, ${w}.type, ${w}.models, ${w}.custom_nodes)::text)`;

const WORKFLOW_FOR_JOB = {
  byId: {
    name: 'workflow_for_job_by_id',
    text: `select w.id::text, w.name, w.type, w.models, w.custom_nodes, ${workflowVersionSql('w')} as version from workflows w where w.id = $1::uuid`,
  },
  byName: {
    name: 'workflow_for_job_by_name',
    text: `select w.id::text, w.name, w.type, w.models, w.custom_nodes, ${workflowVersionSql('w')} as version from workflows w where w.name = $1`,
  },
} satisfies Record<string, Statement>;

/** By id (a UUID) or by name, or null. */
export async function workflowForJob(db: Db, idOrName: string): Promise<WorkflowForJob | null> {
  const s = UUID_RE.test(idOrName) ? WORKFLOW_FOR_JOB.byId : WORKFLOW_FOR_JOB.byName;
  return (await firstOf<WorkflowForJob>(db, s, [idOrName])) ?? null;
}

export async function getWorkflow(db: Db, idOrName: string): Promise<WorkflowRow> {
  const row = await findWorkflow(db, idOrName);
  if (!row) throw notFound(`workflow ${idOrName}`);
  return row;
}

export async function listWorkflows(db: Db, f: { requiresApiKey?: boolean; limit: number; offset: number }) {
  return db
    .select()
    .from(workflows)
    .where(f.requiresApiKey ? eq(workflows.requires_api_key, true) : undefined)
    .orderBy(asc(workflows.order), asc(workflows.name))
    .limit(f.limit)
    .offset(f.offset);
}

/** GET /api/models and /api/custom-nodes: each name once, with the workflows that need it. */
export async function requirementIndex(db: Db, field: 'models' | 'custom_nodes') {
  const rows = await db
    .select({ name: workflows.name, items: field === 'models' ? workflows.models : workflows.custom_nodes })
    .from(workflows)
    .orderBy(asc(workflows.name));
  const byName = new Map<string, string[]>();
  for (const r of rows) {
    for (const item of r.items ?? []) {
      if (typeof item !== 'string') continue;
      const list = byName.get(item) ?? [];
      list.push(r.name);
      byName.set(item, list);
    }
  }
  return [...byName.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, wfs]) => ({ name, workflows: wfs }));
}

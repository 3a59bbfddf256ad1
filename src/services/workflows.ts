/**
 * Workflow use cases (docs/api/content.md §2.5, §4.3 test route, §4.4): list, read, create
 * (platform-wide, so the operator only: `workflow.create`), the models and custom nodes they
 * need, and a test run of one workflow through its connector.
 */
import { randomUUID } from 'node:crypto';
import type { NewWorkflow, WorkflowRow } from '../db/workflows.ts';
import { authorize, type Caller } from '../domain/policy.ts';
import { type GeneratorConnector } from '../generation/connectors/index.ts';
import { workflowTestFailure } from '../generation/errors.ts';
import { isValidKey } from '../storage/types.ts';

export interface WorkflowPorts {
  list(f: { requiresApiKey?: boolean; limit: number; offset: number }): Promise<WorkflowRow[]>;
  get(idOrName: string): Promise<WorkflowRow>;
  create(w: NewWorkflow): Promise<WorkflowRow>;
  requirements(field: 'models' | 'custom_nodes'): Promise<Array<{ name: string; workflows: string[] }>>;
  /** Creates the built-in workflows whose names are free (idempotent); how many were created. */
  seedBuiltins(): Promise<number>;
  connectorFor(workflowType: string, workflowData: unknown): GeneratorConnector;
  /** Stores a test image and returns its URL; absent without storage (the answer's url is then null). */
  store?: (key: string, bytes: Buffer, mimeType: string) => Promise<{ url: string }>;
  now?: () => number;
}

export interface WorkflowTestInputs {
  prompt?: string;
  seed?: number;
  width?: number;
  height?: number;
  [value: string]: string | number | boolean | undefined;
}

export function createWorkflowService(ports: WorkflowPorts) {
  const now = ports.now ?? Date.now;
  return {
    list: ports.list,
    get: ports.get,
    requirements: ports.requirements,
    /** The built-in workflows exist from the first start on (edited ones are kept). */
    seedBuiltins: ports.seedBuiltins,

    async create(caller: Caller, w: NewWorkflow): Promise<WorkflowRow> {
      // Workflows are platform-wide and run on the platform's generators.
      authorize(caller, 'workflow.create');
      return ports.create(w);
    },

    /**
     * Runs the workflow once with `inputs` (prompt, seed, size; the rest are variable values).
     * `observe` learns the workflow as soon as it is found (the route's span records it).
     */
    async test(caller: Caller, id: string, inputs: WorkflowTestInputs, observe?: (w: WorkflowRow) => void) {
      authorize(caller, 'workflow.test');
      const workflow = await ports.get(id);
      observe?.(workflow);
      const { prompt, seed, width, height, ...rest } = inputs;
      const values = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, String(v)]));
      const connector = ports.connectorFor(workflow.type, workflow.data);
      const started = now();
      let result;
      try {
        result = await connector.generate(
          {
            prompt: prompt ?? workflow.label,
            seed: seed ?? 0,
            values,
            referenceImages: [],
            ...(width ? { width } : {}),
            ...(height ? { height } : {}),
          },
          () => undefined,
        );
      } catch (err) {
        throw workflowTestFailure(err, workflow.name);
      }
      const durationMs = now() - started;
      const ext = result.mimeType.split('/')[1]?.replace('jpeg', 'jpg') ?? 'bin';
      const url = ports.store
        ? (await ports.store(`workflow-tests/${keySegment(workflow)}/${randomUUID()}.${ext}`, result.bytes, result.mimeType)).url
        : null;
      return {
        workflow: { id: workflow.id, name: workflow.name, type: workflow.type },
        connector: connector.kind,
        url,
        mime_type: result.mimeType,
        size: result.bytes.length,
        duration_ms: durationMs,
        meta: result.meta ?? null,
      };
    },
  };
}

/** The workflow's name in storage keys; its id for a name stored before names were restricted. */
const keySegment = (w: { id: string; name: string }) => (isValidKey(`workflow-tests/${w.name}`) ? w.name : w.id);

export type WorkflowService = ReturnType<typeof createWorkflowService>;

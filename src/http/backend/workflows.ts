/**
 * Workflow routes (content-service.md §4.4, §4.3 test route, §6.3 workflow.execute):
 * GET/POST /api/workflows, GET /api/workflows/:name, GET /api/models, GET /api/custom-nodes,
 * POST /workflows/:id/test. Decisions in docs/jobs.md.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createWorkflow, getWorkflow, listWorkflows, presentWorkflow, requirementIndex, WORKFLOW_TYPES } from '../../db/workflows.ts';
import { AppError, forbidden } from '../../domain/errors.ts';
import { createConnector, GeneratorError, MAX_SIZE } from '../../generation/connectors/index.ts';
import { connectorConfigOf } from '../../generation/worker.ts';
import { withSpan } from '../../telemetry.ts';
import { requireUser } from '../plugins/auth.ts';
import { STATUS_OF_KIND } from '../plugins/errors.ts';
import { ok, queryBool, queryInt } from '../schemas/common.ts';
import type { BackendDeps } from './app.ts';

const listQuery = z.object({
  include: z.string().max(50).optional(),
  require_api_keys: queryBool.optional(),
  limit: queryInt(1, 500).optional(),
  offset: queryInt(0, 1_000_000).optional(),
});

const name = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _ . - only');
const nameList = z.array(z.string().trim().min(1).max(300)).max(200);

const createBody = z.object({
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
});

const testBody = z.object({
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
});

export function workflowRoutes(app: FastifyInstance, deps: BackendDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps.database;
  const tags = ['workflows'];

  r.get('/api/workflows', { schema: { querystring: listQuery, tags } }, async (req) => {
    const q = req.query;
    const includeData = q.include === 'eq.true' || q.include === 'true' || q.include === 'data';
    const rows = await listWorkflows(db, { requiresApiKey: q.require_api_keys === true, limit: q.limit ?? 100, offset: q.offset ?? 0 });
    return ok(rows.map((w) => presentWorkflow(w, { includeData })));
  });

  r.get('/api/workflows/:name', { schema: { params: z.object({ name: z.string().trim().min(1).max(100) }), tags } }, async (req) =>
    ok(presentWorkflow(await getWorkflow(db, req.params.name), { includeData: true })),
  );

  r.post('/api/workflows', { schema: { body: createBody, tags } }, async (req, reply) => {
    // Workflows are platform-wide and run on the platform's generators: only the service key adds them.
    if (req.caller.kind !== 'service') throw forbidden('only the service API key can create workflows');
    const row = await createWorkflow(db, req.body);
    return reply.code(201).send(ok(presentWorkflow(row, { includeData: true })));
  });

  r.get('/api/models', { schema: { tags } }, async () => ok(await requirementIndex(db, 'models')));
  r.get('/api/custom-nodes', { schema: { tags } }, async () => ok(await requirementIndex(db, 'custom_nodes')));

  r.post(
    '/workflows/:id/test',
    { schema: { params: z.object({ id: z.string().trim().min(1).max(100) }), body: testBody, tags } },
    async (req, reply) => {
      const route = '/workflows/:id/test';
      return withSpan('workflow.execute', { 'http.method': 'POST', 'http.route': route, 'workflow.id': req.params.id }, async (span) => {
        try {
          if (req.caller.kind !== 'service') requireUser(req);
          const workflow = await getWorkflow(db, req.params.id);
          span.setAttributes({ 'workflow.id': workflow.id, 'workflow.name': workflow.name, 'workflow.type': workflow.type });
          const { prompt, seed, width, height, ...rest } = req.body.inputs;
          const values = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, String(v)]));
          const connector = (
            deps.connectorFor ?? ((t: string, d: unknown) => createConnector(t, connectorConfigOf(deps.config), { workflowData: d }))
          )(workflow.type, workflow.data);
          const started = Date.now();
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
            if (err instanceof GeneratorError) {
              throw new AppError(err.retryable ? 'upstream' : 'invalid', `workflow ${workflow.name} failed: ${err.message}`);
            }
            throw err;
          }
          const durationMs = Date.now() - started;
          let url: string | null = null;
          if (deps.storage) {
            const ext = result.mimeType.split('/')[1]?.replace('jpeg', 'jpg') ?? 'bin';
            url = (await deps.storage.put(`workflow-tests/${workflow.name}/${randomUUID()}.${ext}`, result.bytes, result.mimeType)).url;
          }
          span.setAttribute('http.status_code', 200);
          return reply.send(
            ok({
              workflow: { id: workflow.id, name: workflow.name, type: workflow.type },
              connector: connector.kind,
              url,
              mime_type: result.mimeType,
              size: result.bytes.length,
              duration_ms: durationMs,
              meta: result.meta ?? null,
            }),
          );
        } catch (err) {
          span.setAttribute('http.status_code', err instanceof AppError ? STATUS_OF_KIND[err.kind] : 500);
          throw err;
        }
      });
    },
  );
}

/**
 * Workflow routes (docs/api/content.md §4.4, §4.3 test route, §6.3 workflow.execute):
 * GET/POST /api/workflows, GET /api/workflows/:name, GET /api/models, GET /api/custom-nodes,
 * POST /workflows/:id/test. Decisions in docs/jobs.md.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { AppError } from '../../domain/errors.ts';
import type { WorkflowService } from '../../services/workflows.ts';
import { withSpan } from '../../telemetry.ts';
import { STATUS_OF_KIND } from '../plugins/errors.ts';
import { presentWorkflow } from '../present/workflows.ts';
import { ok } from '../schemas/common.ts';
import {
  createWorkflowBody,
  listWorkflowsQuery,
  requirementsResponse,
  testWorkflowBody,
  testWorkflowResponse,
  workflowIdParams,
  workflowListResponse,
  workflowNameParams,
  workflowResponse,
} from '../schemas/workflows.ts';

export interface WorkflowRoutesOptions {
  workflows: WorkflowService;
}

export const workflowRoutes: FastifyPluginAsync<WorkflowRoutesOptions> = async (app, { workflows }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['workflows'];

  r.get(
    '/api/workflows',
    {
      schema: {
        tags,
        operationId: 'listWorkflows',
        summary: 'List workflows',
        description:
          'Workflows by order and name; `include=eq.true` adds their data, `require_api_keys=true` keeps those needing an API key.',
        querystring: listWorkflowsQuery,
        response: { 200: workflowListResponse },
      },
    },
    async (req) => {
      const q = req.query;
      const includeData = q.include === 'eq.true' || q.include === 'true' || q.include === 'data';
      const rows = await workflows.list({ requiresApiKey: q.require_api_keys === true, limit: q.limit ?? 100, offset: q.offset ?? 0 });
      return ok(rows.map((w) => presentWorkflow(w, { includeData })));
    },
  );

  r.get(
    '/api/workflows/:name',
    {
      schema: {
        tags,
        operationId: 'getWorkflow',
        summary: 'Get a workflow',
        description: 'One workflow by name or id, with its data, models and custom nodes.',
        params: workflowNameParams,
        response: { 200: workflowResponse },
      },
    },
    async (req) => ok(presentWorkflow(await workflows.get(req.params.name), { includeData: true })),
  );

  r.post(
    '/api/workflows',
    {
      schema: {
        tags,
        operationId: 'createWorkflow',
        summary: 'Create a workflow',
        description:
          'A new workflow (its type chooses the connector). Platform-wide: the service key only (403 otherwise); a taken name is 409.',
        body: createWorkflowBody,
        response: { 201: workflowResponse },
      },
    },
    async (req, reply) => reply.code(201).send(ok(presentWorkflow(await workflows.create(req.caller, req.body), { includeData: true }))),
  );

  r.get(
    '/api/models',
    {
      schema: {
        tags,
        operationId: 'listModels',
        summary: 'Models the workflows need',
        description: 'Each model name once, with the workflows that need it.',
        response: { 200: requirementsResponse },
      },
    },
    async () => ok(await workflows.requirements('models')),
  );

  r.get(
    '/api/custom-nodes',
    {
      schema: {
        tags,
        operationId: 'listCustomNodes',
        summary: 'Custom nodes the workflows need',
        description: 'Each custom node name once, with the workflows that need it.',
        response: { 200: requirementsResponse },
      },
    },
    async () => ok(await workflows.requirements('custom_nodes')),
  );

  const route = '/workflows/:id/test';
  r.post(
    route,
    {
      schema: {
        tags,
        operationId: 'testWorkflow',
        summary: 'Test a workflow',
        description:
          'Runs the workflow once with `inputs` (prompt, seed, width, height; other keys are variable values) and stores the image. Records a workflow.execute span. Any signed-in caller.',
        params: workflowIdParams,
        body: testWorkflowBody,
        response: { 200: testWorkflowResponse },
      },
    },
    async (req) =>
      withSpan('workflow.execute', { 'http.method': 'POST', 'http.route': route, 'workflow.id': req.params.id }, async (span) => {
        try {
          const result = await workflows.test(req.caller, req.params.id, req.body.inputs, (w) =>
            span.setAttributes({ 'workflow.id': w.id, 'workflow.name': w.name, 'workflow.type': w.type }),
          );
          span.setAttribute('http.status_code', 200);
          return ok(result);
        } catch (err) {
          span.setAttribute('http.status_code', err instanceof AppError ? STATUS_OF_KIND[err.kind] : 500);
          throw err;
        }
      }),
  );
};

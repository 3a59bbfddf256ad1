/** Request and response schemas of workflows (content-service.md §2.5, §4.3 test route, §4.4). */
import { z } from 'zod';
import { WORKFLOW_TYPES } from '../../domain/content-statuses.ts';
import { MAX_SIZE } from '../../generation/connectors/types.ts';
import { queryBool, queryInt } from './common.ts';
import { envelope } from './envelope.ts';

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

export const createWorkflowBody = z.object({
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

export const workflowNameParams = z.object({ name: z.string().trim().min(1).max(100) });
export const workflowIdParams = z.object({ id: z.string().trim().min(1).max(100) });

export const testWorkflowBody = z.object({
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

export const workflow = z.object({
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
});

export const workflowResponse = envelope(workflow);
export const workflowListResponse = envelope(z.array(workflow));
export const requirementsResponse = envelope(z.array(z.object({ name: z.string(), workflows: z.array(z.string()) })));
export const testWorkflowResponse = envelope(
  z.object({
    workflow: z.object({ id: z.string(), name: z.string(), type: z.string() }),
    connector: z.string(),
    url: z.string().nullable(),
    mime_type: z.string(),
    size: z.number().int(),
    duration_ms: z.number(),
    meta: z.record(z.string(), z.unknown()).nullable(),
  }),
);

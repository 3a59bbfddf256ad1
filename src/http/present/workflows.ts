/** Workflows as the API shows them (docs/api/content.md §2.5, §4.4). */
import type { WorkflowRow } from '../../db/workflows.ts';
import { iso } from '../../domain/time.ts';

export function presentWorkflow(row: WorkflowRow, opts: { includeData?: boolean } = {}) {
  return {
    id: row.id,
    name: row.name,
    label: row.label,
    type: row.type,
    description: row.description,
    created_at: iso(row.created_at)!,
    models: row.models,
    custom_nodes: row.custom_nodes,
    output_mime_type: row.output_mime_type,
    display: row.display,
    order: row.order,
    requires_api_key: row.requires_api_key,
    ...(opts.includeData ? { data: row.data ?? null } : {}),
  };
}

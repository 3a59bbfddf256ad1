/** The states and kinds of content records (docs/api/content.md §2.1, §2.2, §2.4, §2.5), shared by every layer. */

export const OUTPUT_STATUSES = ['pending', 'processing', 'completed', 'failed', 'hidden'] as const;
export type OutputStatus = (typeof OUTPUT_STATUSES)[number];

export const OUTPUT_SOURCES = [
  'direct_api',
  'ai_terminal',
  'miniapp',
  'studio_component',
  'studio_workflow',
  'load_test',
  'unknown',
] as const;

export const DECK_STATUSES = ['active', 'archived', 'published', 'locked'] as const;
export type DeckStatus = (typeof DECK_STATUSES)[number];

export const JOB_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export const TERMINAL_JOB_STATUSES: readonly string[] = ['completed', 'failed'];

export const WORKFLOW_TYPES = ['basic', 'comfy_workflow', 'fetch_api', 'direct_job', 'dynamic_json'] as const;
export type WorkflowType = (typeof WORKFLOW_TYPES)[number];

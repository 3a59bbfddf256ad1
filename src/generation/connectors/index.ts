/**
 * Connector choice (docs/generation.md):
 *
 * | workflow type   | configured                  | connector                       |
 * |-----------------|-----------------------------|---------------------------------|
 * | comfy_workflow  | comfyuiUrl (COMFYUI_URL)    | ComfyUI, graph from workflow    |
 * | fetch_api       | openaiBaseUrl (+ key/model) | OpenAI-compatible image API     |
 * | workflow data {renderer: 'animate' \| 'variation'} | any | built-in derive renderers (derive.ts) |
 * | anything else, or the service is not configured | built-in procedural renderer |
 *
 * Falling back keeps the embedded platform working end to end without a GPU or an API key;
 * `kind` on the returned connector says which one was chosen, for logs and job metadata.
 */
import { ComfyUiConnector } from './comfyui.ts';
import { AnimateConnector, VariationConnector } from './derive.ts';
import { OpenAiImagesConnector } from './openai.ts';
import { ProceduralConnector } from './procedural.ts';
import type { GeneratorConnector } from './types.ts';

export * from './types.ts';
export { ProceduralConnector, buildSvg } from './procedural.ts';
export { AnimateConnector, VariationConnector } from './derive.ts';
export { ComfyUiConnector, type ComfyUiConnectorOptions } from './comfyui.ts';
export { DEFAULT_COMFY_WORKFLOW, deterministicPromptId, extractWorkflow, injectWorkflow } from './comfyui-workflow.ts';
export type { ComfyNode, ComfyWorkflow, InjectContext } from './comfyui-workflow.ts';
export { OpenAiImagesConnector, type OpenAiImagesConnectorOptions } from './openai.ts';

export interface ConnectorConfig {
  comfyuiUrl?: string;
  openaiBaseUrl?: string;
  openaiApiKey?: string;
  openaiModel?: string;
  /** Per-generation time limit for the remote connectors. */
  timeoutMs?: number;
}

export interface ConnectorOptions {
  /** The workflow record's data: for comfy_workflow, the API-format graph template. */
  workflowData?: unknown;
}

export function createConnector(workflowType: string, config: ConnectorConfig, options: ConnectorOptions = {}): GeneratorConnector {
  const renderer = (options.workflowData as { renderer?: unknown } | null | undefined)?.renderer;
  if (renderer === 'animate') return new AnimateConnector();
  if (renderer === 'variation') return new VariationConnector();
  if (workflowType === 'comfy_workflow' && config.comfyuiUrl) {
    return new ComfyUiConnector({
      baseUrl: config.comfyuiUrl,
      ...(options.workflowData !== undefined && options.workflowData !== null ? { workflow: options.workflowData } : {}),
      ...(config.timeoutMs ? { timeoutMs: config.timeoutMs } : {}),
    });
  }
  if (workflowType === 'fetch_api' && config.openaiBaseUrl) {
    return new OpenAiImagesConnector({
      baseUrl: config.openaiBaseUrl,
      ...(config.openaiApiKey ? { apiKey: config.openaiApiKey } : {}),
      ...(config.openaiModel ? { model: config.openaiModel } : {}),
      ...(config.timeoutMs ? { timeoutMs: config.timeoutMs } : {}),
    });
  }
  return new ProceduralConnector();
}
